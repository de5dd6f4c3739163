//! A GEMM's K loop on workgroup-scope cooperative matrices (`VK_NV_cooperative_matrix2`), its
//! operand tiles loaded straight from the storage buffers and its result stored as one matrix.
//!
//! The subgroup-scope path (`super::carried`) stages A and B through workgroup memory itself and
//! splits the accumulator into the subgroups' 16x16 tiles. A workgroup-scope matrix is the whole
//! `BM x BN` tile of the program, and the driver stages its operands itself: written by hand on
//! an H100, such a loop ran a 4096^3 f16 GEMM at 281 TFLOP/s against the staged path's 195
//! (`runtime/examples/workgroup_matrix_gemm.rs`). This module lowers the TTGIR loop
//!
//! ```text
//! acc = zeros
//! for k:  a = tt.load(a_ptrs, a_mask, 0)          // BM x BK, strided
//!         b = tt.load(b_ptrs, b_mask, 0)          // BK x BN, strided
//!         acc = tt.dot(a, b, acc)
//! tt.store(c_ptrs, acc.to(c), c_mask)             // BM x BN, strided
//! ```
//!
//! as one accumulator matrix carried by the loop, one A and one B matrix loaded per iteration and
//! one `OpCooperativeMatrixMulAddKHR`, and a store of the (converted) accumulator. The pointer
//! tensors and masks are read as strided tiles (`trident_midend::analysis::strided_tiles`): the
//! tile's origin is any register of the pointer tensor minus its coordinate times the strides
//! (every thread computes the same value), and the mask's extents are the bounds minus the
//! origin's index along each dimension. A tile is *whole* when it lies in bounds with its origin
//! and row stride 16-byte aligned: it then moves with one `OpCooperativeMatrixLoadKHR` (or store)
//! through the binding's `uvec4` view, with the row stride; else as a slice of a tensor layout
//! whose dimensions are the mask's extents (`SPV_NV_tensor_addressing`): what lies outside reads
//! as zero and is not stored, which is what the masked load's `other = 0` and the masked store
//! do.
//!
//! # Three loops
//!
//! The loop is emitted three times (`Version`, `control.rs`'s `versioned_gemm`):
//!
//! ```text
//! all_whole = true
//! for k (stepped, DontUnroll):  all_whole &= whole(A tile) && whole(B tile)   // the survey
//! if all_whole:
//!     for i < trips (counted, no loop control):  a, b = strided loads; acc = a * b + acc
//! else:
//!     for k (stepped):  a, b = whole? strided : tensor slice; acc = a * b + acc
//! ```
//!
//! The survey computes only the tiles' scalars (no load, no product); its cost is a few scalar
//! instructions an iteration. The loop that runs when every tile is whole has no test in its
//! body and the counted form, and only then does NVIDIA's driver unroll it and issue each
//! iteration's loads during the previous one's products, as it does for a hand-written kernel
//! (`runtime/examples/workgroup_matrix_gemm.rs`). The loop's body may therefore only compute:
//! a loop that writes memory (a store, an atomic, a print) is not planned.
//!
//! # Row strides as specialization constants
//!
//! The driver moves a row 16 bytes at a time only when the row stride is a constant: with the
//! stride a uniform value its strided loads read 2 bytes at a time (`LDG.E.U16`), whatever view
//! they go through. Each 32-bit integer parameter that is the row stride of a planned tile
//! (`Gemms::specialized`) is therefore an `OpSpecConstant` with its uniform word as `SpecId`
//! (`Artifact::specialized_words`); the runtime writes the launch's values in when it creates the
//! pipeline (`crate::specialize`: one pipeline per set of strides).
//!
//! # The workgroup's size
//!
//! A kernel that is only its GEMMs (every op a layout would lower is planned here, or a
//! constant, a splat, a planned loop) leaves the workgroup's size to the backend: the driver
//! spreads the matrices over whatever invocations there are. Such a kernel whose tile gives each
//! invocation fewer than 128 accumulator elements on its `num_warps` warps runs on fewer, down to
//! four warps (`narrowed_invocations`): 128x128 tiles on eight warps ran at 183 TFLOP/s on the
//! H100 and at 280 on four.
//!
//! Taken where (besides a device with the matrices, f16 or bf16 operands, or f32 ones at tf32
//! precision where the device can split them into bf16 products (`super::tf32_split`: their tiles
//! are then f32 accumulator-use matrices), and a shape whose dimensions are multiples of a
//! granule the device lists for the workgroup's size): the loop
//! carries the accumulator and only its dot reads it (`super::carried::find`), starting from a
//! splat constant, and writes no memory; A and B are loads in the loop body read only by the
//! dot, through row-major strided pointers (unit stride along columns, a positive row stride),
//! with masks that keep a leading block of each dimension and zero (or no) `other`; the loop's
//! result is read once, by a store of such a tile, directly or through one `arith.truncf`. No
//! buffer is windowed. The rest of the kernel does not change: the pointer and mask tensors are
//! still computed (the driver drops the registers nothing reads), and the TTGIR is left as it is.
//!
//! A kernel with no such GEMM whose every float tensor fits a matrix (flash attention) is planned
//! by `super::workgroup_region` into the same [`Gemms`]: its loops are emitted the same three
//! ways, its tiles are [`Tile`]s (column-major ones too: `k.T`, a load through a transposing
//! tensor view where it is not whole), and its other ops take that module's roles.
//!
//! Expects: row strides that are non-negative at run time, as every GEMM's are: a tensor
//! layout's strides are unsigned, and the uniform test does not look at the sign.
//!
//! # Measured
//!
//! H100, NVIDIA's Vulkan driver 580 (2026-11-27), the corpus' 4096^3 GEMMs: fp16 280.4 TFLOP/s
//! (193.1 on subgroup-scope matrices), bf16 279.8 (183.6), the persistent GEMM 277.9 (193.8),
//! the bf16 pointer-cast GEMM 173.5 (164.5); Triton 3.6 on CUDA 659-680. The spirv ci corpus
//! passes with them (117/0). The SASS (`scripts/vulkan_sass.py`) shows the difference: the
//! driver's `HMMA.16816` with `LDSM` from its staging either way; in the fast loop the next
//! tiles' `LDG.E.128` are issued among the products. Each of the three conditions alone was not
//! enough (the corpus' fp16 GEMM, the module patched by hand): with the per-iteration test in
//! the loop, 161-197; in the stepped form (`k < K` by 64, even without `DontUnroll`), 199; with
//! the strides uniform values, 43-69. Tensor slices alone (no strided loads) ran 149-157 even
//! with constant strides. Tried and dropped: the loop of whole tiles two iterations a trip, the
//! first product emitted after the second iteration's loads (as the hand-written kernel's fastest
//! variant does, 302 there): fp16 279.2 -> 284.8, the persistent GEMM 277.2 -> 286.4, for a
//! second form of the loop.
//!
//! The same kernel at other tiles (H100, 2026-11-27, 4096^3 fp16): 128x256x64 on eight warps
//! 280.6 TFLOP/s, 128x128x64 on four 279.5, 128x256x32 189.0, 256x128x64 110.0, 128x256x128
//! 69.0, 256x256x64 35.0. The driver multiplies with `HMMA` (mma.sync) whatever the workgroup
//! (four warps too), against Triton's 660 on `wgmma`.
//!
//! What bounds it (H100, 2026-11-28) is the driver's staging, not the products: a loop of
//! products on matrices that stay in registers runs at 635-654 TFLOP/s through the same driver
//! (`runtime/examples/cooperative_matrix_peak.rs`, workgroup and subgroup scope alike; CUDA's
//! `mma.sync` 634-668, `scripts/gemm_probe/mma_sync_peak.cu`). Its loop stages A and B through
//! registers into one buffer of workgroup memory (`LDG`, `STS`, `LDSM`) with four barriers a
//! step; even with every program reading the same tiles (no traffic past L2) the hand-built GEMM
//! runs at 325-344, with its own tiles 281-301. Vulkan has no asynchronous copies and gives a
//! workgroup 48 KiB, so a kernel staging its own operands does no better
//! (`runtime/examples/subgroup_matrix_gemm.rs`: two stages, loads up to four steps ahead, 256 at
//! best). Triton 3.6 itself on `mma.sync` (`DISABLE_MMA_V3=1`: `cp.async` into two stages of
//! 48 KiB) runs the corpus' fp16 and bf16 GEMMs at 408 TFLOP/s, 0.62 of its `wgmma` ones.
//!
use rustc_hash::{FxHashMap, FxHashSet};

