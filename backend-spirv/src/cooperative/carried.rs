//! Accumulators that a loop carries in cooperative matrices.
//!
//! A GEMM's K loop, `acc = tl.dot(a, b, acc)`, reads and writes its whole accumulator at every
//! iteration. On the per-dot path (`super::try_dot`) the accumulator lives in the layout's
//! registers and every dot moves all of it through workgroup memory into the subgroups'
//! matrices and back. Where nothing else in the loop reads the accumulator's elements, this
//! backend keeps it in the matrices from the loop's entry to its exit instead:
//!
//! 1. [`find`] picks the loop-carried values that only one `tt.dot` of the loop body reads (as
//!    its accumulator), whose product is only yielded back in the same place, of f16 (or bf16)
//!    operands (the kernel's cooperative operand type).
//! 2. The subgroups form a grid over the accumulator's 16x16 tiles, fixed at compile time
//!    ([`Carried`]): each subgroup owns a block of `block_m x block_n` tiles, the block's place
//!    given by `SubgroupId`. Per 16 of K a subgroup loads `block_m` A tiles and `block_n` B tiles
//!    from the staged operands for `block_m * block_n` products.
//! 3. At the loop's entry ([`enter`]) the dot's staging is reserved (the loop's other dots are
//!    planned beside it) and the initial value becomes the subgroup's matrices: a splat
//!    is one `OpCompositeConstruct` per matrix; any other value goes through the accumulator
//!    stage a band of rows at a time (`super::band_rows`). In the loop the carried value, the
//!    body's argument and the dot's product are matrices ([`Class::Matrix`] registers, one per
//!    tile of the subgroup's block), carried through function variables of the matrix type as any
//!    other carried register is (`control.rs`).
//! 4. The dot ([`product`]) stages A and B as the per-dot path does, and multiplies into the
//!    matrices; no accumulator element moves.
//! 5. At the loop's exit ([`leave`]) the matrices go back to the layout's registers through the
//!    stage, band by band, and the loop's result is what the TTGIR says from there on.
//!
//! Flash attention rescales its output accumulator before every dot,
//! `acc = tl.dot(p, v, acc * alpha[:, None])`: the loop reads the accumulator's elements once,
//! to multiply each row by a factor. Where the device runs per-element operations on matrices
//! (`VK_NV_cooperative_matrix2`, [`Options::cooperative_matrix_per_element`]) such a scaling
//! ([`RowScale`]) keeps the accumulator carried too: [`scale`] writes the factors to the stage
//! and multiplies each matrix in place (`OpCooperativeMatrixPerElementOpNV` calling a function
//! that reads its rows' factors), and the ops that only spread the factors over the
//! accumulator's shape are not lowered. (H100, NVIDIA's Vulkan: flash attention d64 54.6 -> 73.6
//! TFLOP/s, d128 51.9 -> 85.5, causal d64 53.4 -> 67.3, d128 48.2 -> 70.0.)
//!
//! The TTGIR is not changed: wherever code reads the accumulator's elements, they are in the
//! layout its type names. The matrices are how this backend stores the value in between, an
//! instruction-level choice as register allocation is.
//!
//! Expects: a module that declares the Vulkan memory model (`super::may_use`) on a device whose
//! subgroups have one fixed size ([`Options::subgroup_size`]), the workgroup whole subgroups.

use rustc_hash::FxHashMap;

use rspirv::spirv::{Op, Word};
use trident_midend::codegen::dot::DotOp;
use trident_midend::codegen::Isa;
use trident_midend::ir::{DType, Function, Op as IrOp, Opcode, Value};
use trident_midend::layout::registers::{Affine, LayoutInfo};
use trident_midend::passes::uses::UseCounts;

use super::{
    a_stride, band_elements, band_rows, chunk_of_k, element_pointer, operands, reserve, splat_value,
    stage_operands, stage_stride, takes_matrices, BStaging, Need, Staging, TILE,
};
use crate::emit::{EResult, Emitter};
use crate::spirv::{Class, Reg, MATRIX_A_USE, MATRIX_B_USE};
use crate::Options;

