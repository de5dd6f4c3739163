//! Rotation of attention's chain of warpgroup dots by one iteration in a warp-specialized loop
//! (Hopper), so that each consumer warpgroup's softmax overlaps its own `P V` on the tensor
//! cores, as FlashAttention-3's "intra-warpgroup overlap" has it.
//!
//! After [`super::keep_chain_in_flight`], iteration `k` issues `S = Q K_k^T`, waits for it and for
//! the previous iteration's `P V` together, runs the softmax of `S`, rescales the accumulator and
//! issues `P_k V_k`, left in flight into iteration `k + 1`. The softmax (exponentials on the
//! special-function units, row reductions) runs while the tensor cores have nothing of this
//! warpgroup's to do. Rotated, iteration `k` issues the scores of the *next* iteration right
//! before its `P V`, and waits for each dot only where its result is read:
//!
//! ```text
//! S_init = warp_group_dot_wait (warp_group_dot(Q, K_lb, 0, lb < ub)) {pendings = 0}
//! for k (.., acc, S = S_init):                      // S = Q K_k^T, complete
//!     .. the softmax of S (row max, exponentials, row sums), while P V of k - 1 runs ..
//!     acc = warp_group_dot_wait acc {pendings = 0}  // P V of k - 1 is done
//!     .. the accumulator's rescaling ..
//!     ttng.wait_barrier %k_ring, k + 1's slot and phase, k + 1 < ub
//!     s   = warp_group_dot(Q, K_{k+1}, 0, k + 1 < ub)
//!     acc'= warp_group_dot(P, V_k, acc * alpha)
//!     S'  = warp_group_dot_wait s {pendings = 1}    // the scores are done; P V runs on
//!     yield .., acc', S'
//! ```
//!
//! The scores are issued before `P V`, so waiting until one group is left completes them: the
//! tensor cores run `P V_k` while the next iteration's softmax does, which is FlashAttention-3's
//! schedule (issue `Q K^T`, issue `P V`, wait for one, softmax, wait for both). Only `P V` is in
//! flight across the back edge, as without the rotation: ptxas serialized every wgmma of the
//! kernel when the scores' wait sat at the top of the body instead (C7514, an accumulator read
//! after a `wgmma.wait_group 1` that it could not match to its group across the back edge). The
//! last iteration issues no scores (`k + 1 < ub` is false: nothing is issued and no group
//! committed; its wait then leaves `P V` alone), and the loop's result waits for every group as
//! before. The slot of iteration `k` is free once `P V_k` is done: the consumers release it after
//! the accumulator's wait of iteration `k + 1`, the first wait of the body with `pendings = 0`.
//!
//! Only the warp-specialized form is rotated: its consumers hold more registers (`setmaxnreg`)
//! and compute no copy addresses. Measured on an H100 (the corpus' attention, 2048 keys, same
//! command): flash_attn_desc d128 full 413 → 434 TFLOP/s, causal 276 → 273; the same rotation of
//! the `cp.async` forms was slower, flash_attn d128 (8 warps, pingpong) 472 → 458 and d64 (4
//! warps) 369 → 345, where the extra scores tile pushed ptxas to 255 registers and spills.
//!
//! Expects: the consumers' loop as [`super::keep_chain_in_flight`] leaves it, `Q` defined
//! outside the loop, `K` read in place from a TMA ring (`ttg.local_load` of the iteration's slot)
//! and a constant zero accumulator for the scores, read only before the second dot. Anything else
//! is left as it was.

use std::collections::HashMap;

use super::ChainInFlight;
use crate::ir::{Attr, Attrs, Body, Builder, Op, Opcode, Value};

