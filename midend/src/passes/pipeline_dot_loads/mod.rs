//! Pipeline the loads that feed `tt.dot`: issue them `num_stages - 1` iterations ahead into
//! shared-memory rings (NVIDIA sm_80+, below), or one iteration ahead into registers.
//!
//! A K loop `for k: a = load(pa(k)); b = load(pb(k)); acc = dot(a, b, acc)` waits for each tile
//! from global memory before the tensor cores can start on it: the whole load latency is exposed
//! once per iteration. Triton's pipeliner (num_stages >= 2) issues the loads of later iterations
//! while the current one computes, through asynchronous copies into a ring of shared buffers.
//! Where that does not apply, this pass does the first step of the schedule with registers: the
//! loads of iteration `k + 1` are issued in iteration `k`, right before the dot, and carried to
//! the next iteration as extra iter args. A prologue before the loop loads iteration `lb`.
//!
//! ```text
//! a0 = load(pa(lb), mask & lb < ub)
//! for k (.., a = a0):
//!     a_next = load(pa(k + step), mask(k + step) & k + step < ub)
//!     acc = dot(a, b, acc)
//!     yield .., a_next
//! ```
//!
//! The address and mask computations of a pipelined load are cloned with the induction variable
//! advanced by one step and each carried value replaced by the value the iteration yields for it
//! (cloned before the dot as well). The extra `< ub` term keeps the loads past the last iteration
//! off memory. Eligible loads: top-level ops of the loop body whose results feed only dot A/B
//! operands (directly or through layout conversions), and whose address and mask come from pure,
//! region-free ops of the body, the induction variable, values from outside the loop, and carried
//! values whose next value is computed the same way (no loads, no dots). Loop bodies holding
//! control flow (nested loops and branches) keep their loads where they are; reductions and
//! scans, whose regions only combine scalars, are fine (attention's row max and sum).
//!
//! # Through shared memory (NVIDIA sm_80+)
//!
//! Where every pipelined load feeds a tensor-core dot directly with 16-bit elements (or 8-bit
//! floats stored K-major for a warpgroup dot), or an FMA dot with f32 elements in IEEE
//! precision (the backend reads those rings in place), and `other` is absent or zero, the
//! copies go to shared memory instead of registers, as Triton's pipeliner does: each operand
//! gets a ring of `num_stages` staging tiles (row-major, or column-major for a B tile whose
//! layout runs along K: `column_major` on the ring) (`ttg.local_alloc`; fewer, down to two, when
//! shared memory is short), and the copies run `stages - 1` iterations ahead. The prologue
//! starts iterations `0 .. stages - 1`, one commit group each. Iteration `k` waits until
//! its own group has landed (`ttg.async_wait {num = stages - 2}`) and passes a barrier, which also
//! tells every warp that the slot iteration `k - 1` read is free; it then copies iteration
//! `k + stages - 1` into that slot (`ttg.async_copy_global_to_local`, zero-filling masked-off
//! elements, then `ttg.async_commit_group`) and gives the dot its tile in place
//! (`ttg.local_load`). No operand registers stay live across the dot, so the register budget
//! does not apply; the rings must leave [`SCRATCH_RESERVE`] bytes of shared memory to the other
//! ops of the loop (only what its live conversions need when its dots are warpgroup dots or FMA
//! dots reading both operands from rings: those stage nothing).
//!
//! # Hopper: rings for warpgroup dots
//!
//! When the dots reading the rings are warpgroup dots (`ttng.warp_group_dot`, MMA v3), each ring
//! tile is stored as `wgmma` reads it, a `#ttg.nvmma_shared` tile (`swizzle_bytes` on the ring,
//! no padding), and the loop keeps one dot in flight, as Triton's `pipelineWgmma` does: a dot
//! whose accumulator is carried by the loop (and used by nothing else in it) becomes
//! `is_async`, followed by `ttng.warp_group_dot_wait {pendings = 1}` (the previous iteration's
//! dot has finished), and the loop's result passes a `pendings = 0` wait. Since the dot of
//! iteration `k - 1` may still read its slot while iteration `k` runs, the ring has one slot more
//! than `num_stages` and iteration `k` copies into the slot iteration `k - 2` read (finished in
//! every warpgroup: each passed its wait before this iteration's barrier). No proxy fence stands
//! between the copies and the dots, as in Triton (whose fence insertion fences only stores from
//! registers, `ttg.local_store` and `ttg.local_alloc` of a tensor, before a warpgroup dot): the
//! `cp.async` data is in shared memory once `cp.async.wait_group` returns, and the barrier orders
//! every thread's copies before any warpgroup's `wgmma`. The fence is a `MEMBAR.ALL.CTA` in each
//! thread of every iteration, and leaving it out made the 4096³ GEMMs 1.5 to 4% faster on the
//! H100 (fp16 0.2201 → 0.2173 ms, bf16 0.2139 → 0.2077, the 128x128 ptrcast GEMM 0.2732 → 0.2618).
//!
//! That extra slot is dropped when it would cost occupancy: if `num_stages` slots let more
//! programs share an SM's shared memory than `num_stages + 1` (a 128x128x64 bf16 tile: 96 KiB
//! against 128 KiB, two programs against one), the ring keeps `num_stages` slots, as Triton's
//! does, and the copies move after the dots and their waits, behind a second barrier: by then
//! every warpgroup's dot of iteration `k - 1` is done, and iteration `k` copies into its slot.
//!
//! # Hopper: TMA rings for descriptor loads
//!
//! A `tt.descriptor_load` (its descriptor made outside the loop) whose tile feeds warpgroup dots
//! streams through a ring as well, filled by TMA instead of `cp.async`: the ring holds the block
//! as the tensor stores it, swizzled, with one mbarrier per slot (`tma` on the ring), and the
//! descriptor's tensor map takes the ring's swizzle (`swizzle_bytes` on the
//! `tt.make_tensor_descriptor`), so every use of the descriptor must be such a load, in this
//! loop or another (causal attention reads K and V in two loops): every loop is planned before
//! any is rewritten, and a loop whose descriptor has a load left without a ring keeps its loads
//! synchronous.
//! A copy (`ttng.async_tma_copy_global_to_local`) is predicated on its iteration running: one past
//! the end is never issued, so nothing is left to drain. Instead of waiting for commit groups,
//! iteration `k` waits on its slot's mbarrier (`ttng.wait_barrier`) for the phase parity the loop
//! carries, flipped each time the slot index wraps. TMA writes through the async proxy, as wgmma
//! reads, so these rings need no proxy fence. Descriptor loads that get no ring stay synchronous
//! TMA loads; they are never pipelined in registers.
//!
//! # Hopper: warpgroups decoupled by mbarriers
//!
//! Attention's chain of warpgroup dots in a program of two or more warpgroups, its tiles copied
//! by `cp.async`, drops the block-wide barrier of each iteration: the warpgroups take turns on
//! the tensor cores there (pingpong-warpgroups, FlashAttention-3's schedule), and a barrier per
//! iteration would realign them every time. The slots are handed over through two arrays of
//! mbarriers instead ([`Handover`], `ttng.init_barriers`):
//!
//! ```text
//! prologue:  copies of iteration j into slot j; ttng.async_copy_arrive %full, j, live(j)
//! for k (.., slot, phase):
//!     ttng.wait_barrier %full, slot, phase         // every thread's copies of k landed
//!     ttng.wait_barrier %empty, write, freed       // every warp is done with write's last fill
//!     copies of k + ahead into write; ttng.async_copy_arrive %full, write, live(k + ahead)
//!     .. the dots; after the first wait: ttng.arrive_barrier %empty, slot - 1, k > lb ..
//! ```
//!
//! Each thread's copies arrive on the slot's "full" barrier when they land
//! (`cp.async.mbarrier.arrive.noinc`, one arrival per thread and fill); each warp arrives on its
//! "empty" barrier once its dots no longer read it, as the consumers of a warp-specialized loop
//! do. A warpgroup may then run up to an iteration ahead of the other. Copies past the end of the
//! loop arrive on nothing, so no arrival is pending when the barriers are released. Measured on
//! an H100 (the corpus' flash attention, d128, 8 warps, 2048 keys, same command): 435 → 473
//! TFLOP/s (Triton 447), causal 348 either way; the same hand-over for a GEMM's loop (128x256
//! tiles, 8 warps) was slower (fp16 704 → 693), so GEMMs keep the barrier. Tried and dropped:
//! issuing V's copies after the `QK^T` dot (its wait and the "empty" arrival) instead of beside
//! K's, so that an iteration's `cp.async`s leave in two bursts (H100, same command, two rounds:
//! d128 full 463.6 / 461.5 → 459.8 / 458.2 TFLOP/s, d128 causal 384.7 → 371.5, d64 unchanged).
//!
//! # Hopper: warp specialization
//!
//! A loop marked `tl.range(..., warp_specialize=True)` whose loads all stream through TMA rings
//! gets its copies from a producer warpgroup of its own instead ([`warp_specialize`]): no
//! prologue, no barrier per iteration, the slots handed back through mbarriers. Attention's
//! chain of dots gets it unasked where shared memory holds one program per SM anyway (unless
//! the loop says `warp_specialize=False`).
//!
//! # Depth per loop
//!
//! The depth is the loop's own `tt.num_stages` (`tl.range(..., num_stages=N)`) where it has one,
//! else the kernel's `num_stages`; under 2 the loop is left alone. A target whose backend loads
//! dot operands whole ([`Target::loads_dot_operands_whole`]: Vulkan devices with workgroup-scope
//! matrices, whose driver stages them) has no loop pipelined whose dots it may load so (f16 or
//! bf16 operands into f32, and tf32 ones where [`Target::loads_tf32_operands_whole`]); its other
//! loops (fp32 FMA dots) are.
//!
//! Expects: TTGIR after the layout passes (the loads keep the layouts they were given; clones
//! share them). Guarantees: the same values, each load's memory touched in the same iterations
//! (masked-off copies touch none); in the register form, one more set of operand registers live
//! across the dot.

