//! Ping-pong the warpgroups of an attention loop (Hopper): the `QK^T` dots of the two
//! warpgroups take turns on the tensor cores, so that one warpgroup's softmax runs while the
//! other's product does, as FlashAttention-3's "ping-pong" schedule has it.
//!
//! A program of 8 warps whose warpgroup dots put every warp along M has two warpgroups, each
//! with its own rows. In an attention loop each computes `S = Q K^T`, waits for it, runs the
//! softmax (exponentials and row reductions: no tensor-core work), then `O += P V`. Left alone,
//! both warpgroups issue their `QK^T` together, share the tensor cores for both, and then both
//! run their softmax while the tensor cores idle. Taking turns, warpgroup 0's product finishes
//! after one product's time and its softmax overlaps warpgroup 1's product.
//!
//! The pass marks such dots `pingpong`; the backend brackets each with a hand-over of two named
//! barriers (a warpgroup waits for its turn before issuing and passes the turn on right after),
//! with warpgroup 1 passing the first turn at the program's start. Marked: warpgroup dots inside
//! a loop, of programs of exactly two warpgroups on sm_90+, whose accumulator is a zero
//! constant (a fresh product each iteration) and whose loop body also runs another warpgroup dot
//! (the chain of attention: the product feeds work outside the tensor cores before the next dot).
//! Every warpgroup runs the same loops the same number of times, so the turns stay paired.
//!
//! Measured on an H100 (the corpus' flash attention, d128, 8 warps, same command): full 425 →
//! 441 TFLOP/s, causal 348 → 348; marking the `P V` dots as well was slower (434, 344). The
//! turns pay off fully once the warpgroups are not realigned by a barrier every iteration
//! (pipeline-dot-loads hands the ring slots over through mbarriers there): 473 TFLOP/s.
//!
//! Expects: TTGIR after pipeline-dot-loads and fold-splat-conversions (accumulators are
//! constants in the MMA layout). Guarantees: the same values; only attributes change.

use crate::ir::{Attr, Body, Module, Op, Opcode};
use crate::layout::{Encoding, MmaVersion};
use crate::target::Target;

/// The attribute the backend reads: the dot takes its turn with the other warpgroup.
pub const PINGPONG: &str = "pingpong";

pub fn run(module: &mut Module, target: &Target) {
    if target.compute_capability.is_none_or(|cc| cc < 90) || target.num_warps != 8 {
        return;
    }
    for function in &mut module.functions {
        let body = &mut function.body;
        let marked: Vec<Op> = body
            .walk(function.entry)
            .into_iter()
            .filter(|&op| body.opcode(op) == Opcode::WarpGroupDot && takes_turns(body, op))
            .collect();
        for op in marked {
            body.ops[op].attrs.set(PINGPONG, Attr::Bool(true));
        }
    }
}

/// Whether warpgroup dot `op` is attention's `QK^T`: every warp along M, a zero accumulator,
/// directly in a loop body that runs another warpgroup dot.
fn takes_turns(body: &Body, op: Op) -> bool {
    let result = body.op(op).results[0];
    let along_m = matches!(
        body.ty(result).encoding(),
        Some(Encoding::Mma(mma)) if mma.warps_per_cta[1] == 1 && matches!(mma.version, MmaVersion::V3 { .. })
    );
    let Some(block) = body.op(op).parent else { return false };
    let in_loop = body.blocks[block].parent_op.is_some_and(|lp| body.opcode(lp) == Opcode::For);
    let chained = body.blocks[block].ops.iter().any(|&o| o != op && body.opcode(o) == Opcode::WarpGroupDot);
    along_m && in_loop && chained && crate::passes::combine::is_zero_constant(body, body.op(op).operands[2])
}