/// The most matrices one subgroup carries: 16 f32 tiles are 128 registers of each invocation
/// (on 32-wide subgroups), beside the operand tiles; more would spill.
const MAX_MATRICES: i64 = 16;

/// How a carried accumulator of `m x n` is split among the subgroups and staged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Carried {
    m: i64,
    n: i64,
    /// How B is staged, and the chunk of K staged at a time (`b.chunk`).
    b: BStaging,
    /// Rows of the accumulator staged at a time at the loop's entry and exit.
    band: i64,
    /// Subgroups along N: subgroup `s` owns the block at tile row `(s / grid_n) * block_m` and
    /// tile column `(s % grid_n) * block_n`.
    grid_n: i64,
    /// Tiles of a subgroup's block along M and N; its matrices are in row-major order.
    block_m: i64,
    block_n: i64,
}

/// A loop-carried accumulator that may stay in matrices: the dot that reads it, directly or
/// through a scaling of its rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    pub dot: IrOp,
    pub scale: Option<RowScale>,
}

/// `acc * rows[:, None]` between a carried accumulator and its dot (flash attention's rescaling
/// of its output by `alpha`): an `arith.mulf` of the accumulator by a broadcast of the
/// expanded 1-D tensor `rows`, one factor per row (layout conversions between them allowed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowScale {
    /// The `arith.mulf`.
    pub op: IrOp,
    /// Its other operand's source: M f32 factors.
    pub rows: Value,
    /// The ops from `rows` to the product's operand (expand, conversions, broadcast) that
    /// nothing else reads: where the accumulator is carried they are not lowered.
    pub spread: Vec<IrOp>,
}

/// The loop-carried values (the loop bodies' arguments) that only a `tt.dot` of `operand`s (the
/// kernel's cooperative operand type) in the same body reads, as its accumulator, and whose
/// product the body only yields back to the same argument; each with its dot. `uses`: the
/// function's use counts. Where `scales` (the device runs per-element operations on matrices:
/// [`Options::cooperative_matrix_per_element`]), the dot may read the value through a
/// [`RowScale`] that nothing else reads, instead of directly. Where `tf32`, a dot of f32
/// operands at tf32 precision counts too (for the workgroup path, which may split it:
/// `super::tf32_split`; the subgroup path has no f32 matrices).
pub fn find(
    func: &Function,
    uses: &UseCounts,
    operand: DType,
    scales: bool,
    tf32: bool,
) -> FxHashMap<Value, Accumulator> {
    let body = &func.body;
    let mut found = FxHashMap::default();
    for op in body.walk(func.entry) {
        if body.opcode(op) != Opcode::For {
            continue;
        }
        let block = &body.blocks[body.op(op).regions[0]];
        let Some(&terminator) = block.ops.last() else { continue };
        let yielded = &body.op(terminator).operands;
        for &dot in &block.ops {
            let data = body.op(dot);
            if data.opcode != Opcode::Dot {
                continue;
            }
            let (c, product) = (data.operands[2], data.results[0]);
            let takes = data.operands[..2]
                .iter()
                .all(|&value| super::matrix_type(body.ty(value).dtype()) == Some(operand))
                || (tf32 && super::tf32_split::is_tf32_dot(func, dot));
            let (acc, scale) = match row_scale(func, uses, c, &block.args).filter(|_| scales) {
                Some((acc, scale)) => (acc, Some(scale)),
                None => (c, None),
            };
            // Argument 0 is the induction variable; argument i + 1 is carried value i.
            let Some(position) = block.args.iter().position(|&arg| arg == acc) else { continue };
            let yielded_back = position > 0 && yielded.get(position - 1) == Some(&product);
            if takes && yielded_back && uses.get(acc) == 1 && uses.get(product) == 1 {
                found.insert(acc, Accumulator { dot, scale });
            }
        }
    }
    found
}

