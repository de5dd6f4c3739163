//! Warp specialization of a pipelined loop (`tl.range(..., warp_specialize=True)`, Hopper): the
//! TMA rings of the loop are filled by a producer warpgroup of their own while the program's
//! warps (the consumers) run the loop's dots and everything else, as Triton's Hopper
//! `nvgpu-warp-specialization` and FlashAttention-3 do.
//!
//! Without it, the warps that compute also issue the copies of later iterations and every
//! iteration ends at a block-wide barrier (no warpgroup may move on before every other is done
//! with the slot the next copy overwrites). With it, the loop becomes a `ttng.warp_specialize`
//! whose two regions run side by side:
//!
//! ```text
//! %rings = ttg.local_alloc {tma}...        // "full": one mbarrier per slot, TMA completes it
//! %empty = ttng.init_barriers {count = slots, arrivals = num_warps}
//! %r = ttng.warp_specialize {producer_warps = 4, ...} {
//!     scf.for (.., slot, phase) {          // the consumers: the loop, minus its loads
//!         ttng.wait_barrier %ring, slot, phase          // the tiles landed
//!         .. local_load, the dots (in flight as without specialization) ..
//!         ttng.arrive_barrier %empty, slot - 1, k > lb   // after the first dot wait: the
//!     }                                                  // previous iteration's slot is free
//! } producer {
//!     scf.for (.., slot, phase) {          // one warpgroup: the copies, as far ahead as the ring
//!         ttng.wait_barrier %empty, slot, phase ^ 1      // the consumers freed the slot
//!         ttng.async_tma_copy_global_to_local %ring, slot, true, desc, offsets..
//!     }
//! }
//! ```
//!
//! The producer waits on the slot's "empty" barrier with the flipped parity: in the first round
//! the phase before the barrier's first one counts as complete, so it fills every slot at once.
//! Each consumer warp arrives once per iteration, on the slot the previous iteration's dots read,
//! right after the body's first `ttng.warp_group_dot_wait` (every dot of the previous iteration
//! is done by then, whether the wait keeps one in flight or none); with synchronous dots, on its
//! own slot after its last dot. The producer's loop carries what the copies' offsets read (the
//! induction variable, the carried values the pipeliner found recomputable), cloned from the
//! loop's body; it reads only scalars from outside.
//!
//! Loads before the partition whose values only the consumers read (attention's `Q`) move into
//! the consumers' region (`sink_loads_into_consumers`): the producer then fills the rings while
//! they are loaded (H100, the corpus' attention through descriptors, d128, 2048 keys: 478.5 ->
//! 484.3 TFLOP/s). There a tile that the dots read only as their A operand is copied into a
//! shared-memory tile of its own and read in place ([`super::stage_a_operands`]).
//!
//! The producer warpgroup gives its registers to the consumers (`setmaxnreg`): it keeps
//! [`PRODUCER_REGISTERS`], and the consumers take what the register file leaves, at most
//! [`MAX_CONSUMER_REGISTERS`], as Triton's `allocate_warp_groups` splits it.
//!
//! Applies to loops of sm_90a programs of whole warpgroups whose pipelined loads all stream
//! through TMA rings, where the consumers and the producer fit one CTA and the register split
//! is one `setmaxnreg` can make (at most 28 consumer warps); other loops pipeline as without
//! the hint.

use std::collections::{HashMap, HashSet};

use super::persistent::Specialized;
use super::{
    advance_slot, alloc_rings, clone_with, copy_into_ring, keep_chain_in_flight, keep_dots_in_flight,
    read_in_place, ring_step, InFlight, LoopParts, RingPlan, RingTile,
};
use crate::analysis::trip_count::trip_count;
use crate::ir::verifier::register_split_is_legal;
use crate::ir::{Attr, Attrs, Block, Body, Builder, DType, Effect, Op, Opcode, Type, Value};
use crate::passes::uses::UseCounts;
use crate::target::Target;