use std::collections::{HashMap, HashSet};

use crate::ir::{Attr, Attrs, Block, Body, Builder, DType, Effect, Module, Op, Opcode, Type, Value};
use crate::layout::{Encoding, NvmmaShared};
use crate::passes::uses::users_in;
use crate::target::Target;

pub mod persistent;
mod rotate_chain;
pub mod stage_a_operands;
pub mod warp_specialize;

/// The most 32-bit registers per thread that the accumulators, the dot operands the loop holds
/// otherwise ([`resident_operands`]) and two copies of the pipelined operands may take. Past it
/// the extra copy spills: measured on an H200, a 128x256x64 fp16 tile over 8 warps (128
/// accumulator and 2 x 48 operand registers) ran at 194 TFLOP/s pipelined against 240 without,
/// while a 128x128x32 tf32 tile (64 + 2 x 32) went from 84 to 101.
const REGISTER_BUDGET: u64 = 160;

/// Whether loop `lp`'s body has a dot that the backend of a [`Target::loads_dot_operands_whole`]
/// target may load whole: f16 or bf16 operands into an f32 accumulator, or f32 ones at tf32
/// precision where `tf32` ([`Target::loads_tf32_operands_whole`]).
fn has_whole_operand_dot(body: &Body, lp: Op, tf32: bool) -> bool {
    let region = body.op(lp).regions[0];
    body.walk(region).into_iter().any(|op| {
        let data = body.op(op);
        let takes = |v: Value| match body.ty(v).dtype() {
            DType::F16 | DType::BF16 => true,
            DType::F32 => tf32 && crate::codegen::dot::is_tf32(body, op),
            _ => false,
        };
        body.opcode(op).is_dot()
            && takes(data.operands[0])
            && takes(data.operands[1])
            && body.ty(data.results[0]).dtype() == DType::F32
    })
}

/// Shared memory the rings leave to the other ops of a pipelined loop (dot staging of operands
/// in registers, reductions, layout conversions).
const SCRATCH_RESERVE: u64 = 64 * 1024;

/// Pipelines the dot operand loads of every `scf.for` whose depth is at least 2: the loop's
/// own `tt.num_stages` (`tl.range(..., num_stages=N)`), else `target.num_stages`.
pub fn run(module: &mut Module, target: &Target) {
    for function in &mut module.functions {
        let body = &mut function.body;
        let loops: Vec<Op> =
            body.walk(function.entry).into_iter().filter(|&op| body.opcode(op) == Opcode::For).collect();
        // Every loop is planned before any is rewritten: a descriptor's loads may sit in several
        // loops (causal attention's two), and its tensor map takes the swizzle of TMA rings only
        // if every one of them gets one.
        let mut plans: Vec<(Op, Target, LoopPlan)> = loops
            .into_iter()
            .filter_map(|lp| {
                if target.loads_dot_operands_whole
                    && has_whole_operand_dot(body, lp, target.loads_tf32_operands_whole)
                {
                    return None;
                }
                let stages = loop_stages(body, lp, target);
                // A warp-specialized loop leaves shared memory to the warp groups' hand-over.
                let handover = if body.op(lp).attrs.bool("tt.warp_specialize") == Some(true) {
                    warp_specialize::HANDOVER_BYTES
                } else {
                    0
                };
                let shared_memory_bytes = target.shared_memory_bytes - handover;
                let target = Target { num_stages: stages, shared_memory_bytes, ..target.clone() };
                let plan = (stages >= 2).then(|| plan_loop(body, function.entry, lp, &target)).flatten()?;
                Some((lp, target, plan))
            })
            .collect();
        let ringed: Vec<Value> = plans
            .iter()
            .filter_map(|(_, _, plan)| plan.rings.as_ref())
            .flat_map(|(tiles, _)| tiles.iter().filter_map(|t| t.tma))
            .collect();
        let uses = users_in(body, &body.walk(function.entry));
        let fully_ringed = |desc: Value| {
            let loads = uses.get(&desc).map_or(0, |u| u.len());
            ringed.iter().filter(|&&d| d == desc).count() == loads
        };
        for (_, _, plan) in &mut plans {
            let partial = plan
                .rings
                .as_ref()
                .is_some_and(|(tiles, _)| tiles.iter().filter_map(|t| t.tma).any(|desc| !fully_ringed(desc)));
            if partial {
                plan.rings = None;
            }
        }
        let mut specialized = Vec::new();
        for (lp, target, plan) in plans {
            specialized.extend(apply(body, lp, plan, &target));
        }
        // One partition in the kernel's body: the CTAs walk the programs, the producer ahead.
        if let [only] = &specialized[..] {
            persistent::make_persistent(function, only, target);
        }
    }
}

/// The `scf.for` whose body holds `op` directly, when it streams its loads (two stages or more).
pub(crate) fn pipelined_loop_of(body: &Body, op: Op, target: &Target) -> Option<Op> {
    let lp = body.op(op).parent.and_then(|block| body.blocks[block].parent_op)?;
    (body.opcode(lp) == Opcode::For && loop_stages(body, lp, target) >= 2).then_some(lp)
}

/// The pipelining depth of loop `lp`: its `tt.num_stages` attribute (Triton's per-loop
/// override), else the kernel's.
pub(crate) fn loop_stages(body: &Body, lp: Op, target: &Target) -> u32 {
    match body.op(lp).attrs.int("tt.num_stages") {
        Some(stages) => stages.clamp(0, u32::MAX as i64) as u32,
        None => target.num_stages,
    }
}

/// 32-bit registers per thread that a tensor of type `ty` takes when spread over `threads`.
fn registers(ty: &Type, threads: u64) -> u64 {
    (ty.numel() * ty.dtype().bits() as u64).div_ceil(32 * threads)
}

/// The pieces of an `scf.for` the rewrites read: its body block and the ops in it, the block
/// arguments (induction variable first), bounds and step, initial carried values, the yield and
/// what it yields, and where the loop sits.
struct LoopParts {
    region: Block,
    in_body: HashSet<Op>,
    args: Vec<Value>,
    lb: Value,
    ub: Value,
    step: Value,
    inits: Vec<Value>,
    yield_op: Op,
    yields: Vec<Value>,
    span: crate::ir::Span,
    parent: Block,
}

impl LoopParts {
    fn of(body: &Body, lp: Op) -> LoopParts {
        let region = body.op(lp).regions[0];
        let operands = &body.op(lp).operands;
        let yield_op = *body.blocks[region].ops.last().expect("a loop body ends in scf.yield");
        LoopParts {
            region,
            in_body: body.blocks[region].ops.iter().copied().collect(),
            args: body.blocks[region].args.clone(),
            lb: operands[0],
            ub: operands[1],
            step: operands[2],
            inits: operands[3..].to_vec(),
            yield_op,
            yields: body.op(yield_op).operands.clone(),
            span: body.span(lp),
            parent: body.op(lp).parent.expect("the loop is in a block"),
        }
    }
}

/// What pipelining does to one loop, decided before any loop is rewritten.
struct LoopPlan {
    /// The loads issued ahead.
    loads: Vec<Op>,
    /// The carried values their addresses read.
    carried: Vec<usize>,
    /// The users of the body's values, by value.
    users: HashMap<Value, Vec<(Op, usize)>>,
    /// Shared-memory rings for the loads, or `None` for the registers path.
    rings: Option<(Vec<RingTile>, RingPlan)>,
}