/// Where `c` (a dot's accumulator operand, read by nothing else) is `arg * broadcast(expand_dims(
/// rows, 1))` for one of the loop body's `args`: that argument and the scaling.
fn row_scale(func: &Function, uses: &UseCounts, c: Value, args: &[Value]) -> Option<(Value, RowScale)> {
    let body = &func.body;
    let op = body.def_op(c)?;
    let data = body.op(op);
    if data.opcode != Opcode::MulF || uses.get(c) != 1 {
        return None;
    }
    // factor = broadcast(convert_layout*(expand_dims(rows, 1))), each read only by the next.
    let rows_of = |factor: Value| -> Option<(Value, Vec<IrOp>)> {
        let only = |v: Value, opcode: Opcode| {
            body.def_op(v).filter(|&d| body.opcode(d) == opcode && uses.get(v) == 1)
        };
        let broadcast = only(factor, Opcode::Broadcast)?;
        let mut spread = vec![broadcast];
        let mut expanded = body.op(broadcast).operands[0];
        while let Some(convert) = only(expanded, Opcode::ConvertLayout) {
            spread.push(convert);
            expanded = body.op(convert).operands[0];
        }
        let expand = only(expanded, Opcode::ExpandDims)?;
        spread.push(expand);
        let expand = body.op(expand);
        let rows = expand.operands[0];
        let (&[m], &[m_c, _]) = (body.ty(rows).shape(), body.ty(c).shape()) else { return None };
        let f32_rows = body.ty(rows).dtype() == DType::F32 && m == m_c;
        (expand.attrs.int("axis") == Some(1) && f32_rows).then_some((rows, spread))
    };
    let (x, y) = (data.operands[0], data.operands[1]);
    [(x, y), (y, x)].into_iter().find_map(|(acc, factor)| {
        let (rows, spread) = args.contains(&acc).then(|| rows_of(factor)).flatten()?;
        Some((acc, RowScale { op, rows, spread }))
    })
}

/// The split and staging of `dot`'s accumulator, where a loop can carry it in matrices.
fn plan(e: &Emitter, dot: &DotOp) -> Option<Carried> {
    if !takes_matrices(e, dot) {
        return None;
    }
    let subgroups = subgroups(e.options)?;
    let (tiles_m, tiles_n) = (dot.m / TILE, dot.n / TILE);
    if (tiles_m * tiles_n) % subgroups != 0 || tiles_m * tiles_n / subgroups > MAX_MATRICES {
        return None;
    }
    // The grid whose blocks load the fewest operand tiles per product (the squarest blocks).
    let grid_n = (1..=subgroups)
        .filter(|&grid_n| {
            subgroups % grid_n == 0 && tiles_n % grid_n == 0 && tiles_m % (subgroups / grid_n) == 0
        })
        .min_by_key(|&grid_n| tiles_m / (subgroups / grid_n) + tiles_n / grid_n)?;
    let band = band_rows(dot)?;
    let b_of = BStaging::of(dot);
    let chunk = chunk_of_k(e, dot, |chunk| Need::of(dot.m, b_of(chunk), band))?;
    let b = b_of(chunk);
    Some(Carried {
        m: dot.m,
        n: dot.n,
        b,
        band,
        grid_n,
        block_m: tiles_m / (subgroups / grid_n),
        block_n: tiles_n / grid_n,
    })
}

/// The subgroups of a workgroup, where their size is fixed.
fn subgroups(options: &Options) -> Option<i64> {
    let threads = options.threads_per_warp * options.num_warps;
    let size = options.subgroup_size;
    (size > 0 && threads.is_multiple_of(size)).then(|| i64::from(threads / size))
}

