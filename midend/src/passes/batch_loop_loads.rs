//! Batch loop loads: a small loop that walks a row in blocks (layer norm's three passes, a
//! reduction over a long row) runs its whole blocks without masks, and, where it only loads,
//! several blocks per trip with the loads of all of them issued before any is used.
//!
//! NVIDIA's Vulkan driver, measured on an H100 with layer norm forward (f16, 4096 x 8192), keeps
//! the order the SPIR-V gives, and pays for masks: each thread of such a loop holds one load in
//! flight, waits for it, adds it in, and asks for the next block (1723 GB/s; Triton on CUDA
//! 2357). Written by hand, four loads first in the two reading passes without masks gave 1832;
//! the same with the masks kept 1730; the writing pass without masks and two blocks a trip 1978;
//! both 2205. ptxas unrolls and schedules such loops itself, so for targets whose code generator
//! does not ([`Target::schedules_loads`]) this pass does it:
//!
//! ```text
//! for i in [0, n) step B { c = i + range(0, B); x = load(p + c, c < n); acc = acc + x }
//! ```
//! becomes, with the body cloned `U` times ([`unroll_loops::unroll`]: a main loop over whole
//! groups of `U` blocks, then the original loop for what is left, at most `U` blocks),
//! ```text
//! for i in [0, main_ub) step U*B { x0 = load(p + i + range(0, B)); x1 = load(p + i + B + ...); ...
//!                                  acc = acc + x0; acc = acc + x1; ... }
//! for i in [main_ub, n) step B { c = i + range(0, B); x = load(p + c, c < n); acc = acc + x }
//! ```
//! - **Masks**: in the main loop, `splat(i + k) + range(s, e) < splat(ub)`, with `ub` the loop's
//!   upper bound, `k >= 0` and `s >= 0` constants and `k + e <= U * step`, holds for every
//!   element: the main loop runs only trips `i` with `i + U * step <= main_ub <= ub`. Such a
//!   comparison becomes a constant true, and canonicalization ([`canonicalize::run_on_block`])
//!   drops the masks and folds the selects it guarded.
//! - **Loads first**: where the body has no store (a store may write what a later block's load
//!   reads, an in-place kernel, so no load could move above it), `U` is the largest of 4 and 2
//!   that keeps `U` times the loads per iteration within [`MAX_LOADS`], `U` times their bytes per
//!   thread within [`MAX_BYTES_PER_THREAD`] (the registers the batched loads hold), and, where
//!   the trip count is known, at most the trip count; in the main loop's body each load, with the
//!   pure arithmetic it needs, moves ahead of the rest, loads keeping their order. With a store,
//!   `U` is 1: the loop is only split, where that drops a mask.
//!
//! A loop qualifies when it is innermost, at most [`MAX_BODY_OPS`] ops long, runs from a
//! constant lower bound `>= 0` by a constant step whose `U` multiple fits its induction
//! variable's type (so that none of the main loop's bound arithmetic wraps), its body holds
//! nothing but loads, stores and pure ops without regions (no dot: tensor-core loops have their
//! own pipelining), it asks for no unrolling of its own, and it gains something: `U >= 2`, or a
//! mask to drop.
//!
//! Measured and dropped (H100, NVIDIA's Vulkan): the loads of loops with dots moved first too,
//! without unrolling (attention's V tile, which the source loads after the softmax, then in
//! flight during the QK^T product): flash attention d64 full 54.7 -> 55.6 TFLOP/s, d64 causal
//! 53.4 -> 47.9, d128 unchanged; the GEMM's loads already come first.
//!
//! Also measured and dropped: element-wise kernels versioned the same way outside loops (a
//! program whose block `pid * B + range(0, B) < n` is whole ran a copy of the kernel without
//! masks): vector add 2654 GB/s either way, softmax, dropout and layer norm backward within 1.5%;
//! there the masks cost nothing measurable.
//!
//! Expects: TTGIR (loads have layouts). Guarantees: the same iterations in the same order, so
//! the same values; loads and stores in their order relative to each other.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::analysis::trip_count;
use crate::ir::{Attr, Attrs, Block, Body, Effect, Module, Op, Opcode, Value};
use crate::passes::{canonicalize, unroll_loops};
use crate::target::Target;

