//! Persistent warp-specialized kernels (Hopper): the CTAs walk the program grid, and the
//! producer runs ahead into the next program's tiles, as FlashAttention-3 schedules attention.
//!
//! A warp-specialized program pays for its start and its end alone: the CTA starts, the
//! producer's first copies and the consumers' first loads (attention's `Q`) travel to memory
//! while the tensor cores wait, and at the end the epilogue (attention's normalization and the
//! output's store) runs while the producer has nothing left to copy. Measured on an H100 (the
//! corpus' attention through descriptors, d128, 1,024 programs): about 7 us of each program's
//! ~36 us at 2,048 keys. When the kernel is the partition and code around it, the launch
//! instead runs as many CTAs as the GPU holds at once (the runtime's choice, at most one per
//! program), and each walks the programs `cta, cta + ctas, ...` in the grid's linear order
//! (`x` fastest), inside the partition:
//!
//! ```text
//! %rings = ..., %empty = ..., %q_tile = ..., %q_free = ...   // once per CTA
//! ttng.warp_specialize {
//!     scf.for %t = %cta to %programs step %ctas (%slot, %phase, %q_phase) {
//!         pid_x = t % gx, pid_y = t / gx % gy, pid_z = t / (gx * gy)
//!         .. the code before the partition, with these program ids ..
//!         ttng.wait_barrier %q_tile, 0, %q_phase             // this program's Q landed
//!         .. the consumers' loop, from the ring's slot and phase where the last program left it ..
//!         ttng.arrive_barrier %empty, last slot, lb < ub     // its last slot is free
//!         ttng.arrive_barrier %q_free, 0, true               // and Q's tile
//!         .. the code after the partition (the epilogue) ..
//!     }
//! } producer {
//!     scf.for %t = %cta to %programs step %ctas (%slot, %phase, %q_phase) {
//!         .. the program ids and the scalars its copies read, computed again ..
//!         ttng.wait_barrier %q_free, 0, %q_phase ^ 1         // the last program's Q is done
//!         ttng.async_tma_copy_global_to_local %q_tile, 0, true, %desc_q, ..
//!         .. the producer's loop, from the ring's slot and phase ..
//!     }
//! }
//! ```
//!
//! The producer waits for nothing but free slots, so it copies the next program's `Q` and first
//! tiles while the consumers finish this one (its normalization and store). The consumers' A
//! operands staged in shared memory ([`super::stage_a_operands`], attention's `Q`) are copied
//! by the producer, which must be able to compute their offsets.
//! `tt.get_num_programs` becomes `ttng.program_grid` (the grid the launch asked for, which the
//! runtime passes); `tt.get_program_id` and `tt.get_num_programs` then name the CTA and the CTAs
//! launched. The programs of a persistent launch run in the grid's order, as without it (Triton
//! promises none).
//!
//! Measured on an H100 (the corpus' attention through descriptors, d128 full, 2,048 keys, one
//! command): 487.7 TFLOP/s one program per CTA, 505.3 persistent (Triton 3.6: 391.9). Persistent
//! with the consumers loading `Q` themselves it was 488.3: the walk alone saves little, the
//! producer's running ahead with `Q` does it.
//!
//! Applies after [`super::warp_specialize::rewrite`], to a kernel whose one partition sits in
//! its body (not in a loop or a branch), whose one return ends the body, and whose code
//! between its start and the partition leaves the producer only pure scalar arithmetic to
//! compute again (program ids, offsets). Anything else keeps one program per CTA.

use std::collections::{HashMap, HashSet};

use super::clone_with;
use crate::ir::{Attr, Attrs, Body, Builder, DType, Effect, Function, Op, Opcode, Type, Value};
use crate::target::Target;

/// What [`super::warp_specialize::rewrite`] made, as the persistent form needs it.
pub struct Specialized {
    pub ws: Op,
    /// The consumers' loop.
    pub consumer_loop: Op,
    /// The constants both loops start their ring slot and phase from (distinct values, read for
    /// nothing else), which the persistent form carries from program to program instead.
    pub first_slot: Value,
    pub first_phase: Value,
    /// The "empty" barriers the consumers release slots on, and the ring's slot count.
    pub empty: Value,
    pub slots: i64,
    /// Whether the consumers' loop leaves its last slot held (it releases each slot one
    /// iteration late): the next program's copies wait for its release.
    pub holds_last_slot: bool,
    /// The consumers' A operands staged in shared memory: one copy per program, whose mbarrier
    /// phase alternates from program to program.
    pub staged: Vec<super::stage_a_operands::StagedTile>,
}