/// At the entry of a loop whose body argument `arg` is carried in matrices (one [`find`]
/// found, with a plan): records the plan for its dot and turns `init`, the initial value's
/// registers, into the subgroup's matrices. Returns the plan ([`leave`] takes it at the exit),
/// or `None` where the value stays in registers.
pub fn enter(e: &mut Emitter, arg: Value, init: &mut Vec<Reg>) -> EResult<Option<Carried>> {
    let Some(dot_op) = e.carried_dots.get(&arg).map(|carried| carried.dot) else { return Ok(None) };
    let dot = DotOp::read(e, dot_op)?;
    let Some(carried) = plan(e, &dot) else { return Ok(None) };
    e.carried_plans.insert(dot.result, carried);
    // The dot's staging, reserved now: the loop's other dots are planned before it is lowered,
    // and must fit beside it.
    reserve(e, Need::of(carried.m, carried.b, carried.band));
    let count = (carried.block_m * carried.block_n) as usize;
    let matrix = e.s.ty(Class::Matrix);
    if let Some(value) = splat_value(init) {
        // A splat: every element of every matrix is the one value.
        let id = e.s.inst(Op::CompositeConstruct, matrix, &[value]);
        *init = vec![Reg { id, class: Class::Matrix }; count];
        return Ok(Some(carried));
    }
    let staging = reserve(e, Need::stage_only(carried.n, carried.band));
    let vars: Vec<Word> = (0..count).map(|_| e.s.var(Class::Matrix)).collect();
    let layout = dot.c_layout.clone();
    for_each_band(e, carried, staging, Direction::ToMatrices, |e, step| match step {
        Step::Rows(first_row) => {
            // The rows' registers into the stage.
            for (i, pointer) in band_elements(e, staging, &layout, carried.n, first_row, carried.band) {
                e.s.store_shared(pointer, init[i].id);
            }
        }
        Step::Tile { index, in_band, stage_at } => {
            let merge = e.s.begin_if(in_band);
            let loaded = staging.load_stage_tile(e, stage_at, carried.n, matrix);
            e.s.store(vars[index], loaded);
            e.s.end_if(merge);
        }
    });
    *init = vars.iter().map(|&var| e.s.load(Class::Matrix, var)).collect();
    Ok(Some(carried))
}

/// At the exit of the loop: the subgroup's `matrices` back in the registers of `layout` (the
/// loop result's), through the stage a band of rows at a time.
pub fn leave(e: &mut Emitter, carried: Carried, matrices: &[Reg], layout: &LayoutInfo) -> Vec<Reg> {
    let staging = reserve(e, Need::stage_only(carried.n, carried.band));
    let mut out = vec![Reg { id: 0, class: Class::F32 }; layout.num_regs()];
    for_each_band(e, carried, staging, Direction::ToRegisters, |e, step| match step {
        Step::Tile { index, in_band, stage_at } => {
            let merge = e.s.begin_if(in_band);
            staging.store_stage_tile(e, stage_at, carried.n, matrices[index].id);
            e.s.end_if(merge);
        }
        Step::Rows(first_row) => {
            // The rows' registers from the stage.
            for (i, pointer) in band_elements(e, staging, layout, carried.n, first_row, carried.band) {
                out[i] = e.s.load_shared(Class::F32, pointer);
            }
        }
    });
    out
}

/// Which way [`for_each_band`] moves the accumulator.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    ToMatrices,
    ToRegisters,
}

/// One step of [`for_each_band`]: the threads' registers of the band at this row, or one
/// matrix of the subgroup (its index, whether its tile lies in the band, a condition uniform in
/// the subgroup, and its first element's index in the stage).
enum Step {
    Rows(i64),
    Tile { index: usize, in_band: Reg, stage_at: Reg },
}