/// One loop: its eligible loads, whose operands must be recomputable for later iterations, and
/// the rings that can hold them. `None` when no load qualifies.
fn plan_loop(body: &Body, entry: Block, lp: Op, target: &Target) -> Option<LoopPlan> {
    let region = body.op(lp).regions[0];
    let top: Vec<Op> = body.blocks[region].ops.clone();
    let &yield_op = top.last()?;
    // A nested loop or branch may hold the uses; keep to bodies without control flow.
    let combines = |op: Op| matches!(body.opcode(op), Opcode::Reduce | Opcode::Scan);
    if top.iter().any(|&op| !body.op(op).regions.is_empty() && !combines(op)) {
        return None;
    }
    let users = users_in(body, &top);
    let in_body: HashSet<Op> = top.iter().copied().collect();
    // Descriptor loads read a descriptor made outside the loop (a tensor map built once).
    let outside = |v: Value| body.def_op(v).is_none_or(|def| !in_body.contains(&def));
    let loads: Vec<Op> = top
        .iter()
        .copied()
        .filter(|&op| {
            let data = body.op(op);
            let kind = match data.opcode {
                Opcode::Load => true,
                Opcode::DescriptorLoad => outside(data.operands[0]),
                _ => false,
            };
            kind && body.ty(data.results[0]).is_tensor()
                && feeds_only_dot_operands(body, &users, data.results[0])
        })
        .collect();
    if loads.is_empty() {
        return None;
    }
    let args = body.blocks[region].args.clone();
    let yields = body.op(yield_op).operands.clone();
    // Every load's operands must be recomputable for the next iteration.
    let mut checked = HashMap::new();
    for &load in &loads {
        for &operand in &body.op(load).operands {
            if !recomputable(body, &in_body, &args, &yields, operand, &mut checked) {
                return None;
            }
        }
    }
    // The carried values the loads' addresses read (directly or through other carried values).
    let carried: Vec<usize> =
        (1..args.len()).filter(|&k| checked.get(&args[k]).copied().unwrap_or(false)).collect();
    // Shared-memory rings of as many slots as num_stages asks and shared memory allows.
    let has_descriptors = loads.iter().any(|&l| body.opcode(l) == Opcode::DescriptorLoad);
    let all_users = has_descriptors.then(|| users_in(body, &body.walk(entry)));
    let tiles: Option<Vec<RingTile>> = target
        .compute_capability
        .is_some_and(|cc| cc >= 80)
        .then(|| loads.iter().map(|&l| ring_tile(body, &users, all_users.as_ref(), l)).collect())
        .flatten();
    let rings = tiles.and_then(|tiles| plan_rings(body, &top, &tiles, target).map(|plan| (tiles, plan)));
    Some(LoopPlan { loads, carried, users, rings })
}

/// Rewrites loop `lp` as `plan` says: through rings, or through registers where the loads fit
/// the register budget.
fn apply(body: &mut Body, lp: Op, plan: LoopPlan, target: &Target) -> Option<persistent::Specialized> {
    let LoopPlan { mut loads, carried, users, rings } = plan;
    if let Some((tiles, plan)) = rings {
        if warp_specialize::applies(body, lp, &tiles, &plan, target) {
            return Some(warp_specialize::rewrite(body, lp, &loads, &tiles, &carried, &plan, target));
        }
        let empty = rewrite_async(body, lp, &loads, &tiles, &carried, &plan);
        match plan.in_flight {
            InFlight::EachDot => keep_dots_in_flight(body, lp),
            InFlight::Chain(chain) => keep_chain_in_flight(body, lp, chain),
            InFlight::Nothing => {}
        }
        if let Some((empty, slot)) = empty {
            warp_specialize::release_slots(body, lp, empty, slot, plan.slots);
        }
        return None;
    }
    // Registers hold what pointer loads return; descriptor loads stay synchronous TMA copies.
    loads.retain(|&l| body.opcode(l) == Opcode::Load);
    if loads.is_empty() {
        return None;
    }
    let threads = target.threads_per_program() as u64;
    let region = body.op(lp).regions[0];
    let accumulators: u64 = body.blocks[region]
        .ops
        .iter()
        .filter(|&&op| body.opcode(op).is_dot())
        .map(|&op| registers(body.ty(body.op(op).results[0]), threads))
        .sum();
    let operands: u64 = loads.iter().map(|&l| registers(body.ty(body.op(l).results[0]), threads)).sum();
    if accumulators + resident_operands(body, region, &loads, threads) + 2 * operands > REGISTER_BUDGET {
        return None;
    }
    rewrite(body, lp, &loads, &carried, &users);
    None
}

/// The registers of the dot operands of loop body `region` that are not what `loads` load: held
/// through the loop (attention's Q) or computed in it (its P, from the scores), they are live
/// beside the accumulators and the copies. (H100, NVIDIA's Vulkan: flash attention d128, whose
/// accumulators and copies alone fill the budget, ran at 84.9 TFLOP/s full and 69.9 causal with
/// its K and V copied an iteration ahead, 98.2 and 89.5 without; the nvptx fp8 attention of
/// `tests/kernels/attn_fwd.py`, which takes registers on sm_90a, 21.0 -> 20.9 on an H100.)
fn resident_operands(body: &Body, region: Block, loads: &[Op], threads: u64) -> u64 {
    let mut loaded: HashSet<Value> = loads.iter().map(|&l| body.op(l).results[0]).collect();
    // What the loads give through layout conversions (in order: a conversion follows its source).
    for &op in &body.blocks[region].ops {
        let data = body.op(op);
        if data.opcode == Opcode::ConvertLayout && loaded.contains(&data.operands[0]) {
            loaded.insert(data.results[0]);
        }
    }
    let operands: HashSet<Value> = body.blocks[region]
        .ops
        .iter()
        .filter(|&&op| body.opcode(op).is_dot())
        .flat_map(|&op| body.op(op).operands[..2].iter().copied())
        .filter(|v| !loaded.contains(v))
        .collect();
    operands.iter().map(|&v| registers(body.ty(v), threads)).sum()
}

/// How a loop's rings are laid out and run (see the module docs).
struct RingPlan {
    /// Tiles per ring.
    slots: i64,
    /// How many iterations ahead of the dot the copies run.
    ahead: i64,
    /// Per ring: the `#ttg.nvmma_shared` tile of a warpgroup dot's operand, else padded rows.
    swizzles: Vec<Option<NvmmaShared>>,
    /// Which warpgroup dots stay in flight past the end of their iteration.
    in_flight: InFlight,
    /// The copies come after the dots and their waits, behind a second barrier, into the slot
    /// the previous iteration's dot read (asynchronous dots with `num_stages` slots).
    copies_after_dots: bool,
    /// The warpgroups hand the slots over through mbarriers instead of a block-wide barrier per
    /// iteration ([`Handover`]), with these arrivals per phase; `None` for the barrier.
    handover: Option<Handover>,
    /// Shared memory the rings and the loop's scratch take.
    shared_bytes: u64,
}

/// Which warpgroup dots of a pipelined loop stay in flight past the end of their iteration.
#[derive(Clone, Copy)]
enum InFlight {
    Nothing,
    /// Every dot, each waited to depth 1 right after it (a GEMM's K loop).
    EachDot,
    /// Attention's second dot, waited by the next iteration's first.
    Chain(ChainInFlight),
}

/// How the warps of a program hand ring slots over without a block-wide barrier (see the module
/// docs, "Hopper: warpgroups decoupled by mbarriers"): a "full" mbarrier per slot that every
/// thread's copies arrive on once they land (`threads` arrivals a phase), and an "empty" one that
/// every warp arrives on once its dots are done reading the slot (`warps` arrivals).
#[derive(Clone, Copy, Debug)]
struct Handover {
    threads: i64,
    warps: i64,
}

impl Handover {
    /// Attention's chain of warpgroup dots in a program of several warpgroups, its tiles copied
    /// by `cp.async` (TMA rings have mbarriers of their own): there the warpgroups take turns on
    /// the tensor cores (pingpong-warpgroups), which a barrier per iteration would undo.
    fn applies(tiles: &[RingTile], in_flight: InFlight, target: &Target) -> Option<Handover> {
        let warpgroups = target.num_warps / 4;
        let applies = matches!(in_flight, InFlight::Chain(_))
            && target.compute_capability.is_some_and(|cc| cc >= 90)
            && target.num_warps.is_multiple_of(4)
            && warpgroups >= 2
            && tiles.iter().all(|tile| tile.tma.is_none());
        applies.then(|| Handover {
            threads: target.threads_per_program() as i64,
            warps: target.num_warps as i64,
        })
    }
}