use rspirv::spirv::{self, Op, Word};
use trident_midend::analysis::strided_tiles::{mask_terms, strides, MaskTerm, Stride};
use trident_midend::codegen::Isa;
use trident_midend::ir::{Attr, DType, Effect, Function, Op as IrOp, Opcode, Value, ValueDef};

use crate::emit::{EResult, Emitter, View};
use crate::spirv::{Class, Reg, WorkgroupMatrix, ACCUMULATOR_USE, MATRIX_A_USE, MATRIX_B_USE};
use crate::{MatrixGranule, Options, Storage16Bit, WorkgroupMatrices};

/// What an op of a planned GEMM becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `tt.load` of A or B: a matrix of this shape and use.
    Operand(WorkgroupMatrix),
    /// `tt.load` of a tile that only a `tt.trans` reads: the transposed tile loaded as this
    /// matrix (the `tt.trans` is then a [`Role::Spread`] of it).
    TransposedOperand(WorkgroupMatrix),
    /// `tt.dot`: one multiply-add into the carried accumulator.
    Product,
    /// `arith.truncf` of the loop's result: the matrix converted.
    Convert(WorkgroupMatrix),
    /// `tt.store` of the result: the matrix stored.
    Store,
    /// An elementwise float op of a region (`super::workgroup_region`): its result is this
    /// matrix.
    Elementwise(WorkgroupMatrix),
    /// `tt.reduce` along the rows of a region's matrix: its result is this matrix (each row's
    /// value spread over it).
    ReduceRows(WorkgroupMatrix),
    /// `tt.expand_dims`, `tt.broadcast` or `ttg.convert_layout` in a region: the operand's
    /// matrix, widened to this one where a row vector is broadcast.
    Spread(WorkgroupMatrix),
    /// Lowered to nothing: computes tensors that only the addresses and masks of the matrices'
    /// loads and stores read (those take their origins and extents from the scalars the tensors
    /// are built from instead). Left in, a pointer's or a mask's layout conversion would still
    /// cost barriers and workgroup memory.
    Unneeded,
}

/// The GEMM loops of a kernel planned for workgroup matrices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Gemms {
    /// The loop bodies' arguments that carry an accumulator, with its matrix.
    pub accumulators: FxHashMap<Value, WorkgroupMatrix>,
    /// What each op of their GEMMs becomes.
    pub roles: FxHashMap<IrOp, Role>,
    /// The kernel's 32-bit integer parameters that are row strides of the planned tiles: the
    /// module reads them as specialization constants (`Artifact::specialized_words`), so that
    /// the driver knows the rows' alignment (see the module docs).
    pub specialized: FxHashSet<Value>,
    /// The workgroup's invocations, where the GEMMs leave the kernel no op whose lowering
    /// depends on them and the tile wants fewer than `num_warps` gives ([`narrowed_invocations`]);
    /// `None`: `num_warps` warps.
    pub invocations: Option<u32>,
}

/// Which form of a planned GEMM loop is being emitted (a loop that carries a workgroup
/// accumulator is emitted three times, see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Version {
    /// Each tile tested as it is loaded: whole and aligned, a strided load; else a tensor slice.
    #[default]
    Checked,
    /// Nothing loaded or multiplied: each tile's test is folded into this function variable
    /// (a bool, true before the loop).
    Survey(Word),
    /// Every tile known whole and aligned: strided loads, nothing tested.
    Whole,
}