/// Moves the accumulator through the stage a band of rows at a time. Each band: a barrier (the
/// stage is free), then the rows' registers and the matrices, in `direction`'s order, with a
/// barrier between them.
fn for_each_band(
    e: &mut Emitter,
    carried: Carried,
    staging: Staging,
    direction: Direction,
    mut visit: impl FnMut(&mut Emitter, Step),
) {
    let (row0, col0) = subgroup_origin(e, staging, carried);
    let band_size = e.u32c(carried.band as u32);
    let n = e.u32c(stage_stride(carried.n) as u32);
    for first_row in (0..carried.m).step_by(carried.band as usize) {
        e.barrier();
        if direction == Direction::ToMatrices {
            visit(e, Step::Rows(first_row));
            e.barrier();
        }
        for i in 0..carried.block_m {
            // The tile's first row, relative to the band: in the band when below its size.
            let row = e.add_imm(row0, i * TILE - first_row);
            let in_band = e.s.op(Op::ULessThan, Class::Bool, &[row, band_size]);
            let row_at = e.s.op(Op::IMul, Class::U32, &[row, n]);
            let at = e.add_u32(row_at, col0);
            for j in 0..carried.block_n {
                let stage_at = e.add_imm(at, j * TILE);
                let index = (i * carried.block_n + j) as usize;
                visit(e, Step::Tile { index, in_band, stage_at });
            }
        }
        if direction == Direction::ToRegisters {
            e.barrier();
            visit(e, Step::Rows(first_row));
        }
    }
}

/// The first row and the first column (elements) of the subgroup's block of tiles.
fn subgroup_origin(e: &mut Emitter, staging: Staging, carried: Carried) -> (Reg, Reg) {
    let subgroup = e.s.load(Class::U32, staging.subgroup_id);
    let grid_n = e.u32c(carried.grid_n as u32);
    let grid_row = e.s.op(Op::UDiv, Class::U32, &[subgroup, grid_n]);
    let grid_col = e.s.op(Op::UMod, Class::U32, &[subgroup, grid_n]);
    let rows = e.u32c((carried.block_m * TILE) as u32);
    let cols = e.u32c((carried.block_n * TILE) as u32);
    let row0 = e.s.op(Op::IMul, Class::U32, &[grid_row, rows]);
    let col0 = e.s.op(Op::IMul, Class::U32, &[grid_col, cols]);
    (row0, col0)
}

/// Lowers `op` where it is the [`RowScale`] of an accumulator carried in matrices: the factors
/// go to the accumulator stage (element `r` for row `r`: the stage is idle between dots, and
/// using it adds no workgroup memory where the kernel has the least to spare), and each of the
/// subgroup's matrices is multiplied by them in a per-element operation
/// (`OpCooperativeMatrixPerElementOpNV`, the function given the tile's first row); no
/// accumulator element moves. The ops spreading the factors are lowered to nothing. `Ok(false)`
/// for every other op, and for a scaling whose accumulator stayed in registers (no plan at the
/// loop's entry: its ops are then lowered as any others).
pub fn scale(e: &mut Emitter, op: IrOp) -> EResult<bool> {
    // `carried_scales` maps the product to (accumulator, Some(factors)), and each op spreading
    // the factors to (accumulator, None).
    let Some(&(acc, scaling)) = e.carried_scales.get(&op) else { return Ok(false) };
    if !e.get(acc).is_ok_and(|regs| regs.iter().all(|r| r.class == Class::Matrix)) {
        return Ok(false);
    }
    let Some(rows) = scaling else {
        // A step of spreading the factors over the accumulator's elements, which the scaling
        // does not need.
        return Ok(true);
    };
    let matrices = e.get(acc)?;
    let Some(dot) = e.carried_dots.get(&acc).map(|carried| carried.dot) else { return Ok(false) };
    let product = e.func.body.op(dot).results[0];
    let Some(carried) = e.carried_plans.get(&product).copied() else { return Ok(false) };
    let factors = e.get(rows)?;
    let layout = e.layout(rows)?;
    let mut need = Need::stage_only(carried.n, carried.band);
    need.stage = need.stage.max(carried.m);
    let staging = reserve(e, need);
    // The stage is free once every subgroup is past its previous use, and holds the factors
    // once every thread has written its rows (threads holding copies write the same values).
    e.barrier();
    let f32 = e.s.ty(Class::F32);
    let first = e.affine_base(&layout, &Affine { coeffs: vec![1], offset: 0 });
    for (factor, (coordinate, unique)) in
        factors.iter().zip(layout.reg_coords.iter().zip(layout.unique_registers()))
    {
        if unique {
            let row = e.add_imm(first, i64::from(coordinate[0]));
            let pointer = element_pointer(e, staging.stage, f32, row);
            e.s.store_shared(pointer, factor.id);
        }
    }
    e.barrier();
    let function = e.s.row_scale_function(staging.stage);
    e.s.uses_per_element_operations = true;
    let (row0, _) = subgroup_origin(e, staging, carried);
    let matrix = e.s.ty(Class::Matrix);
    let mut scaled = Vec::with_capacity(matrices.len());
    for (index, m) in matrices.iter().enumerate() {
        let first_row = e.add_imm(row0, index as i64 / carried.block_n * TILE);
        let id = e.s.inst(Op::CooperativeMatrixPerElementOpNV, matrix, &[m.id, function, first_row.id]);
        scaled.push(Reg { id, class: Class::Matrix });
    }
    let result = e.func.body.op(op).results[0];
    e.set(result, scaled);
    Ok(true)
}