/// Makes `function` persistent around its partition `spec.ws` (see the module docs); `false`
/// (the function unchanged) where it does not apply.
pub fn make_persistent(function: &mut Function, spec: &Specialized, target: &Target) -> bool {
    if target.compute_capability.is_none_or(|cc| cc < 90) {
        return false;
    }
    let Some(shape) = Shape::of(function, spec) else { return false };
    rewrite(function, spec, shape, target.num_warps);
    true
}

/// The kernel's body around the partition, split as the rewrite moves it.
struct Shape {
    /// Ops before the partition that move into the consumers' loop: those that make a tensor,
    /// read a program id, memory or another such op, or have effects. In order.
    moving: Vec<Op>,
    /// The ops after the partition's barrier and ring releases, before the return.
    epilogue: Vec<Op>,
    /// The kernel's `tt.get_program_id` ops, wherever they are.
    program_ids: Vec<Op>,
    /// The moving ops the producer region and the staged tiles' copies read (directly or
    /// through each other), all pure scalar arithmetic; and the set of every moving op (what
    /// `clone_with` may clone).
    moving_set: HashSet<Op>,
    producer_reads: Vec<Value>,
}

/// Whether the moving ops behind `values` are all pure scalar ops (the producer can compute
/// them again). A tensor descriptor is not one: made per program, it is a tensor map written
/// by the whole CTA (the producer alone would wait for the consumers at its barrier forever),
/// so a kernel whose descriptors depend on the program keeps one program per CTA.
fn clonable(body: &Body, moving: &HashSet<Op>, values: &[Value]) -> bool {
    let mut stack = values.to_vec();
    let mut seen = HashSet::new();
    while let Some(v) = stack.pop() {
        let Some(op) = body.def_op(v).filter(|op| moving.contains(op)) else { continue };
        if !seen.insert(op) {
            continue;
        }
        let data = body.op(op);
        let scalar = data.results.iter().all(|&r| !body.ty(r).is_tensor() && !body.ty(r).is_desc());
        if data.opcode.info().effect != Effect::Pure || !data.regions.is_empty() || !scalar {
            return false;
        }
        stack.extend(data.operands.iter().copied());
    }
    true
}

impl Shape {
    fn of(function: &Function, spec: &Specialized) -> Option<Shape> {
        let body = &function.body;
        let entry = function.entry;
        if body.op(spec.ws).parent != Some(entry) {
            return None;
        }
        let all = body.walk(entry);
        let count = |opcode: Opcode| all.iter().filter(|&&op| body.opcode(op) == opcode).count();
        if count(Opcode::WarpSpecialize) != 1 || count(Opcode::Return) != 1 {
            return None;
        }
        let ops = &body.blocks[entry].ops;
        let (&last, _) = ops.split_last()?;
        if body.opcode(last) != Opcode::Return || !body.op(last).operands.is_empty() {
            return None;
        }
        let at = body.position(entry, spec.ws);
        // After the partition: its barrier and ring releases (they stay), then the epilogue.
        let mut after = at + 1;
        while after < ops.len() - 1
            && matches!(body.opcode(ops[after]), Opcode::Barrier | Opcode::LocalDealloc)
        {
            after += 1;
        }
        let epilogue = ops[after..ops.len() - 1].to_vec();
        let ring_stack = |op: Op| {
            matches!(body.opcode(op), Opcode::LocalAlloc | Opcode::InitBarriers | Opcode::LocalDealloc)
        };
        if epilogue.iter().any(|&op| body.walk_op(op).into_iter().any(ring_stack)) {
            return None;
        }
        let program_ids: Vec<Op> =
            all.iter().copied().filter(|&op| body.opcode(op) == Opcode::GetProgramId).collect();
        // Before it: what stays (pure, program-independent values, the rings) and what moves.
        let mut moving = Vec::new();
        let mut moving_set = HashSet::new();
        let mut moved_values: HashSet<Value> = HashSet::new();
        for &op in &ops[..at] {
            let data = body.op(op);
            // Tensors move too, even constants: one live across the walk would hold its
            // registers through every program (attention's zero accumulator, 64 per thread,
            // made ptxas serialize the wgmmas).
            let stays = matches!(data.opcode, Opcode::LocalAlloc | Opcode::InitBarriers)
                || (data.opcode.info().effect == Effect::Pure
                    && data.regions.is_empty()
                    && data.opcode != Opcode::GetProgramId
                    && data.results.iter().all(|&r| !body.ty(r).is_tensor())
                    && !data.operands.iter().any(|v| moved_values.contains(v)));
            if stays {
                continue;
            }
            if ring_stack(op) || body.walk_op(op).into_iter().any(ring_stack) {
                return None;
            }
            moving.push(op);
            moving_set.insert(op);
            moved_values.extend(data.results.iter().copied());
        }
        // The producer computes again what it and the staged tiles' copies (which move to it) read
        // of the moving ops (their descriptors, which may depend on the program, and offsets):
        // pure scalars only, from before the partition.
        let [default, producer] = body.op(spec.ws).regions[..] else { return None };
        let offsets: Vec<Value> =
            spec.staged.iter().flat_map(|t| body.op(t.copy).operands[3..].to_vec()).collect();
        let in_consumers = |v: Value| {
            body.def_op(v).is_some_and(|d| body.ancestor_in(default, d).is_some())
                || body.blocks[default].args.contains(&v)
        };
        if offsets.iter().any(|&v| in_consumers(v)) {
            return None;
        }
        let producer_reads: Vec<Value> =
            body.captures(producer).into_iter().chain(offsets).filter(|v| moved_values.contains(v)).collect();
        if !clonable(body, &moving_set, &producer_reads) {
            return None;
        }
        Some(Shape { moving, epilogue, program_ids, moving_set, producer_reads })
    }
}