/// The GEMM loops of `func` that run on workgroup matrices, where the device has them: each
/// carried accumulator `carried` lists (body argument, dot), read by its dot directly, whose loop
/// has the shape the module docs give.
pub fn find(
    func: &Function,
    options: &Options,
    operand: DType,
    carried: &FxHashMap<Value, super::carried::Accumulator>,
) -> Gemms {
    let mut gemms = Gemms::default();
    let Some(offered) = &options.workgroup_matrices else { return gemms };
    if !options.windowed_buffers.is_empty() || options.storage_16bit == Storage16Bit::Words {
        return gemms;
    }
    let body = &func.body;
    let mut readers: FxHashMap<Value, Vec<IrOp>> = FxHashMap::default();
    for op in body.walk(func.entry) {
        for &v in &body.op(op).operands {
            readers.entry(v).or_default().push(op);
        }
    }
    let only_reader = |v: Value| match readers.get(&v).map(Vec::as_slice) {
        Some(&[op]) => Some(op),
        _ => None,
    };
    let invocations = options.threads_per_warp * options.num_warps;
    for (&accumulator, super::carried::Accumulator { dot, scale }) in carried {
        let dot = *dot;
        if scale.is_some() {
            continue;
        }
        let plan = || -> Option<(WorkgroupMatrix, Vec<(IrOp, Role)>)> {
            let data = body.op(dot);
            let (a, b) = (data.operands[0], data.operands[1]);
            let (&[m, k], &[_, n]) = (body.ty(a).shape(), body.ty(b).shape()) else { return None };
            let fits = |g: &crate::MatrixGranule| {
                g.operand == operand
                    && g.accumulator == DType::F32
                    && g.invocations == invocations
                    && m % g.m == 0
                    && n % g.n == 0
                    && k % g.k == 0
            };
            if !offered.granules.iter().any(fits) || m.max(n).max(k) > offered.max_dimension {
                return None;
            }
            // f16 or bf16 operands into an f32 accumulator (not `out_dtype=tl.float16`), or f32
            // ones at tf32 precision split into bf16 parts (`super::tf32_split`), whose tiles are
            // loaded as f32 accumulator-use matrices and which K must then fit as columns.
            let accumulates_f32 = body.ty(data.results[0]).dtype() == DType::F32;
            let (a_matrix, b_matrix) = operand_matrices((m, k, n), DType::F32);
            let split = operand == super::tf32_split::PARTS
                && options.splits_tf32_dots()
                && super::tf32_split::is_tf32_dot(func, dot)
                && offered
                    .granules
                    .iter()
                    .any(|g| fits(g) && granule_holds(g, &a_matrix) && granule_holds(g, &b_matrix));
            let operands_right = body.ty(a).dtype() == operand && body.ty(b).dtype() == operand;
            if !(operands_right || split) || !accumulates_f32 {
                return None;
            }
            let tile_load = |v: Value| -> Option<IrOp> {
                let load = body.def_op(v)?;
                (is_tile_load(func, load)
                    && body.op(load).parent == data.parent
                    && only_reader(v) == Some(dot))
                .then_some(load)
            };
            let (a_load, b_load) = (tile_load(a)?, tile_load(b)?);
            // The loop's result, its initial value, and what reads the result.
            let ValueDef::Arg(block, index) = body.values[accumulator].def else { return None };
            let lp = body.blocks[block].parent_op?;
            // The loop is emitted three times (see `Version`): its body may only compute.
            if writes_memory(func, block) {
                return None;
            }
            let index = index as usize;
            let init = *body.op(lp).operands.get(2 + index)?;
            if !is_float_splat(func, init) {
                return None;
            }
            let result = *body.op(lp).results.get(index - 1)?;
            let mut stored = result;
            let mut reader = only_reader(result)?;
            let mut convert = None;
            if body.opcode(reader) == Opcode::TruncF {
                convert = Some(reader);
                stored = body.op(reader).results[0];
                reader = only_reader(stored)?;
            }
            let store = body.op(reader);
            let c = body.ty(stored).dtype();
            let converts_right = match convert {
                Some(_) => matches!(c, DType::F16 | DType::BF16),
                None => c == DType::F32,
            };
            if store.opcode != Opcode::Store
                || store.operands.get(1) != Some(&stored)
                || !converts_right
                || !is_tile(func, store.operands[0], store.operands.get(2).copied())
            {
                return None;
            }
            let matrix = WorkgroupMatrix { rows: m, cols: n, usage: ACCUMULATOR_USE, component: DType::F32 };
            let (a_matrix, b_matrix) = operand_matrices((m, k, n), if split { DType::F32 } else { operand });
            let mut roles = vec![
                (a_load, Role::Operand(a_matrix)),
                (b_load, Role::Operand(b_matrix)),
                (dot, Role::Product),
                (reader, Role::Store),
            ];
            if let Some(convert) = convert {
                roles.push((convert, Role::Convert(WorkgroupMatrix { component: c, ..matrix })));
            }
            Some((matrix, roles))
        };
        if let Some((matrix, roles)) = plan() {
            gemms.accumulators.insert(accumulator, matrix);
            gemms.roles.extend(roles);
        }
    }
    let region = gemms.accumulators.is_empty();
    if region {
        if let Some(region) = super::workgroup_region::plan(func, options, offered, operand, &readers) {
            gemms.accumulators = region.accumulators;
            gemms.roles = region.roles;
        }
    }
    for (&op, &role) in &gemms.roles {
        if matches!(role, Role::Operand(_) | Role::TransposedOperand(_) | Role::Store) {
            let address = body.op(op).operands[0];
            for stride in strides(body, address).into_iter().flatten() {
                let Stride::Scaled(stride, _) = stride else { continue };
                if func.params().contains(&stride) && body.ty(stride).dtype().bits() == 32 {
                    gemms.specialized.insert(stride);
                }
            }
        }
    }
    let unneeded = unneeded_addresses(func, &readers, &gemms.roles);
    gemms.roles.extend(unneeded.into_iter().map(|op| (op, Role::Unneeded)));
    if !region {
        gemms.invocations = narrowed_invocations(func, options, offered, operand, &gemms);
    }
    gemms
}

/// Accumulator elements an invocation holds at least, where the workgroup can be narrowed to
/// keep them (see [`narrowed_invocations`]).
const ACCUMULATOR_ELEMENTS_PER_INVOCATION: u32 = 128;

/// The fewest invocations a workgroup is narrowed to (see [`narrowed_invocations`]).
const MIN_NARROWED_INVOCATIONS: u32 = 128;