/// The rings' plan: as many slots as `num_stages` asks and shared memory allows (one more for
/// asynchronous warpgroup dots), leaving [`SCRATCH_RESERVE`] to ops of the loop that need
/// scratch. `None` when not even two slots fit.
fn plan_rings(body: &Body, top: &[Op], tiles: &[RingTile], target: &Target) -> Option<RingPlan> {
    let dots: Vec<Op> = top.iter().copied().filter(|&op| body.opcode(op).is_dot()).collect();
    let warpgroup = !dots.is_empty() && dots.iter().all(|&d| body.opcode(d) == Opcode::WarpGroupDot);
    let swizzles: Vec<Option<NvmmaShared>> = tiles
        .iter()
        .map(|tile| {
            let ty = body.ty(tile.operand);
            let row = if tile.order == RingOrder::ColumnMajor { ty.shape()[0] } else { ty.shape()[1] };
            warpgroup.then(|| NvmmaShared::for_row(row, ty.dtype().bits() / 8)).flatten()
        })
        .collect();
    if (warpgroup && swizzles.iter().any(Option::is_none))
        || (!warpgroup && tiles.iter().any(|t| t.tma.is_some()))
    {
        return None;
    }
    let in_flight = if !warpgroup {
        InFlight::Nothing
    } else if dots.iter().all(|&d| carried_accumulator(body, d).is_some()) {
        InFlight::EachDot
    } else {
        chain_in_flight(body, top).map_or(InFlight::Nothing, InFlight::Chain)
    };
    let async_dots = !matches!(in_flight, InFlight::Nothing);
    // Warpgroup dots read their rings in place and need no scratch. A live conversion in the
    // loop needs its tensor's bytes (at most 8 per element); reductions, scans and other dots
    // the general reserve (the dead conversions the layout passes leave for DCE need nothing).
    let users = users_in(body, top);
    let in_rings = |v: Value| tiles.iter().any(|t| t.operand == v);
    let scratch = |op: Op| -> u64 {
        let data = body.op(op);
        let fma = !on_tensor_cores(body, op);
        match data.opcode {
            Opcode::ConvertLayout if users.contains_key(&data.results[0]) => {
                body.ty(data.results[0]).numel() * 8
            }
            // An FMA dot reading both operands from rings stages nothing.
            Opcode::Dot if fma && in_rings(data.operands[0]) && in_rings(data.operands[1]) => 0,
            Opcode::Reduce | Opcode::Scan | Opcode::Dot => SCRATCH_RESERVE,
            _ => 0,
        }
    };
    let needed = top.iter().map(|&op| scratch(op)).max().unwrap_or(0);
    let fma_only = dots.iter().all(|&d| !on_tensor_cores(body, d));
    let reserve = if warpgroup || fma_only { needed.min(SCRATCH_RESERVE) } else { SCRATCH_RESERVE };
    let rings = |slots: i64| -> u64 {
        tiles
            .iter()
            .zip(&swizzles)
            .map(|(t, swizzle)| ring_bytes(body.ty(t.operand), slots as u64, t.order, swizzle.is_some()))
            .sum()
    };
    let handover = Handover::applies(tiles, in_flight, target);
    // Two arrays of one 8-byte mbarrier per slot, aligned.
    let handover_bytes = |slots: i64| if handover.is_some() { 16 * slots as u64 + 16 } else { 0 };
    let fits =
        |slots: i64| rings(slots) + reserve + handover_bytes(slots) <= target.shared_memory_bytes as u64;
    let stages = target.num_stages as i64;
    let keep = async_dots as i64;
    // The most slots shared memory could hold (each slot takes at least its tiles' bytes), so
    // that a huge `num_stages` costs no long search.
    let slot_bytes = (rings(2) - rings(1)).max(1);
    let most = (target.shared_memory_bytes as u64 / slot_bytes + 1).min(i64::MAX as u64) as i64;
    let slots = (2 + keep..=(stages + keep).min(most)).rev().find(|&slots| fits(slots))?;
    // Programs per SM that shared memory allows (each also reserves 1 KiB).
    let per_sm = |slots: i64| (target.shared_memory_bytes as u64 + 1024) / (rings(slots) + reserve + 1024);
    if async_dots && slots == stages + 1 && per_sm(stages) > per_sm(slots) {
        // One slot fewer lets another program share the SM: worth a second barrier.
        let shared_bytes = rings(stages) + reserve;
        return Some(RingPlan {
            slots: stages,
            ahead: stages - 1,
            swizzles,
            in_flight,
            copies_after_dots: true,
            handover: None,
            shared_bytes,
        });
    }
    let shared_bytes = rings(slots) + reserve + handover_bytes(slots);
    Some(RingPlan {
        slots,
        ahead: slots - 1 - keep,
        swizzles,
        in_flight,
        copies_after_dots: false,
        handover,
        shared_bytes,
    })
}

/// Whether `op`'s result has an MMA layout (a dot on tensor cores; other dots run on FMAs).
fn on_tensor_cores(body: &Body, op: Op) -> bool {
    let result = body.op(op).results.first();
    matches!(result.and_then(|&r| body.ty(r).encoding()), Some(Encoding::Mma(_)))
}

/// For a warpgroup dot that can stay in flight: the index of the loop's carried value that is
/// its accumulator, when the dot reads it from the body's argument (nothing else in the body
/// does) and only the yield, at the same position, uses its result.
fn carried_accumulator(body: &Body, dot: Op) -> Option<usize> {
    let region = body.op(dot).parent?;
    let args = &body.blocks[region].args;
    let acc = body.op(dot).operands[2];
    let k = args.iter().position(|&a| a == acc)?.checked_sub(1)?;
    let ops = body.blocks[region].ops.clone();
    let users = users_in(body, &ops);
    let yield_op = *ops.last()?;
    // Conversions nothing reads (left for DCE by the layout passes) do not count.
    let live = |v: Value| -> Vec<(Op, usize)> {
        let dead = |user: Op| {
            body.opcode(user) == Opcode::ConvertLayout && !users.contains_key(&body.op(user).results[0])
        };
        users.get(&v).into_iter().flatten().copied().filter(|&(user, _)| !dead(user)).collect()
    };
    let acc_only_here = live(acc).iter().all(|&(user, _)| user == dot);
    let result = body.op(dot).results[0];
    let result_only_yielded = live(result) == [(yield_op, k)];
    (acc_only_here && result_only_yielded).then_some(k)
}

/// Makes the warpgroup dots of loop `lp` asynchronous: each waits for its predecessor
/// (`pendings = 1`) right after issuing, and the loop's results wait for the last one.
fn keep_dots_in_flight(body: &mut Body, lp: Op) {
    let region = body.op(lp).regions[0];
    let dots: Vec<Op> = body.blocks[region]
        .ops
        .iter()
        .copied()
        .filter(|&op| body.opcode(op) == Opcode::WarpGroupDot)
        .collect();
    let span = body.span(lp);
    for dot in dots {
        let Some(k) = carried_accumulator(body, dot) else { continue };
        body.ops[dot].attrs = body.op(dot).attrs.clone().with("is_async", Attr::Bool(true));
        let result = body.op(dot).results[0];
        let ty = body.ty(result).clone();
        let index = body.position(region, dot) + 1;
        let mut b = Builder::at(body, region, index);
        b.span = span;
        let pendings = Attrs::new().with("pendings", Attr::Int(1));
        let waited = b.value(Opcode::WarpGroupDotWait, vec![result], ty.clone(), pendings);
        let yield_op = *body.blocks[region].ops.last().expect("a loop body ends in scf.yield");
        body.ops[yield_op].operands[k] = waited;
        drain_after_loop(body, lp, k);
    }
}

/// After loop `lp`: its `k`-th result (an accumulator a dot may still write) passes a
/// `pendings = 0` wait before anything reads it.
fn drain_after_loop(body: &mut Body, lp: Op, k: usize) {
    let parent = body.op(lp).parent.expect("the loop is in a block");
    let span = body.span(lp);
    let loop_result = body.op(lp).results[k];
    let ty = body.ty(loop_result).clone();
    let index = body.position(parent, lp) + 1;
    let mut b = Builder::at(body, parent, index);
    b.span = span;
    let drained = Attrs::new().with("pendings", Attr::Int(0));
    let done = b.value(Opcode::WarpGroupDotWait, vec![loop_result], ty, drained);
    let wait_op = body.def_op(done).expect("the wait defines its result");
    body.replace_uses(parent, &HashMap::from([(loop_result, done)]));
    body.ops[wait_op].operands[0] = loop_result;
}

/// Attention's two warpgroup dots, when the second can stay in flight into the next iteration:
/// `S = Q K^T` first, then `acc = P V + acc * alpha` with P computed from S, whose result only
/// the yield uses (at carried position `k`) and whose carried accumulator is used only between
/// the two dots.
#[derive(Clone, Copy)]
struct ChainInFlight {
    first: Op,
    second: Op,
    k: usize,
}