/// What the two walks share: the launch's grid, the walk's bounds and initial carried values
/// (`cta, programs, ctas`, the ring's slot and phase, each staged tile's phase), and the
/// barrier the consumers hand the staged tiles back on.
struct Walk {
    grid: Vec<Value>,
    inits: Vec<Value>,
    tiles_free: Option<Value>,
    span: crate::ir::Span,
}

fn rewrite(function: &mut Function, spec: &Specialized, shape: Shape, num_warps: u32) {
    let entry = function.entry;
    let body = &mut function.body;
    let span = body.span(spec.ws);
    let i32_ty = Type::scalar(DType::I32);

    // The grid the launch asked for; the CTAs then walk it.
    for op in body.walk(entry) {
        if body.opcode(op) == Opcode::GetNumPrograms {
            body.ops[op].opcode = Opcode::ProgramGrid;
        }
    }
    let at = body.position(entry, spec.ws);
    let mut b = Builder::at(body, entry, at);
    b.span = span;
    // The consumers hand the staged tiles back to the producer once their dots are done with
    // them, on this barrier; it is released first after the partition.
    let tiles_free = (!spec.staged.is_empty()).then(|| {
        let attrs = Attrs::new().with("count", Attr::Int(1)).with("arrivals", Attr::Int(num_warps as i64));
        b.value(Opcode::InitBarriers, vec![], i32_ty.clone(), attrs)
    });
    let axis = |a: i64| Attrs::new().with("axis", Attr::Int(a));
    let grid: Vec<Value> =
        (0..3).map(|a| b.value(Opcode::ProgramGrid, vec![], i32_ty.clone(), axis(a))).collect();
    let plane = b.value(Opcode::MulI, vec![grid[0], grid[1]], i32_ty.clone(), Attrs::new());
    let programs = b.value(Opcode::MulI, vec![plane, grid[2]], i32_ty.clone(), Attrs::new());
    let cta = b.value(Opcode::GetProgramId, vec![], i32_ty.clone(), axis(0));
    let ctas = b.value(Opcode::GetNumPrograms, vec![], i32_ty.clone(), axis(0));
    let mut inits = vec![cta, programs, ctas, spec.first_slot, spec.first_phase];
    inits.extend(spec.staged.iter().map(|_| b.const_int(DType::I32, 0)));
    let walk = Walk { grid, inits, tiles_free, span };

    // The producer first: it clones the moving ops as they are, before the consumers' walk
    // renames their program ids.
    walk_producer(body, spec, &shape, &walk);
    walk_consumers(body, spec, &shape, &walk);
    for &op in &shape.program_ids {
        body.detach_op(op);
    }
    if let Some(free) = tiles_free {
        // Released first after the partition (its barrier, then the ring stack, latest first).
        let at = body.position(entry, spec.ws) + 2;
        let mut b = Builder::at(body, entry, at);
        b.span = span;
        b.op(Opcode::LocalDealloc, vec![free], &[], Attrs::new());
    }
}