/// The invocations of a kernel whose every op that a layout would lower is part of its planned
/// GEMMs, where fewer than its `num_warps` warps still give each invocation
/// [`ACCUMULATOR_ELEMENTS_PER_INVOCATION`] of the smallest accumulator: the largest workgroup
/// size, from [`MIN_NARROWED_INVOCATIONS`] up, that the device lists a granule of every planned
/// matrix for and that is at most the accumulator's elements over that (else the smallest such
/// size). `None` keeps `num_warps` warps.
///
/// Only such kernels may choose: the layouts the TTGIR carries spread tensors over `num_warps`
/// warps, and a tensor lowered through them needs exactly those invocations. A planned GEMM's
/// matrices are the driver's to spread, its addresses and masks are read from scalars
/// (`Role::Unneeded`), and what remains is thread-independent: constants, splats, the loops and
/// their yields.
///
/// Measured on an H100 (NVIDIA 580, 4096^3 f16, TFLOP/s, `num_warps` warps -> narrowed): 128x128
/// tiles on eight warps 182.7 -> 279.5 (on four from the start: 279.6), the corpus' bf16
/// pointer-cast GEMM (128x128 on eight) 173.4 -> 275.5; 128x256 tiles on eight stay (281).
/// Narrower workgroups were slower where tried: 64x128 and 128x64 tiles from four warps to two
/// 180 -> 72 and 186 -> 56, 64x64x64 to one warp 188 -> 60 (64x64x32: 138 -> 195). A region
/// (`super::workgroup_region`) keeps `num_warps`: flash attention d64 ran the same on 256
/// invocations as on its 128 (194.6 and 193.5).
fn narrowed_invocations(
    func: &Function,
    options: &Options,
    offered: &WorkgroupMatrices,
    operand: DType,
    gemms: &Gemms,
) -> Option<u32> {
    let body = &func.body;
    // The loops that carry the accumulators (whose bodies' arguments they are).
    let gemm_loops: FxHashSet<IrOp> = gemms
        .accumulators
        .keys()
        .filter_map(|&arg| match body.values[arg].def {
            ValueDef::Arg(block, _) => body.blocks[block].parent_op,
            _ => None,
        })
        .collect();
    let is_tensor = |v: &Value| body.ty(*v).is_tensor();
    let layout_free = body.walk(func.entry).into_iter().all(|op| {
        let data = body.op(op);
        let tensors = data.results.iter().chain(&data.operands).any(is_tensor);
        let owner = data.parent.and_then(|block| body.blocks[block].parent_op);
        !tensors
            || gemms.roles.contains_key(&op)
            || matches!(data.opcode, Opcode::Constant | Opcode::Splat)
            || (data.opcode == Opcode::For && gemm_loops.contains(&op))
            || (data.opcode == Opcode::Yield && owner.is_some_and(|owner| gemm_loops.contains(&owner)))
    });
    if !layout_free {
        return None;
    }
    let invocations = options.threads_per_warp * options.num_warps;
    let matrices: Vec<WorkgroupMatrix> = gemms
        .roles
        .values()
        .filter_map(|role| match *role {
            Role::Operand(m) | Role::Convert(m) => Some(m),
            _ => None,
        })
        .chain(gemms.accumulators.values().copied())
        .collect();
    let mut sizes: Vec<u32> = offered
        .granules
        .iter()
        .filter(|g| g.operand == operand && g.accumulator == DType::F32)
        .filter(|g| (MIN_NARROWED_INVOCATIONS..=invocations).contains(&g.invocations))
        .filter(|g| matrices.iter().all(|m| granule_holds(g, m)))
        .map(|g| g.invocations)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let smallest = gemms.accumulators.values().map(|m| m.rows * m.cols).min()?;
    let wanted = smallest / ACCUMULATOR_ELEMENTS_PER_INVOCATION;
    let chosen = sizes.iter().rev().find(|&&size| size <= wanted).or(sizes.first()).copied()?;
    (chosen < invocations).then_some(chosen)
}

/// The matrices a planned product's A (`m x k`) and B (`k x n`) tiles are loaded as: operands of
/// `component`, or, for f32 (a tf32 product split into bf16 parts: `super::tf32_split`), f32
/// accumulator-use matrices.
fn operand_matrices((m, k, n): (u32, u32, u32), component: DType) -> (WorkgroupMatrix, WorkgroupMatrix) {
    let (a_use, b_use) = match component {
        DType::F32 => (ACCUMULATOR_USE, ACCUMULATOR_USE),
        _ => (MATRIX_A_USE, MATRIX_B_USE),
    };
    (
        WorkgroupMatrix { rows: m, cols: k, usage: a_use, component },
        WorkgroupMatrix { rows: k, cols: n, usage: b_use, component },
    )
}

/// Whether matrix `m`'s sides are multiples of granule `g`'s for its use.
pub(super) fn granule_holds(g: &MatrixGranule, m: &WorkgroupMatrix) -> bool {
    let (rows, cols) = match m.usage {
        MATRIX_A_USE => (g.m, g.k),
        MATRIX_B_USE => (g.k, g.n),
        _ => (g.m, g.n),
    };
    m.rows.is_multiple_of(rows) && m.cols.is_multiple_of(cols)
}

/// The ops whose results only the addresses and masks of `planned` loads and stores read (or
/// other such ops): boolean tensors, and pointer and index tensors of ops [`origin_of`] follows
/// without their registers.
fn unneeded_addresses(
    func: &Function,
    readers: &FxHashMap<Value, Vec<IrOp>>,
    planned: &FxHashMap<IrOp, Role>,
) -> FxHashSet<IrOp> {
    let body = &func.body;
    let mut skipped = FxHashSet::default();
    // Readers come after what they read: from the last op back, each op's readers are decided.
    for op in body.walk(func.entry).into_iter().rev() {
        let data = body.op(op);
        let followed = matches!(
            data.opcode,
            Opcode::Splat
                | Opcode::MakeRange
                | Opcode::Constant
                | Opcode::Broadcast
                | Opcode::ConvertLayout
                | Opcode::ExpandDims
                | Opcode::ExtSI
                | Opcode::AddI
                | Opcode::SubI
                | Opcode::MulI
                | Opcode::AddPtr
        );
        let only_addresses = !data.results.is_empty()
            && data.regions.is_empty()
            && data.results.iter().all(|&r| {
                let ty = body.ty(r);
                ty.is_tensor()
                    && (ty.dtype() == DType::I1 || followed)
                    && readers.get(&r).is_some_and(|readers| {
                        readers.iter().all(|&reader| {
                            let operands = &body.op(reader).operands;
                            let address_of_planned = match planned.get(&reader) {
                                Some(Role::Operand(_) | Role::TransposedOperand(_)) => {
                                    operands[0] == r || operands.get(1) == Some(&r)
                                }
                                Some(Role::Store) => operands[0] == r || operands.get(2) == Some(&r),
                                // A region's select computes its condition from the indices'
                                // origins (`workgroup_region::affine_condition`).
                                Some(Role::Elementwise(_)) => {
                                    body.opcode(reader) == Opcode::Select && operands[0] == r
                                }
                                _ => false,
                            };
                            address_of_planned || skipped.contains(&reader)
                        })
                    })
            });
        if only_addresses {
            skipped.insert(op);
        }
    }
    skipped
}

/// Whether `op` is a `tt.load` of a strided tile ([`is_tile`]) whose masked-off elements read
/// as zero (no `other`, or a zero one), as a matrix load's do.
pub(super) fn is_tile_load(func: &Function, op: IrOp) -> bool {
    let data = func.body.op(op);
    let other_is_zero = data.operands.get(2).is_none_or(|&o| is_zero_constant(func, o));
    data.opcode == Opcode::Load
        && other_is_zero
        && is_tile(func, data.operands[0], data.operands.get(1).copied())
}

/// Whether an op in `block` (nested ones included) writes memory: a loop planned on workgroup
/// matrices is emitted three times (see `Version`), so its body may only compute.
pub(super) fn writes_memory(func: &Function, block: trident_midend::ir::Block) -> bool {
    let body = &func.body;
    body.walk(block)
        .into_iter()
        .any(|op| body.opcode(op).info().effect == Effect::Write && body.opcode(op) != Opcode::Yield)
}

