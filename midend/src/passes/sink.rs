//! Sink: move each pure op down to just before its first user in the same block.
//!
//! The passes before leave address and mask arithmetic where the source wrote it, often long
//! before the memory op that reads it: a matmul's output pointers (128 registers' worth for a
//! 128x256 tile) were computed before the K loop's accumulators were converted for the store,
//! so both were live at once and ptxas spilled. Placing each computation right before its first
//! user keeps live ranges short; ptxas still schedules within the straight-line code, but it
//! does not move arithmetic across barriers or layout conversions through shared memory.
//!
//! Ops move only within their block (a user in a nested region counts at its ancestor op in the
//! block), are visited last to first so that a chain sinks as a unit, and keep their relative
//! order otherwise. Ops with effects, regions or no users stay, and so do dots (they may read
//! shared rings in place). No op sinks past an asynchronous warpgroup dot whose result the loop
//! carries to its next iteration with a zero accumulator: the dot writes the registers of the
//! carried value while in flight (a rotated attention loop issues the next iteration's scores
//! into the registers of the current ones, which the softmax before the dot reads).
//!
//! Expects: any verified IR. Guarantees: the same values; every op still dominates its users.

use rustc_hash::FxHashMap;

use crate::ir::{Block, Body, Effect, Module, Op, Value};

pub fn run(module: &mut Module) {
    for function in &mut module.functions {
        let body = &mut function.body;
        let mut blocks = vec![function.entry];
        for op in body.walk(function.entry) {
            blocks.extend(body.op(op).regions.iter().copied());
        }
        for block in blocks {
            sink_block(body, block);
        }
    }
}

fn sink_block(body: &mut Body, block: Block) {
    // Each value's users, as the ops of this block that hold them.
    let mut users: FxHashMap<Value, Vec<Op>> = FxHashMap::default();
    for user in body.walk(block) {
        let Some(at) = body.ancestor_in(block, user) else { continue };
        for &v in &body.op(user).operands {
            users.entry(v).or_default().push(at);
        }
    }
    let ops: Vec<Op> = body.blocks[block].ops.clone();
    // No op moves past a fence, and fences (dots) never move: the first fence after an op is the
    // first in the block's original order.
    let fences: Vec<usize> =
        (0..ops.len()).filter(|&i| writes_carried_registers(body, &users, ops[i])).collect();
    let mut order = Order::new(&ops);
    for (index, &op) in ops.iter().enumerate().rev() {
        let data = body.op(op);
        let info = data.opcode.info();
        // A dot may read its operands in place from a shared ring (`ttg.local_load`) that later
        // asynchronous copies overwrite: it stays where the pipeliner put it.
        let stays = data.opcode.is_dot();
        if info.effect != Effect::Pure
            || info.regions != 0
            || info.terminator
            || data.results.is_empty()
            || stays
        {
            continue;
        }
        let first = data.results.iter().flat_map(|r| users.get(r).into_iter().flatten()).copied();
        let Some(first) = first.min_by_key(|&at| order.label(at)) else { continue };
        let fence = fences.get(fences.partition_point(|&f| f <= index)).map(|&f| ops[f]);
        let target = match fence {
            Some(fence) if order.label(fence) < order.label(first) => fence,
            _ => first,
        };
        order.move_before(op, target);
    }
    body.blocks[block].ops = order.into_ops();
}

/// The ops of a block as a doubly linked list whose labels grow along it, so that moving an op
/// and comparing two ops' places each cost O(1) (amortized): the pass moves thousands of ops in
/// an unrolled loop's body, and finding places by searching the block's vector was quadratic.
struct Order {
    label: FxHashMap<Op, u64>,
    prev: FxHashMap<Op, Op>,
    next: FxHashMap<Op, Op>,
    head: Option<Op>,
}

impl Order {
    /// The gap between consecutive labels after (re)labelling: room for 20 halvings.
    const SPACING: u64 = 1 << 20;

    fn new(ops: &[Op]) -> Order {
        let mut order = Order {
            label: FxHashMap::default(),
            prev: FxHashMap::default(),
            next: FxHashMap::default(),
            head: ops.first().copied(),
        };
        for pair in ops.windows(2) {
            order.next.insert(pair[0], pair[1]);
            order.prev.insert(pair[1], pair[0]);
        }
        order.relabel();
        order
    }

    fn label(&self, op: Op) -> u64 {
        self.label[&op]
    }

    fn relabel(&mut self) {
        let mut at = self.head;
        let mut label = Self::SPACING;
        while let Some(op) = at {
            self.label.insert(op, label);
            label += Self::SPACING;
            at = self.next.get(&op).copied();
        }
    }

    /// Moves `op` to just before `target`, which follows it.
    fn move_before(&mut self, op: Op, target: Op) {
        if self.next.get(&op) == Some(&target) {
            return;
        }
        // Unlink `op`.
        let (before, after) = (self.prev.remove(&op), self.next.remove(&op));
        match before {
            Some(before) => self.link(before, after),
            None => self.head = after,
        }
        if let Some(after) = after {
            match before {
                Some(before) => self.prev.insert(after, before),
                None => self.prev.remove(&after),
            };
        }
        // Link it before `target` (which has a predecessor: `op` was before it).
        let before = self.prev[&target];
        self.link(before, Some(op));
        self.prev.insert(op, before);
        self.next.insert(op, target);
        self.prev.insert(target, op);
        let (low, high) = (self.label(before), self.label(target));
        if high - low > 1 {
            self.label.insert(op, low + (high - low) / 2);
        } else {
            self.relabel();
        }
    }

    fn link(&mut self, from: Op, to: Option<Op>) {
        match to {
            Some(to) => self.next.insert(from, to),
            None => self.next.remove(&from),
        };
    }

    fn into_ops(self) -> Vec<Op> {
        let mut ops = Vec::with_capacity(self.label.len());
        let mut at = self.head;
        while let Some(op) = at {
            ops.push(op);
            at = self.next.get(&op).copied();
        }
        ops
    }
}

/// Whether `op` is an asynchronous warpgroup dot with a zero accumulator whose result only the
/// block's `scf.yield` reads, directly or through a `ttng.warp_group_dot_wait` (`users`: the
/// ops of the block reading each value).
fn writes_carried_registers(body: &Body, users: &FxHashMap<Value, Vec<Op>>, op: Op) -> bool {
    use crate::ir::Opcode;
    let data = body.op(op);
    if data.opcode != Opcode::WarpGroupDot
        || data.attrs.bool("is_async") != Some(true)
        || !crate::passes::combine::is_zero_constant(body, data.operands[2])
    {
        return false;
    }
    let only_user = |v: Value| match users.get(&v).map(Vec::as_slice) {
        Some(&[user]) => Some(user),
        _ => None,
    };
    let Some(mut user) = only_user(data.results[0]) else { return false };
    if body.opcode(user) == Opcode::WarpGroupDotWait {
        let Some(next) = only_user(body.op(user).results[0]) else { return false };
        user = next;
    }
    body.opcode(user) == Opcode::Yield
}