/// The producer's walk: per program, the program ids and the scalars its copies read computed
/// again, the staged tiles copied once the consumers gave them back (the flipped parity passes
/// the first time), then its ring loop from where the last program left the ring.
fn walk_producer(body: &mut Body, spec: &Specialized, shape: &Shape, walk: &Walk) {
    let producer = body.op(spec.ws).regions[1];
    let i32_ty = Type::scalar(DType::I32);
    let args = walk_args(body, producer, walk);
    let mut b = Builder::at(body, producer, 0);
    b.span = walk.span;
    let ids = program_ids(&mut b, args[0], &walk.grid);
    let mut renamed = ids_map(b.body, &shape.program_ids, &ids);
    for &v in &shape.producer_reads {
        clone_with(&mut b, &shape.moving_set, v, &mut renamed);
    }
    body.replace_uses(producer, &renamed);
    let mut next_phases = Vec::new();
    if let Some(free) = walk.tiles_free {
        let at = before_last_loop(body, producer);
        let mut b = Builder::at(body, producer, at);
        b.span = walk.span;
        let zero = b.const_int(DType::I32, 0);
        let one = b.const_int(DType::I32, 1);
        for (staged, &phase) in spec.staged.iter().zip(&args[3..]) {
            let flipped = b.value(Opcode::XOrI, vec![phase, one], i32_ty.clone(), Attrs::new());
            b.op(Opcode::WaitBarrier, vec![free, zero, flipped], &[], Attrs::new());
            let data = b.body.op(staged.copy).clone();
            let always = b.const_int(DType::I1, 1);
            let mut operands = vec![data.operands[0], zero, always];
            operands.extend(data.operands[3..].iter().map(|v| renamed.get(v).copied().unwrap_or(*v)));
            b.op(Opcode::AsyncTmaCopyGlobalToLocal, operands, &[], Attrs::new());
            next_phases.push(flipped);
        }
    }
    let copies = body.blocks[producer].ops[before_last_loop(body, producer)];
    let (slot_out, phase_out) = ring_results(body, copies, spec);
    let carried = HashMap::from([(spec.first_slot, args[1]), (spec.first_phase, args[2])]);
    body.replace_uses(producer, &carried);
    let mut b = Builder::at_end(body, producer);
    b.span = walk.span;
    let mut next = vec![slot_out, phase_out];
    next.extend(next_phases);
    b.op(Opcode::Yield, next, &[], Attrs::new());
    wrap_in_walk(body, spec.ws, 1, walk);
}

/// The consumers' walk: per program, the program ids, the code before the partition, their
/// region (its staged tiles waited for in this program's phase), the release of the loop's last
/// slot and of the staged tiles, then the epilogue.
fn walk_consumers(body: &mut Body, spec: &Specialized, shape: &Shape, walk: &Walk) {
    let default = body.op(spec.ws).regions[0];
    let i32_ty = Type::scalar(DType::I32);
    let args = walk_args(body, default, walk);
    for (index, &op) in shape.moving.iter().enumerate() {
        body.detach_op(op);
        body.insert_op(default, index, op);
    }
    let mut b = Builder::at(body, default, 0);
    b.span = walk.span;
    let ids = program_ids(&mut b, args[0], &walk.grid);
    let yield_op = *body.blocks[default].ops.last().expect("the region ends in scf.yield");
    let yielded = body.op(yield_op).operands.clone();
    body.detach_op(yield_op);
    let lp = spec.consumer_loop;
    let (slot_out, phase_out) = ring_results(body, lp, spec);
    let mut b = Builder::at_end(body, default);
    b.span = walk.span;
    if spec.holds_last_slot {
        let (lb, ub) = (b.body.op(lp).operands[0], b.body.op(lp).operands[1]);
        let ran = b.cmpi("slt", lb, ub);
        let count = b.const_int(DType::I32, spec.slots);
        let last = super::ring_step(&mut b, slot_out, spec.slots - 1, count);
        b.op(Opcode::ArriveBarrier, vec![spec.empty, last, ran], &[], Attrs::new());
    }
    if let Some(free) = walk.tiles_free {
        // The loop's dots were all waited for: the staged tiles go back to the producer.
        let zero = b.const_int(DType::I32, 0);
        let always = b.const_int(DType::I1, 1);
        b.op(Opcode::ArriveBarrier, vec![free, zero, always], &[], Attrs::new());
    }
    let results: HashMap<Value, Value> = body.op(spec.ws).results.iter().copied().zip(yielded).collect();
    for &op in &shape.epilogue {
        body.detach_op(op);
        body.append_op(default, op);
    }
    body.replace_uses(default, &results);
    body.ops[spec.ws].results.clear();
    // The producer copies the staged tiles; the consumers wait for each in its program's phase.
    for (staged, &phase) in spec.staged.iter().zip(&args[3..]) {
        body.ops[staged.wait].operands[2] = phase;
        body.detach_op(staged.copy);
    }
    let mut b = Builder::at_end(body, default);
    b.span = walk.span;
    let mut next = vec![slot_out, phase_out];
    let one = b.const_int(DType::I32, 1);
    next.extend(args[3..].iter().map(|&p| b.value(Opcode::XOrI, vec![p, one], i32_ty.clone(), Attrs::new())));
    b.op(Opcode::Yield, next, &[], Attrs::new());
    let renamed = ids_map(body, &shape.program_ids, &ids);
    body.replace_uses(default, &renamed);
    // The ring's position arrives from the previous program.
    let carried = HashMap::from([(spec.first_slot, args[1]), (spec.first_phase, args[2])]);
    body.replace_uses(default, &carried);
    wrap_in_walk(body, spec.ws, 0, walk);
}