/// The chain of a loop body (`top`, its ops) that [`keep_chain_in_flight`] can overlap, if any.
fn chain_in_flight(body: &Body, top: &[Op]) -> Option<ChainInFlight> {
    let dots: Vec<Op> = top.iter().copied().filter(|&op| body.opcode(op) == Opcode::WarpGroupDot).collect();
    let &[first, second] = dots.as_slice() else { return None };
    let region = body.op(first).parent?;
    let &yield_op = top.last()?;
    let users = users_in(body, top);
    let dead = |user: Op| {
        body.opcode(user) == Opcode::ConvertLayout && !users.contains_key(&body.op(user).results[0])
    };
    let live = |v: Value| -> Vec<(Op, usize)> {
        users.get(&v).into_iter().flatten().copied().filter(|&(user, _)| !dead(user)).collect()
    };
    let [(user, k)] = live(body.op(second).results[0])[..] else { return None };
    if user != yield_op {
        return None;
    }
    // Where the op of the body holding `op` sits (itself, or the reduction around a combiner).
    let at = |op: Op| body.ancestor_in(region, op).map(|op| body.position(region, op));
    let (first_at, second_at) = (at(first)?, at(second)?);
    // The second dot's A operand is computed from the first's result (P from S).
    let scores = body.op(first).results[0];
    let mut pending = vec![body.op(second).operands[0]];
    let mut seen = HashSet::new();
    let mut chained = false;
    while let Some(v) = pending.pop() {
        chained |= v == scores;
        let Some(def) = body.def_op(v).filter(|&d| body.op(d).parent == Some(region) && seen.insert(d))
        else {
            continue;
        };
        pending.extend(body.op(def).operands.iter().copied());
    }
    if !chained {
        return None;
    }
    let arg = body.blocks[region].args[k + 1];
    let between = live(arg).iter().all(|&(user, _)| at(user).is_some_and(|i| first_at < i && i <= second_at));
    (between && !live(arg).is_empty()).then_some(ChainInFlight { first, second, k })
}

/// Overlaps attention's dots across iterations, as Triton's `pipelineWgmma` does for them: the
/// second dot (`P V`) of iteration `i` stays in flight while iteration `i + 1` copies its tiles
/// and issues its first dot, which waits for both (`pendings = 0`) before the scores or the
/// accumulator are read: the wait also yields the carried accumulator, which every use in the
/// body then reads. The loop's result waits for the last second dot.
fn keep_chain_in_flight(body: &mut Body, lp: Op, chain: ChainInFlight) {
    let ChainInFlight { first, second, k } = chain;
    let region = body.op(lp).regions[0];
    let span = body.span(lp);
    for dot in [first, second] {
        body.ops[dot].attrs = body.op(dot).attrs.clone().with("is_async", Attr::Bool(true));
    }
    let scores = body.op(first).results[0];
    let arg = body.blocks[region].args[k + 1];
    let types = [body.ty(scores).clone(), body.ty(arg).clone()];
    let index = body.position(region, first) + 1;
    let mut b = Builder::at(body, region, index);
    b.span = span;
    let pendings = Attrs::new().with("pendings", Attr::Int(0));
    let wait = b.op(Opcode::WarpGroupDotWait, vec![scores, arg], &types, pendings);
    let waited = body.op(wait).results.clone();
    body.replace_uses(region, &HashMap::from([(scores, waited[0]), (arg, waited[1])]));
    body.ops[wait].operands = vec![scores, arg];
    drain_after_loop(body, lp, k);
}

/// How a ring stores the tile of `load`: along the dim its copies' vectors run, the layout's
/// fastest. Row-major tiles (`[rows][cols + pad]`) suit either dot operand; column-major ones
/// (`[cols][rows + pad]`, such as attention's `K^T` loaded with `d` contiguous) only B, which
/// the dot then reads with plain `ldmatrix` instead of `.trans`. `None` for other layouts.
///
/// A row-major tile that reaches the dot through a transpose ([`transposed_by`], a descriptor
/// load of `K` used as `k.T`) is the column-major B tile of the transposed shape.
fn ring_order(body: &Body, users: &HashMap<Value, Vec<(Op, usize)>>, load: Op) -> Option<RingOrder> {
    let result = body.op(load).results[0];
    let Some(Encoding::Blocked(blocked)) = body.ty(result).encoding() else { return None };
    let only_b = |v: Value| {
        users
            .get(&v)
            .is_some_and(|uses| uses.iter().all(|&(user, slot)| !body.opcode(user).is_dot() || slot == 1))
    };
    if let Some(trans) = transposed_by(body, users, load) {
        let fastest_last = blocked.order.first() == Some(&1);
        return (fastest_last && only_b(body.op(trans).results[0])).then_some(RingOrder::ColumnMajor);
    }
    match blocked.order.first() {
        Some(1) => Some(RingOrder::RowMajor),
        Some(0) => only_b(result).then_some(RingOrder::ColumnMajor),
        _ => None,
    }
}

/// The `tt.trans` (order `[1, 0]`: an identity permutation moves nothing) through which
/// `load`'s tile reaches its dot, when that is its only use (dead conversions aside).
fn transposed_by(body: &Body, users: &HashMap<Value, Vec<(Op, usize)>>, load: Op) -> Option<Op> {
    let uses = users.get(&body.op(load).results[0])?;
    let live: Vec<Op> = uses
        .iter()
        .map(|&(user, _)| user)
        .filter(|&user| {
            body.opcode(user) != Opcode::ConvertLayout || users.contains_key(&body.op(user).results[0])
        })
        .collect();
    match live[..] {
        [trans]
            if body.opcode(trans) == Opcode::Trans
                && body.op(trans).attrs.ints("order") == Some(&[1, 0][..]) =>
        {
            Some(trans)
        }
        _ => None,
    }
}

/// The value the dot reads for `load`'s tile: the transpose's result, or the load's own.
fn operand_of(body: &Body, users: &HashMap<Value, Vec<(Op, usize)>>, load: Op) -> Value {
    let trans = transposed_by(body, users, load);
    body.op(trans.unwrap_or(load)).results[0]
}

/// The order of a ring's tiles in shared memory (see [`ring_order`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RingOrder {
    RowMajor,
    ColumnMajor,
}

/// How a load's tile lives in its ring: the value the dot reads (the load's result, or its
/// transpose), the order the ring stores it in, and whether TMA fills it.
#[derive(Clone, Copy, Debug)]
struct RingTile {
    operand: Value,
    order: RingOrder,
    /// The descriptor of a `tt.descriptor_load`'s tile, which TMA copies into the ring.
    tma: Option<Value>,
}

/// The ring tile of `load`, if it can become an asynchronous copy into a dot's staging ring:
/// 16-bit elements, two dims in an order a ring can store ([`ring_order`]), `other` absent or
/// zero, and every use a direct A/B operand of a tensor-core dot (the layout passes may leave
/// dead conversions behind).
fn ring_tile(
    body: &Body,
    users: &HashMap<Value, Vec<(Op, usize)>>,
    all_users: Option<&HashMap<Value, Vec<(Op, usize)>>>,
    load: Op,
) -> Option<RingTile> {
    if body.opcode(load) == Opcode::DescriptorLoad {
        return tma_ring_tile(body, users, all_users?, load);
    }
    let data = body.op(load);
    let ty = body.ty(data.results[0]);
    let zero_other = match data.operands.get(2) {
        None => true,
        Some(&other) => body.def_op(other).is_some_and(|def| {
            let value = body.op(def).attrs.get("value");
            body.opcode(def) == Opcode::Constant
                && value.is_some_and(|v| v.as_float() == Some(0.0) || v.as_int() == Some(0))
        }),
    };
    let operand = operand_of(body, users, load);
    // Tensor-core dots of 16- and 8-bit operands, or FMA dots of f32 operands at full precision
    // (`ieee`, or a split form the backends take as `ieee`), which the backend reads in place:
    // no widening, no rounding to tf32.
    let f32_fma = ty.dtype() == DType::F32;
    let to_dots = users.get(&operand).is_some_and(|uses| {
        uses.iter().all(|&(user, slot)| match body.opcode(user) {
            Opcode::Dot | Opcode::WarpGroupDot => {
                let mma = on_tensor_cores(body, user);
                let full_precision = !crate::codegen::dot::is_tf32(body, user);
                slot < 2 && if f32_fma { !mma && full_precision } else { mma }
            }
            // A conversion left unused for DCE.
            Opcode::ConvertLayout => !users.contains_key(&body.op(user).results[0]),
            _ => false,
        })
    });
    let eligible = (matches!(ty.dtype(), DType::F16 | DType::BF16) || ty.dtype().is_fp8() || f32_fma)
        && ty.shape().len() == 2
        && data.attrs.bool("volatile") != Some(true)
        && zero_other
        && to_dots;
    let order = ring_order(body, users, load).filter(|_| eligible)?;
    // `wgmma` reads 8-bit operands K-major only: A row-major, B column-major, and no ldmatrix
    // path reads an 8-bit ring.
    let k_major_wgmma = |&(user, slot): &(Op, usize)| {
        let k_major = if slot == 0 { RingOrder::RowMajor } else { RingOrder::ColumnMajor };
        body.opcode(user) != Opcode::Dot && (body.opcode(user) != Opcode::WarpGroupDot || order == k_major)
    };
    if ty.dtype().is_fp8() && !users.get(&operand).is_some_and(|uses| uses.iter().all(k_major_wgmma)) {
        return None;
    }
    Some(RingTile { operand, order, tma: None })
}