/// Rotates loop `lp`'s `chain` (see the module docs); `slot` and `phase` are the body arguments
/// that carry the slot the iteration reads and the parity of its mbarrier phase.
pub(super) fn rotate(body: &mut Body, lp: Op, chain: ChainInFlight, slot: Value, phase: Value) {
    let region = body.op(lp).regions[0];
    let first = chain.first;
    let scores = body.op(first).results[0];
    let [q, k_tile, zero] = body.op(first).operands[..] else { return };
    // Q from outside the loop, K read in place from the iteration's slot, a zero accumulator.
    let outside = |v: Value| body.def_op(v).is_none_or(|d| body.ancestor_in(region, d).is_none());
    let Some(load) = body.def_op(k_tile).filter(|&d| body.opcode(d) == Opcode::LocalLoad) else {
        return;
    };
    let ring = body.op(load).operands[0];
    let zero_constant = body.def_op(zero).is_some_and(|d| body.opcode(d) == Opcode::Constant);
    if !outside(q) || !outside(ring) || body.op(load).operands[1] != slot || !zero_constant {
        return;
    }
    let tma = body.def_op(ring).is_some_and(|alloc| body.op(alloc).attrs.bool("tma") == Some(true));
    if !tma {
        return;
    }
    let zero_attrs = body.op(body.def_op(zero).expect("a constant")).attrs.clone();
    // The wait keep_chain_in_flight put right after the first dot: (scores, accumulator).
    let ops = body.blocks[region].ops.clone();
    let Some(wait) = ops.iter().copied().find(|&op| {
        body.opcode(op) == Opcode::WarpGroupDotWait && body.op(op).operands.first() == Some(&scores)
    }) else {
        return;
    };
    let [_, acc_arg] = body.op(wait).operands[..] else { return };
    let [waited_scores, waited_acc] = body.op(wait).results[..] else { return };
    // The next scores accumulate, in flight, in the registers the loop carries this iteration's
    // scores in (the nvptx backend's rule for an asynchronous dot whose result is yielded): this
    // iteration's scores must be read before the next ones are issued, right before the second
    // dot, and not after it (a fuzz finding: the row max of `qk` computed again after `P V`).
    let second_at = body.position(region, chain.second);
    let read_late = ops[second_at..]
        .iter()
        .any(|&op| body.walk_op(op).iter().any(|&o| body.op(o).operands.contains(&waited_scores)));
    if read_late {
        return;
    }
    let span = body.span(first);
    let attrs = body.op(first).attrs.clone();
    let scores_ty = body.ty(scores).clone();
    let tile_ty = body.ty(k_tile).clone();
    let [iv, ..] = body.blocks[region].args[..] else { return };
    let (lb, ub, step) = (body.op(lp).operands[0], body.op(lp).operands[1], body.op(lp).operands[2]);
    let yield_op = *ops.last().expect("a loop body ends in scf.yield");
    let next_of = |body: &Body, arg: Value| {
        let index = body.blocks[region].args.iter().position(|&a| a == arg).expect("a body argument");
        body.op(yield_op).operands[index - 1]
    };
    let next_slot = next_of(body, slot);
    let next_phase = next_of(body, phase);
    // The first iteration's slot and phase: the loop's initial values (the first slot of a
    // fresh ring, or where a persistent program's previous tile left the ring).
    let init_of = |body: &Body, arg: Value| {
        let index = body.blocks[region].args.iter().position(|&a| a == arg).expect("a body argument");
        body.op(lp).operands[2 + index]
    };
    let (slot0, phase0) = (init_of(body, slot), init_of(body, phase));

    // Before the loop: the first iteration's scores, waited for.
    let parent = body.op(lp).parent.expect("the loop is in a block");
    let index = body.position(parent, lp);
    let mut b = Builder::at(body, parent, index);
    b.span = span;
    let runs = b.cmpi("slt", lb, ub);
    b.op(Opcode::WaitBarrier, vec![ring, slot0, phase0, runs], &[], Attrs::new());
    let k0 = b.value(Opcode::LocalLoad, vec![ring, slot0], tile_ty.clone(), Attrs::new());
    let zero0 = b.value(Opcode::Constant, vec![], scores_ty.clone(), zero_attrs);
    let issued = b.value(Opcode::WarpGroupDot, vec![q, k0, zero0, runs], scores_ty.clone(), attrs.clone());
    let drained = Attrs::new().with("pendings", Attr::Int(0));
    let scores0 = b.value(Opcode::WarpGroupDotWait, vec![issued], scores_ty.clone(), drained);
    let (carried, _) = body.add_iter_arg(lp, scores0, scores_ty.clone());

    // The scores are complete when the iteration starts (see below); the accumulator is waited
    // for where it is first read.
    body.detach_op(wait);
    body.detach_op(first);
    let acc_ty = body.ty(acc_arg).clone();
    let first_read = body.blocks[region]
        .ops
        .iter()
        .position(|&op| body.walk_op(op).iter().any(|&o| body.op(o).operands.contains(&waited_acc)))
        .unwrap_or_else(|| body.position(region, chain.second));
    let mut b = Builder::at(body, region, first_read);
    b.span = span;
    let none_left = Attrs::new().with("pendings", Attr::Int(0));
    let acc = b.value(Opcode::WarpGroupDotWait, vec![acc_arg], acc_ty, none_left);
    body.replace_uses(region, &HashMap::from([(waited_scores, carried), (waited_acc, acc)]));

    // Right before the second dot: the next iteration's scores, from its slot once it landed.
    let at = body.position(region, chain.second);
    let mut b = Builder::at(body, region, at);
    b.span = span;
    let following = b.value(Opcode::AddI, vec![iv, step], b.ty(iv), Attrs::new());
    let live = b.cmpi("slt", following, ub);
    b.op(Opcode::WaitBarrier, vec![ring, next_slot, next_phase, live], &[], Attrs::new());
    let k_next = b.value(Opcode::LocalLoad, vec![ring, next_slot], tile_ty, Attrs::new());
    // The body's own zero (defined before the first dot's place) serves the next scores too.
    let scores_next = b.value(Opcode::WarpGroupDot, vec![q, k_next, zero, live], scores_ty.clone(), attrs);
    // At the end of the iteration, once the second dot is issued: the scores are done, the
    // second dot may run on.
    let at = body.position(region, yield_op);
    let mut b = Builder::at(body, region, at);
    b.span = span;
    let one_left = Attrs::new().with("pendings", Attr::Int(1));
    let scores_done = b.value(Opcode::WarpGroupDotWait, vec![scores_next], scores_ty, one_left);
    body.ops[yield_op].operands.push(scores_done);
}