/// The position of the last `scf.for` of `block` (where code before the producer's ring loop
/// goes).
fn before_last_loop(body: &Body, block: crate::ir::Block) -> usize {
    let ops = &body.blocks[block].ops;
    ops.iter().rposition(|&op| body.opcode(op) == Opcode::For).unwrap_or(ops.len())
}

/// Gives `block` (a region of the partition, about to become the walk's body) the walk's
/// arguments: the program's linear index, then the carried values (the ring's slot and phase,
/// the staged tiles' phases).
fn walk_args(body: &mut Body, block: crate::ir::Block, walk: &Walk) -> Vec<Value> {
    let i32_ty = Type::scalar(DType::I32);
    (2..walk.inits.len()).map(|_| body.add_block_arg(block, i32_ty.clone())).collect()
}

/// The program ids of linear index `t` in `grid`, `x` fastest.
fn program_ids(b: &mut Builder, t: Value, grid: &[Value]) -> [Value; 3] {
    let i32_ty = Type::scalar(DType::I32);
    let x = b.value(Opcode::RemUI, vec![t, grid[0]], i32_ty.clone(), Attrs::new());
    let rows = b.value(Opcode::DivUI, vec![t, grid[0]], i32_ty.clone(), Attrs::new());
    let y = b.value(Opcode::RemUI, vec![rows, grid[1]], i32_ty.clone(), Attrs::new());
    let z = b.value(Opcode::DivUI, vec![rows, grid[1]], i32_ty, Attrs::new());
    [x, y, z]
}

/// Each `tt.get_program_id` result as the program id of its axis.
fn ids_map(body: &Body, program_ids: &[Op], ids: &[Value; 3]) -> HashMap<Value, Value> {
    program_ids
        .iter()
        .map(|&op| {
            let axis = body.op(op).attrs.int("axis").unwrap_or(0).clamp(0, 2) as usize;
            (body.op(op).results[0], ids[axis])
        })
        .collect()
}

/// The results of loop `lp` that carry the ring's slot and phase (those it starts from
/// `spec.first_slot` and `spec.first_phase`).
fn ring_results(body: &Body, lp: Op, spec: &Specialized) -> (Value, Value) {
    let data = body.op(lp);
    let result_of = |init: Value| {
        let at =
            data.operands[3..].iter().position(|&v| v == init).expect("the loop carries the ring's position");
        data.results[at]
    };
    (result_of(spec.first_slot), result_of(spec.first_phase))
}

/// Puts region `index` of the partition `ws` into the walk's `scf.for`: the region's block
/// becomes the loop's body, and a new block holding the loop the region.
fn wrap_in_walk(body: &mut Body, ws: Op, index: usize, walk: &Walk) {
    let inner = body.op(ws).regions[index];
    let outer = body.new_block(&[]);
    let carried = vec![Type::scalar(DType::I32); walk.inits.len() - 3];
    let attrs = Attrs::new().with("persistent", Attr::Bool(true));
    let lp = body.create_op(Opcode::For, walk.inits.clone(), &carried, attrs, vec![inner], walk.span);
    body.append_op(outer, lp);
    if index == 0 {
        let mut b = Builder::at_end(body, outer);
        b.span = walk.span;
        b.op(Opcode::Yield, vec![], &[], Attrs::new());
    }
    body.ops[ws].regions[index] = outer;
    body.blocks[outer].parent_op = Some(ws);
}
