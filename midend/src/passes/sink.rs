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

use std::collections::HashMap;

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
    let mut users: HashMap<Value, Vec<Op>> = HashMap::new();
    for user in body.walk(block) {
        let Some(at) = body.ancestor_in(block, user) else { continue };
        for &v in &body.op(user).operands {
            users.entry(v).or_default().push(at);
        }
    }
    let ops: Vec<Op> = body.blocks[block].ops.clone();
    for &op in ops.iter().rev() {
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
        let order = &body.blocks[block].ops;
        let first = data
            .results
            .iter()
            .flat_map(|r| users.get(r).into_iter().flatten())
            .filter_map(|&at| order.iter().position(|&o| o == at))
            .min();
        let Some(first) = first else { continue };
        let here = order.iter().position(|&o| o == op).expect("an op of the block");
        let in_flight = |&o: &Op| writes_carried_registers(body, &users, o);
        let fence = order[here + 1..].iter().position(in_flight).map(|at| here + 1 + at);
        let target = fence.map_or(first, |fence| first.min(fence));
        if target > here + 1 {
            body.detach_op(op);
            body.insert_op(block, target - 1, op);
        }
    }
}

/// Whether `op` is an asynchronous warpgroup dot with a zero accumulator whose result only the
/// block's `scf.yield` reads, directly or through a `ttng.warp_group_dot_wait` (`users`: the
/// ops of the block reading each value).
fn writes_carried_registers(body: &Body, users: &HashMap<Value, Vec<Op>>, op: Op) -> bool {
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