/// Lowers `dot` into the matrices its loop carries, where [`enter`] planned it; `Ok(false)`
/// for every other dot.
pub fn product(e: &mut Emitter, dot: &DotOp) -> EResult<bool> {
    let Some(carried) = e.carried_plans.get(&dot.result).copied() else { return Ok(false) };
    let mut matrices = e.get(dot.c)?;
    let count = (carried.block_m * carried.block_n) as usize;
    if matrices.len() != count || matrices.iter().any(|r| r.class != Class::Matrix) {
        return e
            .invalid(format!("a carried accumulator of {} registers, not {count} matrices", matrices.len()));
    }
    let (b_staging, chunk) = (carried.b, carried.b.chunk);
    let chunks = dot.k / chunk;
    let operands = operands(e, dot, chunks)?;
    let staging = reserve(e, Need::of(carried.m, b_staging, carried.band));
    let a_ty = e.s.cooperative_matrix_ty(staging.half, MATRIX_A_USE);
    let b_ty = e.s.cooperative_matrix_ty(staging.half, MATRIX_B_USE);
    let c_ty = e.s.ty(Class::Matrix);
    let (row0, col0) = subgroup_origin(e, staging, carried);
    let a_first = {
        let stride = e.u32c(a_stride(chunk) as u32);
        e.s.op(Op::IMul, Class::U32, &[row0, stride])
    };
    for index in 0..chunks {
        let k0 = index * chunk;
        // This chunk's A and B, once every subgroup is done with the previous chunk's.
        e.barrier();
        stage_operands(e, staging, dot, b_staging, &operands, k0)?;
        e.barrier();
        for step in 0..chunk / TILE {
            let a_tiles: Vec<Word> = (0..carried.block_m)
                .map(|i| {
                    let at = e.add_imm(a_first, i * TILE * a_stride(chunk) + step * TILE);
                    staging.load_a_tile(e, at, a_stride(chunk), a_ty)
                })
                .collect();
            let b_tiles: Vec<Word> = (0..carried.block_n)
                .map(|j| {
                    let col = e.add_imm(col0, j * TILE);
                    staging.load_b_tile(e, b_staging, col, step * TILE, b_ty)
                })
                .collect();
            for (i, &a) in a_tiles.iter().enumerate() {
                for (j, &b) in b_tiles.iter().enumerate() {
                    let c = &mut matrices[i * carried.block_n as usize + j];
                    c.id = e.s.build(|builder| {
                        builder.cooperative_matrix_mul_add_khr(c_ty, None, a, b, c.id, None)
                    });
                }
            }
        }
    }
    e.set(dot.result, matrices);
    Ok(true)
}