/// Whether `ptr` (with `mask`) addresses a strided tile ([`Layout::of`]) with a mask of leading
/// blocks ([`mask_terms`]).
pub(super) fn is_tile(func: &Function, ptr: Value, mask: Option<Value>) -> bool {
    let body = &func.body;
    let strided = strides(body, ptr).is_some_and(|strides| Layout::of(&strides).is_some());
    strided && mask.is_none_or(|mask| mask_terms(body, mask).is_some())
}

/// How a tile's elements lie in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// Unit stride along columns, the rows `strides[0]` apart (a positive constant or a scalar
    /// times one); a one-dimensional tile is one column of such rows.
    RowMajor,
    /// Unit stride along rows, the columns `strides[1]` apart (a transposed operand: `k.T`).
    ColumnMajor,
}

impl Layout {
    fn of(strides: &[Stride]) -> Option<Layout> {
        let positive = |s: &Stride| match *s {
            Stride::Const(k) => k > 0,
            Stride::Scaled(_, factor) => factor > 0,
        };
        match strides {
            [rows] if positive(rows) => Some(Layout::RowMajor),
            [rows, Stride::Const(1)] if positive(rows) => Some(Layout::RowMajor),
            [Stride::Const(1), cols] if positive(cols) => Some(Layout::ColumnMajor),
            _ => None,
        }
    }
}

/// Whether `v` is a constant zero (integer or float, scalar or splat).
fn is_zero_constant(func: &Function, v: Value) -> bool {
    let Some(def) = func.body.def_op(v) else { return false };
    let value = func.body.op(def).attrs.get("value");
    func.body.opcode(def) == Opcode::Constant
        && (value.and_then(Attr::as_float) == Some(0.0) || value.and_then(Attr::as_int) == Some(0))
}

/// Whether `v` is a float constant (a splat: every element the same).
pub(super) fn is_float_splat(func: &Function, v: Value) -> bool {
    let Some(def) = func.body.def_op(v) else { return false };
    func.body.opcode(def) == Opcode::Constant
        && func.body.op(def).attrs.get("value").and_then(Attr::as_float).is_some()
}

/// At the entry of a loop: where `arg` is a planned accumulator, its initial value (a splat)
/// becomes one matrix. Returns whether it did.
pub fn enter(e: &mut Emitter, arg: Value, init: &mut Vec<Reg>) -> EResult<bool> {
    let Some(&matrix) = e.workgroup.accumulators.get(&arg) else { return Ok(false) };
    if let [r] = init.as_slice() {
        if r.class == Class::WorkgroupMatrix(matrix) {
            // A matrix already (a previous loop's result).
            return Ok(true);
        }
    }
    let Some(&first) = init.first() else { return e.invalid("an accumulator without registers") };
    if init.iter().any(|r| r.id != first.id) || first.class != Class::F32 {
        return e.invalid("a workgroup-matrix accumulator that does not start as a splat");
    }
    let class = Class::WorkgroupMatrix(matrix);
    let ty = e.s.ty(class);
    let id = e.s.inst(Op::CompositeConstruct, ty, &[first.id]);
    *init = vec![Reg { id, class }];
    Ok(true)
}

/// Lowers `op` where it has a role in a planned GEMM; `Ok(false)` for every other op.
pub fn lower(e: &mut Emitter, op: IrOp) -> EResult<bool> {
    let Some(&role) = e.workgroup.roles.get(&op) else { return Ok(false) };
    if role == Role::Unneeded {
        return Ok(true);
    }
    let data = e.func.body.op(op);
    let (operands, result) = (data.operands.clone(), data.results.first().copied());
    if let Version::Survey(_) = e.workgroup_version {
        // The survey only looks at the tiles (their loads test them): what the other ops compute
        // is a zero matrix of its type, which nothing reads but the survey's own ops.
        let matrix = match role {
            Role::Convert(m) | Role::Elementwise(m) | Role::ReduceRows(m) | Role::Spread(m) => Some(m),
            Role::Product => match *e.func.body.ty(result.expect("a dot's result")).shape() {
                [rows, cols] => {
                    Some(WorkgroupMatrix { rows, cols, usage: ACCUMULATOR_USE, component: DType::F32 })
                }
                _ => return e.invalid("a workgroup-matrix product that is not two-dimensional"),
            },
            Role::Operand(_) | Role::TransposedOperand(_) | Role::Store | Role::Unneeded => None,
        };
        if let Some(matrix) = matrix {
            let class = Class::WorkgroupMatrix(matrix);
            let id = e.zero_matrix(class);
            e.set(result.expect("a result"), vec![Reg { id, class }]);
            return Ok(true);
        }
    }
    match role {
        Role::Operand(matrix) => {
            let tile = Tile::read(e, operands[0], operands.get(1).copied(), matrix)?;
            let loaded = tile.load(e, matrix);
            e.set(result.expect("a load's result"), vec![loaded]);
        }
        Role::TransposedOperand(matrix) => {
            let untransposed = WorkgroupMatrix { rows: matrix.cols, cols: matrix.rows, ..matrix };
            let tile = Tile::read(e, operands[0], operands.get(1).copied(), untransposed)?.transposed();
            let loaded = tile.load(e, matrix);
            e.set(result.expect("a load's result"), vec![loaded]);
        }
        Role::Product => {
            let shape = |v: Value| e.func.body.ty(v).shape().to_vec();
            let (&[m, k], &[_, n]) = (shape(operands[0]).as_slice(), shape(operands[1]).as_slice()) else {
                return e.invalid("a workgroup-matrix product of operands that are not matrices");
            };
            let component = e.func.body.ty(operands[0]).dtype();
            let accumulator =
                WorkgroupMatrix { rows: m, cols: n, usage: ACCUMULATOR_USE, component: DType::F32 };
            let (a_matrix, b_matrix) = operand_matrices((m, k, n), component);
            let a = super::workgroup_region::matrix_of(e, operands[0], a_matrix)?;
            let b = super::workgroup_region::matrix_of(e, operands[1], b_matrix)?;
            let c = super::workgroup_region::matrix_of(e, operands[2], accumulator)?;
            let product = if component == DType::F32 {
                super::tf32_split::product(e, a, b, c)?
            } else {
                let class = Class::WorkgroupMatrix(accumulator);
                let ty = e.s.ty(class);
                let id = e.s.build(|builder| {
                    builder.cooperative_matrix_mul_add_khr(ty, None, a.id, b.id, c.id, None)
                });
                Reg { id, class }
            };
            e.set(result.expect("a dot's result"), vec![product]);
        }
        Role::Convert(matrix) => {
            // `arith.truncf` of an f32 matrix (or of a leaf, made one first).
            let source = WorkgroupMatrix { usage: ACCUMULATOR_USE, component: DType::F32, ..matrix };
            let source = super::workgroup_region::matrix_of(e, operands[0], source)?;
            let converted = super::workgroup_region::convert(e, source, matrix)?;
            e.set(result.expect("a conversion's result"), vec![converted]);
        }
        Role::Elementwise(_) | Role::ReduceRows(_) | Role::Spread(_) => {
            super::workgroup_region::lower(e, op, role)?;
        }
        Role::Unneeded => {}
        Role::Store => {
            let value = e.get(operands[1])?[0];
            let Class::WorkgroupMatrix(matrix) = value.class else {
                return e.invalid("a workgroup-matrix store of a value that is no matrix");
            };
            let tile = Tile::read(e, operands[0], operands.get(2).copied(), matrix)?;
            tile.store(e, value);
        }
    }
    Ok(true)
}