/// Warps of the producer: one warpgroup (`setmaxnreg` applies to whole warpgroups).
pub const PRODUCER_WARPS: u32 = 4;

/// Registers per thread the producer keeps: its loop only counts slots and issues copies.
pub const PRODUCER_REGISTERS: u32 = 40;

/// The most registers per thread the consumers ask for.
pub const MAX_CONSUMER_REGISTERS: u32 = 240;

/// Warps of one CTA at most (1,024 threads).
const MAX_WARPS_PER_CTA: u32 = 32;

/// 32-bit registers of one SM's register file (sm_90).
const REGISTER_FILE: u32 = 64 * 1024;

/// Shared memory the backend keeps for the hand-over between the warp groups (the state word
/// and the producer's captured scalars) below the rings.
pub const HANDOVER_BYTES: u32 = 1024;

/// Whether loop `lp`, pipelined through `tiles` as `plan` says, is warp-specialized: when the
/// loop asks for it, or, unasked (and not refused with `warp_specialize=False`), for attention's
/// chain of dots when shared memory holds one program per SM anyway and leaves room for the
/// hand-over, unless the loop is known to run no more iterations than the rings have slots (the
/// prologue then issues every copy, and a producer has nothing to run ahead of: causal
/// attention's diagonal block). Measured on an H100 (flash_attn_desc, d128, 8 warps, 2048 keys):
/// 412 TFLOP/s against 398 without, 276 either way causal; causal with the diagonal block's two
/// iterations left to the consumers, 296.
pub(super) fn applies(body: &Body, lp: Op, tiles: &[RingTile], plan: &RingPlan, target: &Target) -> bool {
    let hint = body.op(lp).attrs.bool("tt.warp_specialize");
    let shared = target.shared_memory_bytes as u64;
    let alone_on_the_sm = plan.shared_bytes + 1024 > shared / 2;
    let fits = plan.shared_bytes + HANDOVER_BYTES as u64 <= shared;
    let few_iterations = trip_count(body, lp).is_some_and(|count| count <= plan.slots);
    let chosen = hint.is_none()
        && matches!(plan.in_flight, InFlight::Chain(_))
        && alone_on_the_sm
        && fits
        && !few_iterations;
    (hint == Some(true) || chosen)
        && target.compute_capability.is_some_and(|cc| cc >= 90)
        && target.num_warps.is_multiple_of(4)
        && split_fits(target.num_warps)
        && tiles.iter().all(|tile| tile.tma.is_some())
}

/// Whether `num_warps` consumer warps and the producer warpgroup fit one CTA (at most 1,024
/// threads) with a register split that `setmaxnreg` can make (the verifier's rule, which the
/// backend relies on): with many warps the register file leaves the consumers no more than
/// [`PRODUCER_REGISTERS`] (from 40 warps on), so such a loop stays unspecialized, hinted or not.
fn split_fits(num_warps: u32) -> bool {
    num_warps > 0
        && num_warps + PRODUCER_WARPS <= MAX_WARPS_PER_CTA
        && register_split_is_legal(
            PRODUCER_WARPS as i64,
            PRODUCER_REGISTERS as i64,
            consumer_registers(num_warps) as i64,
        )
}

/// Per-thread registers of the consumer warps: what the register file leaves once the producer
/// has its share, in multiples of 8, at most [`MAX_CONSUMER_REGISTERS`].
pub fn consumer_registers(num_warps: u32) -> u32 {
    let left = (REGISTER_FILE - 32 * PRODUCER_WARPS * PRODUCER_REGISTERS) / (32 * num_warps);
    (left / 8 * 8).min(MAX_CONSUMER_REGISTERS)
}