/// The ring tile of a descriptor load, if TMA can fill a warpgroup dot's ring with it: the ring
/// holds the block as the tensor stores it (row-major; a block the dot reads transposed is the
/// column-major tile of the transpose), swizzled, so the tensor map takes the ring's swizzle.
/// Every use of the descriptor must be a pipelined load of this loop (one tensor map, one
/// swizzle), and every use of the tile a direct A/B operand of a warpgroup dot (8-bit tiles
/// K-major: A as stored, B transposed).
fn tma_ring_tile(
    body: &Body,
    users: &HashMap<Value, Vec<(Op, usize)>>,
    all_users: &HashMap<Value, Vec<(Op, usize)>>,
    load: Op,
) -> Option<RingTile> {
    let desc = body.op(load).operands[0];
    let ty = body.ty(body.op(load).results[0]);
    // Every use of the descriptor is a load, here or in another loop (`run` checks that all of
    // them get rings).
    let only_loads =
        all_users.get(&desc)?.iter().all(|&(user, _)| body.opcode(user) == Opcode::DescriptorLoad);
    // One tensor map for the whole loop: the descriptor is made before it (a descriptor carried
    // through the loop or made in its body keeps its ordinary loads).
    let loop_body = body.op(load).parent?;
    let made_before_loop = body.def_op(desc).is_some_and(|make| {
        body.opcode(make) == Opcode::MakeTensorDescriptor && body.ancestor_in(loop_body, make).is_none()
    });
    let trans = transposed_by(body, users, load);
    let operand = operand_of(body, users, load);
    let order = if trans.is_some() { RingOrder::ColumnMajor } else { RingOrder::RowMajor };
    let wgmma_operand = |&(user, slot): &(Op, usize)| match body.opcode(user) {
        Opcode::WarpGroupDot => {
            let k_major = !ty.dtype().is_fp8() || (slot == 0) == (order == RingOrder::RowMajor);
            slot < 2 && k_major && (order == RingOrder::RowMajor || slot == 1)
        }
        Opcode::ConvertLayout => !users.contains_key(&body.op(user).results[0]),
        _ => false,
    };
    let eligible = only_loads
        && made_before_loop
        && (matches!(ty.dtype(), DType::F16 | DType::BF16) || ty.dtype().is_fp8())
        && ty.shape().len() == 2
        && users.get(&operand).is_some_and(|uses| uses.iter().all(wgmma_operand));
    eligible.then_some(RingTile { operand, order, tma: Some(desc) })
}

/// Shared memory of a ring of `slots` `ty` tiles with 16-byte padded rows (the dot staging; a
/// column-major tile pads its columns instead), or unpadded swizzled tiles (`swizzled`), plus
/// the alignment the backend may add.
fn ring_bytes(ty: &Type, slots: u64, order: RingOrder, swizzled: bool) -> u64 {
    let (mut rows, mut cols) = (ty.shape()[0] as u64, ty.shape()[1] as u64);
    if order == RingOrder::ColumnMajor {
        std::mem::swap(&mut rows, &mut cols);
    }
    let bytes = ty.dtype().bits() as u64 / 8;
    if swizzled {
        return slots * (rows * cols * bytes).next_multiple_of(1024) + 1024;
    }
    slots * rows * (cols * bytes + 16)
}

/// `v + j * step` (`v` itself for `j = 0`, `v + step` for `j = 1`).
fn steps_ahead(b: &mut Builder, v: Value, step: Value, j: i64) -> Value {
    if j == 0 {
        return v;
    }
    if j == 1 {
        return b.value(Opcode::AddI, vec![v, step], b.ty(v), Attrs::new());
    }
    let ty = b.ty(v);
    let count = b.const_int(ty.dtype(), j);
    let distance = b.value(Opcode::MulI, vec![step, count], ty.clone(), Attrs::new());
    b.value(Opcode::AddI, vec![v, distance], ty, Attrs::new())
}

/// The map that reads iteration `j + 1`'s values from `map` (iteration `j`'s): the induction
/// variable one step on, each carried value as the iteration yields it (clones of its slice).
#[allow(clippy::too_many_arguments)]
fn next_iteration(
    b: &mut Builder,
    in_body: &HashSet<Op>,
    args: &[Value],
    yields: &[Value],
    carried: &[usize],
    step: Value,
    map: &mut HashMap<Value, Value>,
) -> HashMap<Value, Value> {
    let iv = map.get(&args[0]).copied().unwrap_or(args[0]);
    let mut next = HashMap::from([(args[0], steps_ahead(b, iv, step, 1))]);
    for &k in carried {
        let yielded = clone_with(b, in_body, yields[k - 1], map);
        next.insert(args[k], yielded);
    }
    next
}