/// How deep [`origin_of`] follows operands before it reads a tensor's registers instead.
pub(super) const MAX_DEPTH: u32 = 32;

/// Element (0, ..) of tensor `v` (a strided pointer or index tensor, [`strides`]; a scalar is
/// itself), as a scalar:
/// computed from the scalars the tensor is built from where its ops allow (so the tensor itself
/// need not be lowered: [`Role::Unneeded`]), else from the thread's register 0 minus its
/// coordinates times the strides (every invocation gets the same value).
pub(super) fn origin_of(e: &mut Emitter, v: Value, depth: u32) -> EResult<Reg> {
    // Offsets are taken in 32 bits (as the tiles' byte offsets are).
    let scalar = |e: &mut Emitter, r: Reg| -> Reg {
        match r.class {
            Class::U64 => e.s.op(Op::UConvert, Class::U32, &[r]),
            _ => r,
        }
    };
    let body = &e.func.body;
    if body.ty(v).shape().is_empty() {
        let r = e.get(v)?[0];
        return Ok(scalar(e, r));
    }
    let def = body.def_op(v).filter(|_| depth > 0);
    let operands = def.map(|op| body.op(op).operands.clone()).unwrap_or_default();
    let opcode = def.map(|op| body.opcode(op));
    let depth = depth.saturating_sub(1);
    match opcode {
        Some(Opcode::Splat) if body.ty(operands[0]).shape().is_empty() => {
            let r = e.get(operands[0])?[0];
            return Ok(scalar(e, r));
        }
        Some(Opcode::Constant | Opcode::MakeRange) => {
            let attrs = &body.op(def.expect("an op")).attrs;
            let first = attrs.int(if opcode == Some(Opcode::Constant) { "value" } else { "start" });
            if let Some(first) = first {
                return Ok(e.u32c(first as u32));
            }
        }
        Some(Opcode::Broadcast | Opcode::ConvertLayout | Opcode::ExpandDims | Opcode::ExtSI) => {
            return origin_of(e, operands[0], depth);
        }
        Some(Opcode::AddI | Opcode::SubI | Opcode::MulI | Opcode::AddPtr) => {
            let size = match opcode {
                Some(Opcode::AddPtr) => body.ty(v).dtype().size_bytes() as u32,
                _ => 1,
            };
            let op = match opcode {
                Some(Opcode::SubI) => Op::ISub,
                Some(Opcode::MulI) => Op::IMul,
                _ => Op::IAdd,
            };
            let lhs = origin_of(e, operands[0], depth)?;
            let mut rhs = origin_of(e, operands[1], depth)?;
            if size > 1 {
                let size = e.u32c(size);
                rhs = e.s.op(Op::IMul, Class::U32, &[rhs, size]);
            }
            let r = e.s.op(op, Class::U32, &[lhs, rhs]);
            return Ok(Reg { id: r.id, class: lhs.class });
        }
        _ => {}
    }
    // Register 0 minus its coordinates times the strides.
    let Some(strides) = strides(&e.func.body, v) else {
        return e.invalid("a workgroup-matrix tile that is no longer strided");
    };
    let first = e.get(v)?[0];
    let first = scalar(e, first);
    let layout = e.layout(v)?;
    let mut offset = e.u32c(0);
    for (dim, stride) in strides.into_iter().enumerate() {
        let step = match stride {
            Stride::Const(0) => continue,
            Stride::Const(k) => e.u32c(k as u32),
            Stride::Scaled(s, factor) => {
                let s = e.get(s)?[0];
                let factor = e.u32c(factor as u32);
                e.s.op(Op::IMul, Class::U32, &[s, factor])
            }
        };
        let at = e.coord_regs(&layout, dim)[0];
        let along = e.s.op(Op::IMul, Class::U32, &[at, step]);
        offset = e.add_u32(offset, along);
    }
    if e.ty(v).is_ptr() {
        let size = e.u32c(e.ty(v).dtype().size_bytes() as u32);
        offset = e.s.op(Op::IMul, Class::U32, &[offset, size]);
    }
    let r = e.s.op(Op::ISub, Class::U32, &[first, offset]);
    Ok(Reg { id: r.id, class: first.class })
}

/// A strided tile of one binding as the program addresses it: uniform values, the same in
/// every invocation.
pub(super) struct Tile {
    binding: u32,
    /// The byte offset of element (0, 0) in the binding.
    origin: Reg,
    /// Elements from one row to the next (one column to the next where column-major).
    stride: Reg,
    /// Rows and columns the mask keeps (from the origin; at least 0, perhaps beyond the tile);
    /// one column for a one-dimensional tile.
    rows: Reg,
    cols: Reg,
    /// Rows and columns at the start that a lower bound of the mask leaves out (0 almost always:
    /// a tensor descriptor's `index >= 0` at a negative coordinate), at most `rows` (`cols`).
    skip_rows: Reg,
    skip_cols: Reg,
    /// `stride` in bytes.
    stride_bytes: Reg,
    /// The element's size in bytes.
    size: u32,
    layout: Layout,
}