/// The longest loop body (in ops, its yield excluded) this pass unrolls.
pub const MAX_BODY_OPS: usize = 48;
/// The most loads one trip of the main loop batches.
pub const MAX_LOADS: usize = 4;
/// The most bytes per thread the batched loads of one trip hold.
pub const MAX_BYTES_PER_THREAD: u64 = 64;

/// Splits and batches the qualifying loops of every function, for targets that need it.
pub fn run(module: &mut Module, target: &Target) {
    if target.schedules_loads() {
        return;
    }
    for function in &mut module.functions {
        let body = &mut function.body;
        let loops: Vec<(Op, Plan)> = body
            .walk(function.entry)
            .into_iter()
            .filter(|&op| body.opcode(op) == Opcode::For)
            .filter_map(|lp| plan(body, lp).map(|plan| (lp, plan)))
            .collect();
        for (lp, Plan { factor, step }) in loops {
            let bound = body.op(lp).operands[1];
            let main = unroll_loops::unroll(body, lp, factor);
            let block = body.op(main).regions[0];
            drop_whole_block_masks(body, main, bound, factor * step);
            canonicalize::run_on_block(body, block);
            if factor > 1 {
                loads_first(body, block);
            }
        }
    }
}

/// How a qualifying loop is split: `factor` blocks a trip of the main loop, of `step` (its
/// constant step) each.
struct Plan {
    factor: i64,
    step: i64,
}

/// How loop `lp` is split, when it qualifies (module docs).
fn plan(body: &Body, lp: Op) -> Option<Plan> {
    let data = body.op(lp);
    if data.attrs.get("tt.loop_unroll_factor").is_some() {
        return None;
    }
    let ops = &body.blocks[data.regions[0]].ops;
    if ops.len() > MAX_BODY_OPS + 1 {
        return None;
    }
    let mut loads = 0;
    let mut stores = 0;
    let mut bytes = 0;
    for &op in ops {
        let opcode = body.opcode(op);
        let info = opcode.info();
        if info.regions != 0 || opcode.is_dot() {
            return None;
        }
        match opcode {
            Opcode::Load => {
                loads += 1;
                bytes += bytes_per_thread(body, op)?;
            }
            Opcode::Store => stores += 1,
            _ if info.effect == Effect::Pure || info.terminator => {}
            _ => return None,
        }
    }
    let step = whole_blocks(body, lp)?;
    let iv = body.blocks[data.regions[0]].args[0];
    let largest = match body.ty(iv).dtype().bits() {
        32 => i64::from(i32::MAX),
        _ => i64::MAX,
    };
    let trips = trip_count::trip_count(body, lp);
    let batch = [4i64, 2].into_iter().find(|&u| {
        stores == 0
            && loads > 0
            && u as usize * loads <= MAX_LOADS
            && u as u64 * bytes <= MAX_BYTES_PER_THREAD
            && trips.is_none_or(|trips| trips >= u)
            && step.checked_mul(u).is_some_and(|span| span <= largest)
    });
    let factor = batch.unwrap_or(1);
    let masks = ops.iter().any(|&op| whole_block_mask(body, op, iv, data.operands[1], factor * step));
    (batch.is_some() || masks).then_some(Plan { factor, step })
}

/// The step of loop `lp` when it runs from a constant lower bound `>= 0` by a constant step: then
/// none of the main loop's bounds wrap (`ub - lb` and `U * step` fit the induction variable's
/// type, [`plan`] checks the latter), and its trips end at or before the loop's upper bound.
fn whole_blocks(body: &Body, lp: Op) -> Option<i64> {
    let lb = trip_count::constant(body, body.op(lp).operands[0])?;
    let step = trip_count::constant_step(body, lp)?;
    (lb >= 0).then_some(step)
}