/// Rewrites loop `lp` into a `ttng.warp_specialize` (see the module docs): `loads` become TMA
/// copies of the producer's loop into the rings of `tiles`; `carried` are the carried values
/// their offsets read. Returns what the persistent form ([`super::persistent`]) needs.
pub(super) fn rewrite(
    body: &mut Body,
    lp: Op,
    loads: &[Op],
    tiles: &[RingTile],
    carried: &[usize],
    plan: &RingPlan,
    target: &Target,
) -> Specialized {
    let LoopParts { region, in_body, args, lb, ub, step, inits, yields, span, parent, .. } =
        LoopParts::of(body, lp);
    let i32_ty = Type::scalar(DType::I32);

    // Before the loop: the rings with their "full" barriers, and the "empty" barriers.
    let index = body.position(parent, lp);
    let mut b = Builder::at(body, parent, index);
    b.span = span;
    let rings = alloc_rings(&mut b, tiles, plan);
    let empty_attrs = Attrs::new()
        .with("count", Attr::Int(plan.slots))
        .with("arrivals", Attr::Int(target.num_warps as i64));
    let empty = b.value(Opcode::InitBarriers, vec![], i32_ty.clone(), empty_attrs);
    let zero = b.const_int(DType::I32, 0);
    let one = b.const_int(DType::I32, 1);
    // Where both loops start in the ring: constants of their own, which a persistent kernel
    // replaces by where the previous program left the ring.
    let first_slot = b.const_int(DType::I32, 0);
    let first_phase = b.const_int(DType::I32, 0);

    // The loop moves into the default region; its results become the partition's.
    let index = body.position(parent, lp);
    let (default, producer) = (body.new_block(&[]), body.new_block(&[]));
    let result_types: Vec<Type> = body.op(lp).results.iter().map(|&r| body.ty(r).clone()).collect();
    let attrs = Attrs::new()
        .with("producer_warps", Attr::Int(PRODUCER_WARPS as i64))
        .with("producer_registers", Attr::Int(PRODUCER_REGISTERS as i64))
        .with("consumer_registers", Attr::Int(consumer_registers(target.num_warps) as i64));
    let ws =
        body.create_op(Opcode::WarpSpecialize, vec![], &result_types, attrs, vec![default, producer], span);
    body.detach_op(lp);
    body.insert_op(parent, index, ws);
    let outside: HashMap<Value, Value> =
        body.op(lp).results.iter().copied().zip(body.op(ws).results.clone()).collect();
    body.replace_uses(parent, &outside);
    body.append_op(default, lp);
    let lp_results = body.op(lp).results.clone();
    let mut b = Builder::at_end(body, default);
    b.span = span;
    b.op(Opcode::Yield, lp_results, &[], Attrs::new());

    // The consumers' loop: wait for the slot's tiles, read them in place.
    let (slot, _) = body.add_iter_arg(lp, first_slot, i32_ty.clone());
    let (phase, _) = body.add_iter_arg(lp, first_phase, i32_ty.clone());
    let mut b = Builder::at(body, region, 0);
    b.span = span;
    for &ring in &rings {
        b.op(Opcode::WaitBarrier, vec![ring, slot, phase], &[], Attrs::new());
    }
    let map = read_in_place(&mut b, tiles, &rings, slot);
    let (next_slot, next_phase) = advance_slot(&mut b, slot, Some(phase), [zero, one], plan.slots);
    body.replace_uses(region, &map);
    let yield_op = *body.blocks[region].ops.last().expect("a loop body ends in scf.yield");
    body.ops[yield_op].operands.push(next_slot);
    body.ops[yield_op].operands.extend(next_phase);
    match plan.in_flight {
        InFlight::EachDot => keep_dots_in_flight(body, lp),
        InFlight::Chain(chain) => {
            keep_chain_in_flight(body, lp, chain);
            super::rotate_chain::rotate(body, lp, chain, slot, phase);
        }
        InFlight::Nothing => {}
    }
    let holds_last_slot = release_slots(body, lp, empty, slot, plan.slots);

    // The producer's loop: the copies, each into a slot the consumers have freed.
    let mut loop_inits = vec![lb, ub, step];
    loop_inits.extend(carried.iter().map(|&k| inits[k - 1]));
    loop_inits.extend([first_slot, first_phase]);
    let mut arg_types = vec![body.ty(args[0]).clone()];
    arg_types.extend(carried.iter().map(|&k| body.ty(args[k]).clone()));
    arg_types.extend([i32_ty.clone(), i32_ty.clone()]);
    let copies = body.new_block(&arg_types);
    let mut b = Builder::at_end(body, producer);
    b.span = span;
    b.op_with_regions(Opcode::For, loop_inits, &arg_types[1..], Attrs::new(), vec![copies]);
    let copy_args = body.blocks[copies].args.clone();
    let [.., slot, phase] = copy_args[..] else { unreachable!("the producer carries slot and phase") };
    let mut at: HashMap<Value, Value> = HashMap::from([(args[0], copy_args[0])]);
    at.extend(carried.iter().zip(&copy_args[1..]).map(|(&k, &arg)| (args[k], arg)));
    let mut b = Builder::at_end(body, copies);
    b.span = span;
    let freed = b.value(Opcode::XOrI, vec![phase, one], i32_ty.clone(), Attrs::new());
    b.op(Opcode::WaitBarrier, vec![empty, slot, freed], &[], Attrs::new());
    let always = b.const_int(DType::I1, 1);
    for ((&load, tile), &ring) in loads.iter().zip(tiles).zip(&rings) {
        copy_into_ring(&mut b, &in_body, load, tile, ring, slot, always, &mut at);
    }
    let mut next: Vec<Value> =
        carried.iter().map(|&k| clone_with(&mut b, &in_body, yields[k - 1], &mut at)).collect();
    let (next_slot, next_phase) = advance_slot(&mut b, slot, Some(phase), [zero, one], plan.slots);
    next.push(next_slot);
    next.extend(next_phase);
    b.op(Opcode::Yield, next, &[], Attrs::new());

    sink_loads_into_consumers(body, parent, ws);
    let at = body.position(parent, ws);
    let staged = super::stage_a_operands::stage_a_operands(body, parent, at, default);

    // After the partition: every consumer warp is done with the rings (the last dots were
    // waited for in each warpgroup) before their memory is reused; latest first.
    let index = body.position(parent, ws) + 1;
    let mut b = Builder::at(body, parent, index);
    b.span = span;
    b.op(Opcode::Barrier, vec![], &[], Attrs::new());
    for staged in staged.iter().rev() {
        b.op(Opcode::LocalDealloc, vec![staged.tile], &[], Attrs::new());
    }
    b.op(Opcode::LocalDealloc, vec![empty], &[], Attrs::new());
    for &ring in rings.iter().rev() {
        b.op(Opcode::LocalDealloc, vec![ring], &[], Attrs::new());
    }
    Specialized {
        ws,
        consumer_loop: lp,
        first_slot,
        first_phase,
        empty,
        slots: plan.slots,
        holds_last_slot,
        staged,
    }
}