impl Tile {
    /// Pointer tensor `ptr` with `mask`, as the tile of `matrix`'s shape it addresses (a
    /// one-dimensional `ptr`: the first column of the matrix).
    pub(super) fn read(
        e: &mut Emitter,
        ptr: Value,
        mask: Option<Value>,
        matrix: WorkgroupMatrix,
    ) -> EResult<Tile> {
        let body = &e.func.body;
        let (Some(strides), Some(terms)) =
            (strides(body, ptr), mask.map_or(Some(Vec::new()), |m| mask_terms(body, m)))
        else {
            return e.invalid("a workgroup-matrix tile that is no longer strided");
        };
        let Some(layout) = Layout::of(&strides) else {
            return e.invalid("a workgroup-matrix tile that is neither row- nor column-major");
        };
        let size = e.ty(ptr).dtype().size_bytes() as u32;
        let major = match layout {
            Layout::RowMajor => strides[0],
            Layout::ColumnMajor => strides[1],
        };
        let stride = match major {
            Stride::Const(k) => e.u32c(k as u32),
            Stride::Scaled(v, factor) => {
                let v = e.get(v)?[0];
                let factor = e.u32c(factor as u32);
                e.s.op(Op::IMul, Class::U32, &[v, factor])
            }
        };
        let origin = origin_of(e, ptr, MAX_DEPTH)?;
        let Class::Ptr(binding) = origin.class else {
            return e.invalid("a workgroup-matrix tile whose pointers have no binding");
        };
        // The extents: per dimension, the tile's size or less, the smallest bound minus the
        // origin's index.
        let mut extent = vec![e.u32c(matrix.rows)];
        if strides.len() == 2 {
            extent.push(e.u32c(matrix.cols));
        }
        let mut guard: Option<Reg> = None;
        let mut skip = vec![e.u32c(0); extent.len()];
        for term in terms {
            match term {
                MaskTerm::Below { index, index_axis: _, bound, inclusive, axis } => {
                    // Elements from the origin below the bound: `bound - first` (+1).
                    let count = distance(e, index, bound, inclusive)?;
                    let Some(&before) = extent.get(axis) else {
                        return e.invalid("a workgroup-matrix mask of more dimensions than its tile");
                    };
                    extent[axis] = e.s.ext(crate::spirv::glsl::SMIN, Class::U32, &[before, count]);
                }
                MaskTerm::AtLeast { index, index_axis: _, bound, strict, axis } => {
                    // Elements from the origin before the bound: `bound - first` (+1).
                    let before_bound = distance(e, index, bound, strict)?;
                    let Some(&skipped) = skip.get(axis) else {
                        return e.invalid("a workgroup-matrix mask of more dimensions than its tile");
                    };
                    skip[axis] = e.s.ext(crate::spirv::glsl::SMAX, Class::U32, &[skipped, before_bound]);
                }
                MaskTerm::Uniform(condition) => {
                    let condition = e.get(condition)?[0];
                    guard = Some(match guard {
                        Some(g) => e.s.op(Op::LogicalAnd, Class::Bool, &[g, condition]),
                        None => condition,
                    });
                }
            }
        }
        if extent.len() == 1 {
            extent.push(e.u32c(1));
            skip.push(e.u32c(0));
        }
        let zero = e.u32c(0);
        let mut kept = extent.into_iter().map(|x| {
            let x = e.s.ext(crate::spirv::glsl::SMAX, Class::U32, &[x, zero]);
            match guard {
                Some(g) => e.s.select(g, x, zero),
                None => x,
            }
        });
        let (rows, cols) = (kept.next().expect("rows"), kept.next().expect("columns"));
        let [skip_rows, skip_cols] = [(skip[0], rows), (skip[1], cols)]
            .map(|(skipped, kept)| e.s.ext(crate::spirv::glsl::UMIN, Class::U32, &[skipped, kept]));
        let size_c = e.u32c(size);
        let stride_bytes = e.s.op(Op::IMul, Class::U32, &[stride, size_c]);
        let origin = Reg { id: origin.id, class: Class::U32 };
        Ok(Tile { binding, origin, stride, rows, cols, skip_rows, skip_cols, stride_bytes, size, layout })
    }

    /// The same elements as the tile of the transposed tensor: rows and columns swap, and with
    /// them the layout.
    fn transposed(self) -> Tile {
        let layout = match self.layout {
            Layout::RowMajor => Layout::ColumnMajor,
            Layout::ColumnMajor => Layout::RowMajor,
        };
        Tile {
            rows: self.cols,
            cols: self.rows,
            skip_rows: self.skip_cols,
            skip_cols: self.skip_rows,
            layout,
            ..self
        }
    }

    /// Whether the whole `matrix`-shaped tile is in bounds (nothing skipped at the start either)
    /// with its origin and rows (columns) 16-byte aligned: then it moves through the `uvec4` view
    /// with a stride.
    fn whole(&self, e: &mut Emitter, matrix: WorkgroupMatrix) -> Reg {
        let (m, n) = (e.u32c(matrix.rows), e.u32c(matrix.cols));
        let rows_in = e.s.op(Op::SGreaterThanEqual, Class::Bool, &[self.rows, m]);
        let cols_in = e.s.op(Op::SGreaterThanEqual, Class::Bool, &[self.cols, n]);
        let inside = e.s.op(Op::LogicalAnd, Class::Bool, &[rows_in, cols_in]);
        let either = e.s.op(Op::BitwiseOr, Class::U32, &[self.stride_bytes, self.origin]);
        let fifteen = e.u32c(15);
        let low = e.s.op(Op::BitwiseAnd, Class::U32, &[either, fifteen]);
        let skipped = e.s.op(Op::BitwiseOr, Class::U32, &[self.skip_rows, self.skip_cols]);
        let unaligned_or_skipped = e.s.op(Op::BitwiseOr, Class::U32, &[low, skipped]);
        let zero = e.u32c(0);
        let aligned = e.s.op(Op::IEqual, Class::Bool, &[unaligned_or_skipped, zero]);
        e.s.op(Op::LogicalAnd, Class::Bool, &[inside, aligned])
    }

    /// A pointer to the origin through the `uvec4` view, the matrix layout, and the stride in
    /// the view's elements: the operands of a strided matrix load or store.
    fn vector_access(&self, e: &mut Emitter) -> (Word, Word, Word) {
        let four = e.u32c(4);
        let index = e.s.op(Op::ShiftRightLogical, Class::U32, &[self.origin, four]);
        let pointer = e.buffer_view_ptr(self.binding, View::Words4, index);
        let stride = e.s.op(Op::ShiftRightLogical, Class::U32, &[self.stride_bytes, four]);
        let layout = match self.layout {
            Layout::RowMajor => spirv::CooperativeMatrixLayout::RowMajorKHR,
            Layout::ColumnMajor => spirv::CooperativeMatrixLayout::ColumnMajorKHR,
        };
        let layout = e.s.const_u32(layout as u32);
        (pointer, layout, stride.id)
    }