/// Replaces, in the main loop `main` (from [`unroll_loops::unroll`], `span` its constant step),
/// each comparison that holds for every element (module docs) by a constant true. `bound` is the
/// original loop's upper bound.
fn drop_whole_block_masks(body: &mut Body, main: Op, bound: Value, span: i64) {
    let block = body.op(main).regions[0];
    let iv = body.blocks[block].args[0];
    let masks: Vec<Op> = body.blocks[block]
        .ops
        .iter()
        .copied()
        .filter(|&op| whole_block_mask(body, op, iv, bound, span))
        .collect();
    let mut replaced = HashMap::new();
    for mask in masks {
        let result = body.result(mask);
        let ty = body.ty(result).clone();
        let attrs = Attrs::new().with("value", Attr::Bool(true));
        let span = body.span(mask);
        let constant = body.create_op(Opcode::Constant, vec![], &[ty], attrs, vec![], span);
        let at = body.position(block, mask);
        body.insert_op(block, at, constant);
        replaced.insert(result, body.result(constant));
        body.detach_op(mask);
    }
    body.replace_uses(block, &replaced);
}

/// Whether `op` is `splat(x) + range(s, e) < splat(bound)` (either order of the addition) with
/// `x = iv + k`, `k >= 0`, `s >= 0` and `k + e <= span`.
fn whole_block_mask(body: &Body, op: Op, iv: Value, bound: Value, span: i64) -> bool {
    let data = body.op(op);
    if data.opcode != Opcode::CmpI || data.attrs.get("predicate") != Some(&Attr::Str("slt".into())) {
        return false;
    }
    let defined = |v: Value, opcode: Opcode| body.def_op(v).filter(|&d| body.opcode(d) == opcode);
    let Some(limit) = defined(data.operands[1], Opcode::Splat) else { return false };
    let Some(sum) = defined(data.operands[0], Opcode::AddI) else { return false };
    if body.op(limit).operands[0] != bound {
        return false;
    }
    let [a, b] = body.op(sum).operands[..] else { return false };
    let (Some(first), Some(range)) = (
        defined(a, Opcode::Splat).or_else(|| defined(b, Opcode::Splat)),
        defined(a, Opcode::MakeRange).or_else(|| defined(b, Opcode::MakeRange)),
    ) else {
        return false;
    };
    let attr = |name: &str| body.op(range).attrs.get(name).and_then(Attr::as_int);
    let (Some(start), Some(end)) = (attr("start"), attr("end")) else { return false };
    let Some((terms, k)) = trip_count::affine_sum(body, body.op(first).operands[0]) else { return false };
    terms == BTreeMap::from([(iv, 1)])
        && k >= 0
        && start >= 0
        && k.checked_add(end).is_some_and(|e| e <= span)
}

/// The bytes of load `op`'s result each thread holds (`None` without a layout).
fn bytes_per_thread(body: &Body, op: Op) -> Option<u64> {
    let ty = body.ty(body.op(op).results[0]);
    let elements = if ty.is_tensor() {
        u64::from(ty.encoding()?.to_linear(ty.shape()).ok()?.num_registers())
    } else {
        1
    };
    Some(elements * ty.dtype().size_bytes() as u64)
}

/// Reorders `block` (loads and pure ops, then its terminator) so that the loads and the ops they
/// need come first, each part in its order.
fn loads_first(body: &mut Body, block: Block) {
    let mut ops = body.blocks[block].ops.clone();
    let terminator = ops.pop().expect("a loop body ends in scf.yield");
    // Walking backwards, an op is needed when it is a load or defines an operand of a needed op.
    let mut needed_values: HashSet<Value> = HashSet::new();
    let mut needed: HashSet<Op> = HashSet::new();
    for &op in ops.iter().rev() {
        let data = body.op(op);
        if data.opcode == Opcode::Load || data.results.iter().any(|r| needed_values.contains(r)) {
            needed.insert(op);
            needed_values.extend(data.operands.iter().copied());
        }
    }
    let (mut order, rest): (Vec<Op>, Vec<Op>) = ops.into_iter().partition(|op| needed.contains(op));
    order.extend(rest);
    order.push(terminator);
    body.blocks[block].ops = order;
}