/// Moves the loads before `ws` (in block `parent`) whose values only the consumers read
/// (attention's `Q`, loaded once before the loop), with the ops that derive from them for the
/// consumers alone (its layout conversion), to the start of the consumers' region: the producer
/// starts copying the loop's first tiles at the partition, so the consumers' load then overlaps
/// those copies instead of delaying them by a trip to memory. A load moves past the rings'
/// allocation and barrier initialization (shared memory), never past another write.
fn sink_loads_into_consumers(body: &mut Body, parent: Block, ws: Op) {
    let default = body.op(ws).regions[0];
    let total = UseCounts::compute(body, parent);
    let inside = UseCounts::compute(body, default);
    let ops = body.blocks[parent].ops.clone();
    let at = body.position(parent, ws);
    // Backwards from the partition: the ops whose every use is inside the region or by an op
    // already chosen, and that may move past what lies between.
    let mut movable: Vec<Op> = Vec::new();
    let mut used_by_movable: HashMap<Value, u32> = HashMap::new();
    for &op in ops[..at].iter().rev() {
        let data = body.op(op);
        let effect = data.opcode.info().effect;
        if effect == Effect::Write {
            if matches!(data.opcode, Opcode::LocalAlloc | Opcode::InitBarriers) {
                continue;
            }
            break;
        }
        let only_consumers = data.results.iter().all(|&r| {
            let inner = inside.get(r) + used_by_movable.get(&r).copied().unwrap_or(0);
            total.get(r) > 0 && total.get(r) == inner
        });
        if !data.regions.is_empty() || data.results.is_empty() || !only_consumers {
            continue;
        }
        movable.push(op);
        for &operand in &data.operands {
            *used_by_movable.entry(operand).or_default() += 1;
        }
    }
    movable.reverse();
    // Only the loads and what derives from them move (constants and scalars stay).
    let mut derived: HashSet<Value> = HashSet::new();
    let mut moving = Vec::new();
    for op in movable {
        let data = body.op(op);
        if data.opcode.info().effect == Effect::Read || data.operands.iter().any(|v| derived.contains(v)) {
            derived.extend(data.results.iter().copied());
            moving.push(op);
        }
    }
    for (index, &op) in moving.iter().enumerate() {
        body.detach_op(op);
        body.insert_op(default, index, op);
    }
}