/// Rewrites loop `lp` with `loads` as asynchronous copies into rings of `plan.slots` slots: the
/// copies run `plan.ahead` iterations ahead of the dot.
/// `tiles` say what each load's ring holds: the load's result, or its transpose (then the
/// copies are marked `transposed`). With a [`Handover`], returns the "empty" barriers and the
/// slot the body reads, for the caller to release each slot once the dots are done with it
/// (after their waits are in place).
fn rewrite_async(
    body: &mut Body,
    lp: Op,
    loads: &[Op],
    tiles: &[RingTile],
    carried: &[usize],
    plan: &RingPlan,
) -> Option<(Value, Value)> {
    let (slots, ahead) = (plan.slots, plan.ahead);
    let LoopParts { region, in_body, args, lb, ub, step, inits, yield_op, yields, span, parent } =
        LoopParts::of(body, lp);
    let i32_ty = Type::scalar(DType::I32);

    // Before the loop: the rings (and the hand-over's barriers), and the copies of the first
    // `stages - 1` iterations into slots 0, 1, ..., one commit group each (off memory past the
    // end of the loop), or each arriving on its slot's "full" barrier.
    let index = body.position(parent, lp);
    let mut b = Builder::at(body, parent, index);
    b.span = span;
    let rings = alloc_rings(&mut b, tiles, plan);
    let barriers = plan.handover.map(|handover| {
        let init = |b: &mut Builder, arrivals: i64| {
            let attrs = Attrs::new().with("count", Attr::Int(slots)).with("arrivals", Attr::Int(arrivals));
            b.value(Opcode::InitBarriers, vec![], i32_ty.clone(), attrs)
        };
        (init(&mut b, handover.threads), init(&mut b, handover.warps))
    });
    let pointer_rings = tiles.iter().any(|t| t.tma.is_none());
    let tma_rings = tiles.iter().any(|t| t.tma.is_some());
    let commit_groups = pointer_rings && barriers.is_none();
    let mut at: HashMap<Value, Value> = HashMap::from([(args[0], lb)]);
    at.extend(carried.iter().map(|&k| (args[k], inits[k - 1])));
    for j in 0..ahead {
        if j > 0 {
            at = next_iteration(&mut b, &in_body, &args, &yields, carried, step, &mut at);
        }
        let live = b.cmpi("slt", at[&args[0]], ub);
        let slot = b.const_int(DType::I32, j);
        for ((&load, tile), &ring) in loads.iter().zip(tiles).zip(&rings) {
            copy_into_ring(&mut b, &in_body, load, tile, ring, slot, live, &mut at);
        }
        if commit_groups {
            b.op(Opcode::AsyncCommitGroup, vec![], &[], Attrs::new());
        }
        if let Some((full, _)) = barriers {
            b.op(Opcode::AsyncCopyArrive, vec![full, slot, live], &[], Attrs::new());
        }
    }

    // The slot the dot reads is carried: 0 in the first iteration, then round the ring; with
    // mbarriers (TMA rings, the hand-over), so is the parity of the slot's phase, which flips at
    // each wrap.
    let slot0 = b.const_int(DType::I32, 0);
    let (slot, _) = body.add_iter_arg(lp, slot0, i32_ty.clone());
    let phase = (tma_rings || barriers.is_some()).then(|| body.add_iter_arg(lp, slot0, i32_ty.clone()).0);

    // Body start: wait for this iteration's tiles (later groups may still be in flight), then
    // copy iteration k + ahead into the slot `ahead` after this one (the one iteration
    // k + ahead - slots read, finished by every warp past the barrier, or, with the hand-over,
    // once its "empty" barrier says so).
    let mut b = Builder::at(body, region, 0);
    b.span = span;
    if commit_groups {
        b.op(Opcode::AsyncWait, vec![], &[], Attrs::new().with("num", Attr::Int(ahead - 1)));
    }
    for (tile, &ring) in tiles.iter().zip(&rings) {
        if let (Some(_), Some(phase)) = (tile.tma, phase) {
            b.op(Opcode::WaitBarrier, vec![ring, slot, phase], &[], Attrs::new());
        }
    }
    match (barriers, phase) {
        (Some((full, _)), Some(phase)) => {
            b.op(Opcode::WaitBarrier, vec![full, slot, phase], &[], Attrs::new());
        }
        _ => {
            b.op(Opcode::Barrier, vec![], &[], Attrs::new());
        }
    }
    let (zero, one, count) =
        (b.const_int(DType::I32, 0), b.const_int(DType::I32, 1), b.const_int(DType::I32, slots));
    let (write_slot, wraps) = ring_step_wrapping(&mut b, slot, ahead, count);
    let (next_slot, next_phase) = advance_slot(&mut b, slot, phase, [zero, one], slots);
    let mut map = HashMap::new();
    if plan.copies_after_dots {
        // The copies go after the body (the dots and their waits), past a barrier: then every
        // warpgroup's previous dot is done with the slot they overwrite.
        map = read_in_place(&mut b, tiles, &rings, slot);
        let end = b.body.position(region, yield_op);
        b = Builder::at(body, region, end);
        b.span = span;
        b.op(Opcode::Barrier, vec![], &[], Attrs::new());
    }
    if let (Some((_, empty)), Some(phase)) = (barriers, phase) {
        // The write slot's fill count is the read slot's, one more past the wrap; its previous
        // fill was released in the phase before (parity flipped: a first fill waits for nothing).
        let flipped = b.value(Opcode::XOrI, vec![phase, one], i32_ty.clone(), Attrs::new());
        let freed = b.select(wraps, phase, flipped);
        b.op(Opcode::WaitBarrier, vec![empty, write_slot, freed], &[], Attrs::new());
    }
    let mut later: HashMap<Value, Value> = HashMap::new();
    for _ in 0..ahead {
        later = next_iteration(&mut b, &in_body, &args, &yields, carried, step, &mut later);
    }
    let live = b.cmpi("slt", later[&args[0]], ub);
    for ((&load, tile), &ring) in loads.iter().zip(tiles).zip(&rings) {
        copy_into_ring(&mut b, &in_body, load, tile, ring, write_slot, live, &mut later);
    }
    if commit_groups {
        b.op(Opcode::AsyncCommitGroup, vec![], &[], Attrs::new());
    }
    if let Some((full, _)) = barriers {
        b.op(Opcode::AsyncCopyArrive, vec![full, write_slot, live], &[], Attrs::new());
    }
    if !plan.copies_after_dots {
        map = read_in_place(&mut b, tiles, &rings, slot);
    }
    body.replace_uses(region, &map);
    body.ops[yield_op].operands.push(next_slot);
    body.ops[yield_op].operands.extend(next_phase);

    // After the loop: the last (masked-off) copies drained, every warp past its last read, the
    // rings released (latest first). TMA copies past the end were never issued, and copies past
    // the end arrive on no barrier.
    let index = body.position(parent, lp) + 1;
    let mut b = Builder::at(body, parent, index);
    b.span = span;
    if pointer_rings {
        b.op(Opcode::AsyncWait, vec![], &[], Attrs::new().with("num", Attr::Int(0)));
    }
    b.op(Opcode::Barrier, vec![], &[], Attrs::new());
    if let Some((full, empty)) = barriers {
        b.op(Opcode::LocalDealloc, vec![empty], &[], Attrs::new());
        b.op(Opcode::LocalDealloc, vec![full], &[], Attrs::new());
    }
    for &ring in rings.iter().rev() {
        b.op(Opcode::LocalDealloc, vec![ring], &[], Attrs::new());
    }
    barriers.map(|(_, empty)| (empty, slot))
}

/// The rings of `tiles` (`ttg.local_alloc`, at the builder), as `plan` lays them out; the tensor
/// maps of TMA-filled ones take their swizzle.
fn alloc_rings(b: &mut Builder, tiles: &[RingTile], plan: &RingPlan) -> Vec<Value> {
    tiles
        .iter()
        .zip(&plan.swizzles)
        .map(|(tile, &swizzle)| {
            let ty = b.body.ty(tile.operand).clone();
            alloc_ring(b, &ty, plan.slots, tile.order, swizzle, tile.tma)
        })
        .collect()
}

/// One ring of `slots` tiles of `ty` (`ttg.local_alloc`, at the builder), stored in `order`,
/// swizzled as `swizzle` says (else padded), filled by TMA through descriptor `tma` when given,
/// whose tensor map then takes the ring's swizzle.
fn alloc_ring(
    b: &mut Builder,
    ty: &Type,
    slots: i64,
    order: RingOrder,
    swizzle: Option<NvmmaShared>,
    tma: Option<Value>,
) -> Value {
    let mut attrs = Attrs::new()
        .with("slots", Attr::Int(slots))
        .with("shape", Attr::Ints(ty.shape().iter().map(|&d| d as i64).collect()))
        .with("elem_bytes", Attr::Int(ty.dtype().bits() as i64 / 8));
    if order == RingOrder::ColumnMajor {
        attrs = attrs.with("column_major", Attr::Bool(true));
    }
    if let Some(swizzle) = swizzle {
        attrs = attrs.with("swizzle_bytes", Attr::Int(swizzle.swizzle_bytes as i64));
    }
    if tma.is_some() {
        attrs = attrs.with("tma", Attr::Bool(true));
    }
    let ring = b.value(Opcode::LocalAlloc, vec![], Type::scalar(DType::I32), attrs);
    if let (Some(desc), Some(swizzle)) = (tma, swizzle) {
        let make = b.body.def_op(desc).expect("a ringed descriptor is made in the function");
        let attrs =
            b.body.op(make).attrs.clone().with("swizzle_bytes", Attr::Int(swizzle.swizzle_bytes as i64));
        b.body.ops[make].attrs = attrs;
    }
    ring
}

/// The tiles of `slot` of each ring (`ttg.local_load`, read in place by the dots), by the value
/// each replaces.
fn read_in_place(b: &mut Builder, tiles: &[RingTile], rings: &[Value], slot: Value) -> HashMap<Value, Value> {
    let mut map = HashMap::new();
    for (tile, &ring) in tiles.iter().zip(rings) {
        let ty = b.body.ty(tile.operand).clone();
        let loaded = b.value(Opcode::LocalLoad, vec![ring, slot], ty, Attrs::new());
        map.insert(tile.operand, loaded);
    }
    map
}

/// The slot after `slot` in a ring of `slots` (back to `zero` after the last), and the mbarrier
/// phase parity `phase` after it (flipped at the wrap).
fn advance_slot(
    b: &mut Builder,
    slot: Value,
    phase: Option<Value>,
    [zero, one]: [Value; 2],
    slots: i64,
) -> (Value, Option<Value>) {
    let i32_ty = Type::scalar(DType::I32);
    let last = b.const_int(DType::I32, slots - 1);
    let at_end = b.cmpi("eq", slot, last);
    let after = b.value(Opcode::AddI, vec![slot, one], i32_ty.clone(), Attrs::new());
    let next_slot = b.select(at_end, zero, after);
    let next_phase = phase.map(|phase| {
        let flipped = b.value(Opcode::XOrI, vec![phase, one], i32_ty, Attrs::new());
        b.select(at_end, flipped, phase)
    });
    (next_slot, next_phase)
}

/// `(slot + distance) % count` for `0 < distance < count`: one add and one conditional wrap.
fn ring_step(b: &mut Builder, slot: Value, distance: i64, count: Value) -> Value {
    ring_step_wrapping(b, slot, distance, count).0
}

/// [`ring_step`], and whether the step wrapped past the last slot (an `i1`).
fn ring_step_wrapping(b: &mut Builder, slot: Value, distance: i64, count: Value) -> (Value, Value) {
    let ty = b.ty(slot);
    let distance = b.const_int(DType::I32, distance);
    let sum = b.value(Opcode::AddI, vec![slot, distance], ty.clone(), Attrs::new());
    let wraps = b.cmpi("sge", sum, count);
    let wrapped = b.value(Opcode::SubI, vec![sum, count], ty, Attrs::new());
    (b.select(wraps, wrapped, sum), wraps)
}