    /// A pointer to the origin through the view of `component` elements, the tensor layout of
    /// the kept rows and columns sliced to the tile, and for a column-major tile the view that
    /// transposes it (the layout then runs over columns, then rows).
    fn tensor_access(&self, e: &mut Emitter, matrix: WorkgroupMatrix) -> (Word, Word, Option<Word>) {
        // The layout starts past the skipped rows and columns, and the slice before it: the
        // matrix's first rows and columns fall before the layout's start, where nothing is read
        // (or stored).
        let (major_skip, minor_skip) = match self.layout {
            Layout::RowMajor => (self.skip_rows, self.skip_cols),
            Layout::ColumnMajor => (self.skip_cols, self.skip_rows),
        };
        let element = e.u32c(self.size.trailing_zeros());
        let mut index = e.s.op(Op::ShiftRightLogical, Class::U32, &[self.origin, element]);
        let major = e.s.op(Op::IMul, Class::U32, &[major_skip, self.stride]);
        index = e.add_u32(index, major);
        index = e.add_u32(index, minor_skip);
        let pointer = match matrix.component {
            DType::F32 => e.buffer_f32_ptr(self.binding, index),
            DType::BF16 => e.buffer_view_ptr(self.binding, View::BFloat16, index),
            _ => e.buffer_view_ptr(self.binding, View::Float16, index),
        };
        let [rows, cols] = [(self.rows, self.skip_rows), (self.cols, self.skip_cols)]
            .map(|(kept, skipped)| e.s.op(Op::ISub, Class::U32, &[kept, skipped]));
        let zero = e.u32c(0);
        let [before_rows, before_cols] =
            [self.skip_rows, self.skip_cols].map(|skipped| e.s.op(Op::ISub, Class::U32, &[zero, skipped]).id);
        let (m, n) = (e.s.const_u32(matrix.rows), e.s.const_u32(matrix.cols));
        let (dims, slice) = match self.layout {
            Layout::RowMajor => ([rows.id, cols.id], [before_rows, m, before_cols, n]),
            Layout::ColumnMajor => ([cols.id, rows.id], [before_cols, n, before_rows, m]),
        };
        let ty = e.s.tensor_layout_ty();
        let layout = e.s.build(|b| b.create_tensor_layout_nv(ty, None));
        let layout = e.s.build(|b| b.tensor_layout_set_dimension_nv(ty, None, layout, dims));
        let one = e.s.const_u32(1);
        let layout = e.s.build(|b| b.tensor_layout_set_stride_nv(ty, None, layout, [self.stride.id, one]));
        let layout = e.s.build(|b| b.tensor_layout_slice_nv(ty, None, layout, slice));
        let view = (self.layout == Layout::ColumnMajor).then(|| {
            let ty = e.s.transposing_view_ty();
            e.s.build(|b| b.create_tensor_view_nv(ty, None))
        });
        (pointer, layout, view)
    }

    /// The tile as a matrix: what the mask leaves out reads as zero.
    fn load(&self, e: &mut Emitter, matrix: WorkgroupMatrix) -> Reg {
        let class = Class::WorkgroupMatrix(matrix);
        let ty = e.s.ty(class);
        let access = spirv::MemoryAccess::NON_PRIVATE_POINTER;
        let strided_load = |e: &mut Emitter| {
            let (pointer, layout, stride) = self.vector_access(e);
            e.s.uses_workgroup_matrices = true;
            e.s.build(|b| {
                b.cooperative_matrix_load_khr(ty, None, pointer, layout, Some(stride), Some(access), [])
            })
        };
        match e.workgroup_version {
            Version::Checked => {}
            Version::Survey(all_whole) => {
                let whole = self.whole(e, matrix);
                let so_far = e.s.load(Class::Bool, all_whole);
                let both = e.s.op(Op::LogicalAnd, Class::Bool, &[so_far, whole]);
                e.s.store(all_whole, both.id);
                return Reg { id: e.zero_matrix(class), class };
            }
            Version::Whole => return Reg { id: strided_load(e), class },
        }
        let whole = self.whole(e, matrix);
        let (then, other, merge) = e.s.begin_if_else_labelled(whole);
        let strided = strided_load(e);
        e.s.else_part(other, merge);
        let (pointer, layout, view) = self.tensor_access(e, matrix);
        let zero = e.zero_matrix(class);
        let sliced = e.s.build(|b| {
            let (addressing, view) = view_operands(view);
            b.cooperative_matrix_load_tensor_nv(ty, None, pointer, zero, layout, access, addressing, view)
        });
        e.s.end_if(merge);
        e.s.uses_workgroup_matrices = true;
        let id = e.s.build(|b| b.phi(ty, None, [(strided, then), (sliced, other)]));
        Reg { id, class }
    }

    /// Stores `value` (a matrix of the tile's shape) where the mask keeps it: a whole tile with
    /// a strided store, else as a slice of a tensor (a one-dimensional tile: the matrix's first
    /// column).
    pub(super) fn store(&self, e: &mut Emitter, value: Reg) {
        let Class::WorkgroupMatrix(matrix) = value.class else { unreachable!("checked by the caller") };
        let whole = self.whole(e, matrix);
        let access = spirv::MemoryAccess::NON_PRIVATE_POINTER;
        let (other, merge) = e.s.begin_if_else(whole);
        let (pointer, layout, stride) = self.vector_access(e);
        e.s.build(|b| {
            b.cooperative_matrix_store_khr(pointer, value.id, layout, Some(stride), Some(access), [])
        });
        e.s.else_part(other, merge);
        let (pointer, layout, view) = self.tensor_access(e, matrix);
        e.s.build(|b| {
            let (addressing, view) = view_operands(view);
            b.cooperative_matrix_store_tensor_nv(pointer, value.id, layout, access, addressing, view)
        });
        e.s.end_if(merge);
        e.s.uses_workgroup_matrices = true;
    }
}

/// `bound - index[0]` (plus one where `plus_one`): how far from the tile's origin an index
/// reaches a bound.
fn distance(e: &mut Emitter, index: Value, bound: Value, plus_one: bool) -> EResult<Reg> {
    let first = origin_of(e, index, MAX_DEPTH)?;
    let bound = origin_of(e, bound, MAX_DEPTH)?;
    let difference = e.s.op(Op::ISub, Class::U32, &[bound, first]);
    Ok(if plus_one { e.add_imm(difference, 1) } else { difference })
}

/// The tensor-addressing operands of a tensor load or store through `view`, if any.
fn view_operands(view: Option<Word>) -> (spirv::TensorAddressingOperands, Vec<rspirv::dr::Operand>) {
    match view {
        Some(view) => (spirv::TensorAddressingOperands::TENSOR_VIEW, vec![rspirv::dr::Operand::IdRef(view)]),
        None => (spirv::TensorAddressingOperands::NONE, Vec::new()),
    }
}

impl Emitter<'_> {
    /// A matrix of `class` whose elements are all zero.
    pub(crate) fn zero_matrix(&mut self, class: Class) -> Word {
        let Class::WorkgroupMatrix(matrix) = class else { unreachable!("a workgroup matrix") };
        let zero = match matrix.component {
            DType::F32 => self.s.const_f32(0.0).id,
            half => {
                let ty = self.s.half_ty(half);
                self.s.b.constant_bit32(ty, 0)
            }
        };
        let ty = self.s.ty(class);
        self.s.in_prologue(|s| s.inst(Op::CompositeConstruct, ty, &[zero]))
    }
}