/// Each consumer warp's arrival on the "empty" barrier of a slot its dots no longer read: after
/// the body's first warpgroup-dot wait that leaves none of the previous iteration's dots in
/// flight (one with `pendings = 0`, else the first: a GEMM's dot waits for its predecessor), the
/// previous iteration's slot (none before the first iteration); with no wait (synchronous dots),
/// this iteration's slot after its last dot. Returns whether the loop leaves its last slot held
/// (released one iteration late, so never by the loop itself).
pub(super) fn release_slots(body: &mut Body, lp: Op, empty: Value, slot: Value, slots: i64) -> bool {
    let region = body.op(lp).regions[0];
    let ops = body.blocks[region].ops.clone();
    let is_wait = |op: Op| body.opcode(op) == Opcode::WarpGroupDotWait;
    let drains = |op: Op| is_wait(op) && body.op(op).attrs.int("pendings") == Some(0);
    let first_wait = ops.iter().position(|&op| drains(op)).or_else(|| ops.iter().position(|&op| is_wait(op)));
    let span = body.span(lp);
    let iv = body.blocks[region].args[0];
    let lb = body.op(lp).operands[0];
    match first_wait {
        Some(at) => {
            let mut b = Builder::at(body, region, at + 1);
            b.span = span;
            // (slot + slots - 1) % slots, and no arrival in the first iteration.
            let count = b.const_int(DType::I32, slots);
            let back = ring_step(&mut b, slot, slots - 1, count);
            let later = b.cmpi("sgt", iv, lb);
            b.op(Opcode::ArriveBarrier, vec![empty, back, later], &[], Attrs::new());
            true
        }
        None => {
            let last_dot =
                ops.iter().rposition(|&op| body.opcode(op).is_dot()).expect("a pipelined loop has a dot");
            let mut b = Builder::at(body, region, last_dot + 1);
            b.span = span;
            let always = b.const_int(DType::I1, 1);
            b.op(Opcode::ArriveBarrier, vec![empty, slot, always], &[], Attrs::new());
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whole warpgroups up to 28 warps split the register file as setmaxnreg allows; 32 warps and
    /// the producer pass 1,024 threads, and 64 warps would leave the consumers 24 registers,
    /// fewer than the producer's 40 (a fuzz finding: the op then failed to verify).
    #[test]
    fn the_split_fits_whole_warpgroups_up_to_28_warps() {
        for (num_warps, fits) in [(4, true), (8, true), (16, true), (28, true), (32, false), (64, false)] {
            assert_eq!(split_fits(num_warps), fits, "{num_warps} warps");
        }
        assert_eq!(consumer_registers(8), 232);
        assert!(!register_split_is_legal(4, 40, consumer_registers(64) as i64));
    }
}