/// The copy of the tile `load` reads (through `map`) into `slot` of `ring`, for the iteration
/// `live` says runs: TMA for a descriptor load, else `cp.async`.
#[allow(clippy::too_many_arguments)]
fn copy_into_ring(
    b: &mut Builder,
    in_body: &HashSet<Op>,
    load: Op,
    tile: &RingTile,
    ring: Value,
    slot: Value,
    live: Value,
    map: &mut HashMap<Value, Value>,
) {
    let Some(desc) = tile.tma else {
        return async_copy(b, in_body, load, tile.operand, ring, slot, live, map);
    };
    let offsets = b.body.op(load).operands[1..].to_vec();
    let mut operands = vec![ring, slot, live, desc];
    operands.extend(offsets.into_iter().map(|offset| clone_with(b, in_body, offset, map)));
    b.op(Opcode::AsyncTmaCopyGlobalToLocal, operands, &[], Attrs::new());
}

/// An asynchronous copy of the tile `load` reads (through `map`) into `slot` of `ring`, masked
/// by `live` as well; `transposed` when the ring holds the transpose of the tile (`operand` is
/// not the load's result).
#[allow(clippy::too_many_arguments)]
fn async_copy(
    b: &mut Builder,
    in_body: &HashSet<Op>,
    load: Op,
    operand: Value,
    ring: Value,
    slot: Value,
    live: Value,
    map: &mut HashMap<Value, Value>,
) {
    let data = b.body.op(load).clone();
    let ptr = clone_with(b, in_body, data.operands[0], map);
    let mask_ty = b.ty(ptr).with_elem(crate::ir::Elem::Scalar(DType::I1));
    let live = b.value(Opcode::Splat, vec![live], mask_ty.clone(), Attrs::new());
    let mask = match data.operands.get(1) {
        Some(&m) => {
            let m = clone_with(b, in_body, m, map);
            b.value(Opcode::AndI, vec![m, live], mask_ty, Attrs::new())
        }
        None => live,
    };
    let attrs = if operand == data.results[0] {
        Attrs::new()
    } else {
        Attrs::new().with("transposed", Attr::Bool(true))
    };
    b.op(Opcode::AsyncCopyGlobalToLocal, vec![ring, slot, ptr, mask], &[], attrs);
}

/// Whether `v` is used, and only as a `tt.dot` A or B operand (directly or through layout
/// conversions or a 2-D transpose; an unused conversion, left for DCE, does not count).
fn feeds_only_dot_operands(body: &Body, users: &HashMap<Value, Vec<(Op, usize)>>, v: Value) -> bool {
    fn only_dots(body: &Body, users: &HashMap<Value, Vec<(Op, usize)>>, v: Value) -> bool {
        users.get(&v).into_iter().flatten().all(|&(user, slot)| match body.opcode(user) {
            Opcode::Dot | Opcode::WarpGroupDot => slot < 2,
            Opcode::ConvertLayout => only_dots(body, users, body.op(user).results[0]),
            Opcode::Trans if body.ty(v).shape().len() == 2 => {
                only_dots(body, users, body.op(user).results[0])
            }
            _ => false,
        })
    }
    users.contains_key(&v) && only_dots(body, users, v)
}

/// Whether `v` can be computed for the next iteration: defined outside the body, the induction
/// variable, a carried value whose yielded value is recomputable, or the result of a pure,
/// single-result op of the body whose operands are recomputable.
fn recomputable(
    body: &Body,
    in_body: &HashSet<Op>,
    args: &[Value],
    yields: &[Value],
    v: Value,
    checked: &mut HashMap<Value, bool>,
) -> bool {
    if let Some(&answer) = checked.get(&v) {
        return answer;
    }
    // Cycles through carried values are fine: assume yes while looking.
    checked.insert(v, true);
    let answer = if let Some(k) = args.iter().position(|&a| a == v) {
        k == 0 || recomputable(body, in_body, args, yields, yields[k - 1], checked)
    } else {
        match body.def_op(v) {
            Some(op) if in_body.contains(&op) => {
                let data = body.op(op);
                let info = data.opcode.info();
                info.effect == Effect::Pure
                    && info.regions == 0
                    && data.results.len() == 1
                    && !data.opcode.is_dot()
                    && data.operands.iter().all(|&x| recomputable(body, in_body, args, yields, x, checked))
            }
            // Defined outside the loop, or an argument of an enclosing block.
            _ => true,
        }
    };
    checked.insert(v, answer);
    answer
}

/// Clones the ops of the loop body that compute `v` at the builder's position, reading
/// `map[x]` wherever the computation reads `x` (memoized in `map`).
fn clone_with(b: &mut Builder, in_body: &HashSet<Op>, v: Value, map: &mut HashMap<Value, Value>) -> Value {
    if let Some(&x) = map.get(&v) {
        return x;
    }
    let Some(op) = b.body.def_op(v).filter(|op| in_body.contains(op)) else { return v };
    let data = b.body.op(op).clone();
    let operands: Vec<Value> = data.operands.iter().map(|&x| clone_with(b, in_body, x, map)).collect();
    let ty = b.body.ty(v).clone();
    let clone = b.value(data.opcode, operands, ty, data.attrs.clone());
    map.insert(v, clone);
    clone
}

/// A copy of `load` reading through `map`, with its mask narrowed to `live` (an `i1` scalar).
fn clone_load(
    b: &mut Builder,
    in_body: &HashSet<Op>,
    load: Op,
    live: Value,
    map: &mut HashMap<Value, Value>,
) -> Value {
    let data = b.body.op(load).clone();
    let mut operands: Vec<Value> = data.operands.iter().map(|&x| clone_with(b, in_body, x, map)).collect();
    let ptr_ty = b.ty(operands[0]);
    let mask_ty = ptr_ty.with_elem(crate::ir::Elem::Scalar(DType::I1));
    let live = b.value(Opcode::Splat, vec![live], mask_ty.clone(), Attrs::new());
    match operands.get(1).copied() {
        Some(mask) => operands[1] = b.value(Opcode::AndI, vec![mask, live], mask_ty, Attrs::new()),
        None => operands.push(live),
    }
    let ty = b.body.ty(data.results[0]).clone();
    b.value(Opcode::Load, operands, ty, data.attrs.clone())
}

/// Rewrites loop `lp` with `loads` pipelined; `carried` are the block-argument indices of the
/// carried values their addresses read.
fn rewrite(
    body: &mut Body,
    lp: Op,
    loads: &[Op],
    carried: &[usize],
    users: &HashMap<Value, Vec<(Op, usize)>>,
) {
    let LoopParts { region, in_body, args, lb, ub, step, inits, yield_op, yields, span, parent } =
        LoopParts::of(body, lp);

    // Prologue: the loads of the first iteration, off memory when the loop runs zero times.
    let index = body.position(parent, lp);
    let mut b = Builder::at(body, parent, index);
    b.span = span;
    let runs = b.cmpi("slt", lb, ub);
    let mut first: HashMap<Value, Value> = HashMap::from([(args[0], lb)]);
    first.extend(carried.iter().map(|&k| (args[k], inits[k - 1])));
    let prologue: Vec<Value> =
        loads.iter().map(|&l| clone_load(&mut b, &in_body, l, runs, &mut first)).collect();

    // New iter args: init, block argument, result, one per pipelined load.
    let mut current = Vec::new();
    for (&load, &init) in loads.iter().zip(&prologue) {
        let ty: Type = body.ty(body.op(load).results[0]).clone();
        current.push(body.add_iter_arg(lp, init, ty).0);
    }

    // In the body, before the first use of a pipelined load: the next iteration's loads.
    let first_use = body.blocks[region]
        .ops
        .iter()
        .position(|&op| {
            loads.iter().any(|&l| {
                users.get(&body.op(l).results[0]).is_some_and(|u| u.iter().any(|&(user, _)| user == op))
            })
        })
        .expect("a pipelined load has a user in the body");
    let mut b = Builder::at(body, region, first_use);
    b.span = span;
    // The values this iteration yields, computed here (clones; CSE merges the originals).
    let mut next = next_iteration(&mut b, &in_body, &args, &yields, carried, step, &mut HashMap::new());
    let live = b.cmpi("slt", next[&args[0]], ub);
    let prefetched: Vec<Value> =
        loads.iter().map(|&l| clone_load(&mut b, &in_body, l, live, &mut next)).collect();

    // The body reads the carried loads; the originals die in DCE.
    let map: HashMap<Value, Value> =
        loads.iter().zip(&current).map(|(&l, &c)| (body.op(l).results[0], c)).collect();
    body.replace_uses(region, &map);
    body.ops[yield_op].operands.extend(prefetched);
}
