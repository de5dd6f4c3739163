//! A kernel whose every float tensor lives in workgroup-scope matrices (`VK_NV_cooperative_matrix2`
//! with its reductions, conversions and per-element operations): flash attention's loop, its
//! softmax included, without a tensor element moving through registers.
//!
//! The GEMM loops of `super::workgroup` carry one accumulator and read nothing else; the
//! subgroup path (`super::carried`) stages every dot's operands and every accumulator it does not
//! carry through workgroup memory, and runs the softmax in the layout's registers (H100, NVIDIA's
//! Vulkan: per iteration of flash attention d64, 176 `STS.64` + 173 `STS` + 172 `LDS` and 54 bars
//! for 96 `HMMA`). A workgroup-scope matrix is a whole tensor of the program, and the driver has
//! the operations a softmax needs on one: a row reduced (`OpCooperativeMatrixReduceNV`), any
//! function applied to each element (`OpCooperativeMatrixPerElementOpNV`), an accumulator
//! converted into an operand (`OpFConvert` across uses). So where every float tensor of the
//! kernel is one of these forms, each becomes one matrix:
//!
//! - a two-dimensional tensor `[R, C]`: an `R x C` matrix (f32 accumulators; f16 or bf16
//!   operands A or B where dots read it, accumulators where other ops do);
//! - a row vector (`[R]`, a reduction's result along dim 1, or `[R, 1]` after `expand_dims`): an
//!   `R x W` f32 matrix holding each row's value in every column, `W` the narrowest width the
//!   device's granules allow (a reduction along rows may narrow a matrix); broadcast to `[R, C]`
//!   it is reduced along rows again into an `R x C` matrix (each row's value spread:
//!   [`Role::Spread`]). The width matters: with the rows as wide as the scores (64, as
//!   reductions leave them) flash attention d64 on four warps held four 128 x 64 f32 matrices
//!   and ran at 36.9 TFLOP/s, with 16 at 194.3 (H200); d128 on eight warps 181.1 -> 194.6;
//! - a float constant or a splat of a scalar: a leaf, made into a matrix where an op reads it.
//!
//! The ops (their [`Role`]s): strided tile loads and stores (`super::workgroup::Tile`: row- or
//! column-major, a tile only a `tt.trans` reads loaded transposed for `k.T`, a row vector stored
//! as its first column), `tt.dot`, elementwise float arithmetic (`OpFAdd`... on matrices,
//! `OpMatrixTimesScalar`, and a per-element function for the rest: `maximum`, `exp2`...),
//! `arith.select` under a comparison of two index tensors affine in the row and the column (a
//! causal mask: a per-element function of the row and column), `tt.reduce` along rows with one
//! combining op, `arith.truncf` into an operand, and the layout ops. Loops carry matrices as the GEMM loops do, and are emitted
//! three times the same way (`control.rs`'s `versioned_gemm`: a survey of the tiles, then the
//! loop of unchecked strided loads or the checked one), so a loop's body may only compute.
//!
//! All or nothing: a kernel with a float tensor in any other form or op (a column vector, a
//! comparison of floats, a gather, an `scf.if` carrying floats, a loop inside a loop) is not
//! planned, and takes the subgroup path.
//!
//! Expects: what `super::workgroup` expects of tiles (non-negative strides at run time).
//!
//! # Measured
//!
//! H100, NVIDIA's Vulkan driver 580 (2026-11-27), the corpus' flash attention perf cases (4 x 16
//! heads of 2048), TFLOP/s here, on the subgroup path, and Triton 3.6 on CUDA in the same run:
//! d64 194.7, 73.7, 373.7; d128 194.1, 99.0, 450.1; d64 causal 156.9, 67.2, 276.2; d128 causal
//! 169.7, 89.5, 341.2; the descriptor attention (tiles of tensor descriptors, `k.T` of a loaded
//! tile) d128 192.3, 58.5, 397.5 and causal 172.1, 62.9, 291.2. The spirv ci corpus passes with
//! it (117/0).
//!
//! The driver multiplies with `HMMA` (mma.sync) here too, four warps or eight, and the d64 loop
//! on four warps spills (347 `STL`/`LDL` in its SASS: the scores, the output, P, Q and the row
//! statistics are 224 registers an invocation). Tried and dropped: Q loaded from its buffer at
//! every iteration instead of held in a matrix (d64 193.3 -> 178.9 TFLOP/s, d128 194.0 ->
//! 176.5).

use rustc_hash::FxHashMap;

use rspirv::spirv::{self, Op, Word};
use trident_midend::codegen::LowerElementwise;
use trident_midend::ir::{DType, Function, Op as IrOp, Opcode, Value};
use trident_midend::layout::Encoding;

use trident_midend::analysis::strided_tiles::{strides, Stride};

use super::workgroup::{granule_holds, is_float_splat, is_tile, is_tile_load, writes_memory, Role};
use crate::emit::{EResult, Emitter};
use crate::spirv::{Class, Reg, WorkgroupMatrix, ACCUMULATOR_USE, MATRIX_A_USE, MATRIX_B_USE};
use crate::{Options, WorkgroupMatrices};

/// A planned kernel: the loop arguments that carry matrices, and what each op becomes.
pub struct Region {
    pub accumulators: FxHashMap<Value, WorkgroupMatrix>,
    pub roles: FxHashMap<IrOp, Role>,
}

/// The binary float ops a region lowers elementwise.
const BINARY: [Opcode; 8] = [
    Opcode::AddF,
    Opcode::SubF,
    Opcode::MulF,
    Opcode::DivF,
    Opcode::MaxNumF,
    Opcode::MinNumF,
    Opcode::MaximumF,
    Opcode::MinimumF,
];

/// The unary float ops a region lowers elementwise (a per-element function each).
const UNARY: [Opcode; 10] = [
    Opcode::Exp,
    Opcode::Exp2,
    Opcode::Log,
    Opcode::Log2,
    Opcode::Sqrt,
    Opcode::Rsqrt,
    Opcode::NegF,
    Opcode::AbsF,
    Opcode::Tanh,
    Opcode::Floor,
];

/// How a float tensor is held (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    Matrix(u32, u32),
    Rows(u32),
}

/// Plans `func` whole, or returns `None` (see the module docs). `readers` lists each value's
/// readers.
pub fn plan(
    func: &Function,
    options: &Options,
    offered: &WorkgroupMatrices,
    operand: DType,
    readers: &FxHashMap<Value, Vec<IrOp>>,
) -> Option<Region> {
    if !offered.element_operations || !options.cooperative_matrix_per_element {
        return None;
    }
    let body = &func.body;
    let ops = body.walk(func.entry);
    let invocations = options.threads_per_warp * options.num_warps;
    let is_float_tensor = |v: Value| {
        let ty = body.ty(v);
        ty.is_tensor() && !ty.is_ptr() && ty.dtype().is_float()
    };
    // The granule every matrix's sides are multiples of (the finest the device lists for the
    // workgroup's size), and the row vectors' width: its N.
    let granule = offered
        .granules
        .iter()
        .filter(|g| g.operand == operand && g.accumulator == DType::F32 && g.invocations == invocations)
        .min_by_key(|g| (g.m * g.n * g.k, g.m))?;
    let width = granule.n;
    let form = |v: Value| -> Option<Form> {
        let ty = body.ty(v);
        match *ty.shape() {
            [rows, 1] => Some(Form::Rows(rows)),
            [rows, cols] => Some(Form::Matrix(rows, cols)),
            [rows] => {
                matches!(ty.encoding(), Some(Encoding::Slice { dim: 1, .. })).then_some(Form::Rows(rows))
            }
            _ => None,
        }
    };
    let matrix = |f: Form, component: DType, usage: u32| match f {
        Form::Matrix(rows, cols) => WorkgroupMatrix { rows, cols, usage, component },
        Form::Rows(rows) => {
            WorkgroupMatrix { rows, cols: width, usage: ACCUMULATOR_USE, component: DType::F32 }
        }
    };
    // An f32 constant or splat of a scalar.
    let is_leaf = |v: Value| -> bool {
        let Some(def) = body.def_op(v) else { return false };
        let splat = body.opcode(def) == Opcode::Splat && !body.ty(body.op(def).operands[0]).is_tensor();
        body.ty(v).dtype() == DType::F32 && (splat || is_float_splat(func, v))
    };
    // The use a value's readers need: A or B where dots read it (through layout conversions),
    // the accumulator's where nothing but other ops do; `None` where they disagree.
    fn usage(
        body: &trident_midend::ir::Body,
        readers: &FxHashMap<Value, Vec<IrOp>>,
        v: Value,
    ) -> Option<u32> {
        let mut found = None;
        for &reader in readers.get(&v).map(Vec::as_slice).unwrap_or_default() {
            let data = body.op(reader);
            let wanted = match data.opcode {
                Opcode::Dot if data.operands[0] == v && data.operands[1] != v => MATRIX_A_USE,
                Opcode::Dot if data.operands[1] == v && data.operands[0] != v => MATRIX_B_USE,
                Opcode::Dot => return None,
                Opcode::ConvertLayout => usage(body, readers, data.results[0])?,
                _ => ACCUMULATOR_USE,
            };
            if found.replace(wanted).is_some_and(|u| u != wanted) {
                return None;
            }
        }
        Some(found.unwrap_or(ACCUMULATOR_USE))
    }
    let fits = |m: &WorkgroupMatrix| granule_holds(granule, m) && m.rows.max(m.cols) <= offered.max_dimension;

    let mut roles: FxHashMap<IrOp, Role> = FxHashMap::default();
    let mut accumulators = FxHashMap::default();
    let mut loop_bodies = Vec::new();
    for &op in &ops {
        let data = body.op(op);
        let touches = data.results.iter().chain(&data.operands).any(|&v| is_float_tensor(v));
        if !touches || data.results.first().is_some_and(|&r| is_leaf(r)) {
            continue;
        }
        // A load's `other` (of the load's element type), which its tile load checks is zero.
        let others_only = || {
            data.results.iter().all(|r| {
                let readers = readers.get(r).map(Vec::as_slice).unwrap_or_default();
                readers
                    .iter()
                    .all(|&l| body.opcode(l) == Opcode::Load && body.op(l).operands.get(2) == Some(r))
            })
        };
        if data.opcode == Opcode::Constant && others_only() {
            continue;
        }
        // Every op that touches a float tensor is at the top level or in a planned loop's body.
        let parent = data.parent?;
        if parent != func.entry && !loop_bodies.contains(&parent) {
            return None;
        }
        let result = data.results.first().copied();
        let role = match data.opcode {
            Opcode::For => {
                if parent != func.entry {
                    return None;
                }
                let block = data.regions[0];
                if writes_memory(func, block) {
                    return None;
                }
                for &arg in &body.blocks[block].args[1..] {
                    if is_float_tensor(arg) {
                        if body.ty(arg).dtype() != DType::F32 {
                            return None;
                        }
                        accumulators.insert(arg, matrix(form(arg)?, DType::F32, ACCUMULATOR_USE));
                    }
                }
                loop_bodies.push(block);
                continue;
            }
            Opcode::Yield => {
                let owner = body.blocks[parent].parent_op?;
                // A carried matrix's next value is a matrix (a leaf would be registers).
                if body.opcode(owner) != Opcode::For || data.operands.iter().any(|&v| is_leaf(v)) {
                    return None;
                }
                continue;
            }
            Opcode::Load => {
                // A tile loaded as a matrix; one that only a `tt.trans` reads is loaded
                // transposed, as the matrix the transpose gives (the `tt.trans` is then nothing).
                let v = result?;
                let transpose = transposing_reader(func, readers, v);
                let shown = transpose.map_or(v, |t| body.op(t).results[0]);
                let use_ = usage(body, readers, shown)?;
                let Form::Matrix(..) = form(shown)? else { return None };
                if !is_tile_load(func, op) {
                    return None;
                }
                if use_ != ACCUMULATOR_USE && body.ty(v).dtype() != operand {
                    return None;
                }
                let m = matrix(form(shown)?, body.ty(v).dtype(), use_);
                match transpose {
                    Some(_) => Role::TransposedOperand(m),
                    None => Role::Operand(m),
                }
            }
            Opcode::Trans => {
                // Of a load planned transposed (above): the load's matrix.
                let load = body.def_op(data.operands[0])?;
                let Some(&Role::TransposedOperand(m)) = roles.get(&load) else { return None };
                Role::Spread(m)
            }
            Opcode::Dot => {
                let [a, b, c] = [0, 1, 2].map(|i| data.operands[i]);
                let (&[m, k], &[_, n]) = (body.ty(a).shape(), body.ty(b).shape()) else { return None };
                let shape = |rows, cols, usage| WorkgroupMatrix { rows, cols, usage, component: operand };
                let shapes_fit =
                    [shape(m, k, MATRIX_A_USE), shape(k, n, MATRIX_B_USE), shape(m, n, ACCUMULATOR_USE)]
                        .iter()
                        .all(fits);
                let operands_right = body.ty(a).dtype() == operand && body.ty(b).dtype() == operand;
                let accumulates = body.ty(c).dtype() == DType::F32 && body.ty(result?).dtype() == DType::F32;
                if !operands_right || !accumulates || !shapes_fit {
                    return None;
                }
                Role::Product
            }
            Opcode::TruncF => {
                let (source, v) = (data.operands[0], result?);
                if body.ty(source).dtype() != DType::F32 || body.ty(v).dtype() != operand {
                    return None;
                }
                let Form::Matrix(..) = form(v)? else { return None };
                Role::Convert(matrix(form(v)?, operand, usage(body, readers, v)?))
            }
            Opcode::Reduce => {
                let source = data.operands[0];
                let combines = combiner(func, op).is_some();
                let along_rows = data.attrs.int("axis") == Some(1);
                if !combines
                    || !along_rows
                    || body.ty(source).dtype() != DType::F32
                    || data.results.len() != 1
                {
                    return None;
                }
                Role::ReduceRows(matrix(form(result?)?, DType::F32, ACCUMULATOR_USE))
            }
            Opcode::ExpandDims | Opcode::Broadcast | Opcode::ConvertLayout => {
                let (source, v) = (data.operands[0], result?);
                let (from, to) = (form(source)?, form(v)?);
                let same_shape = body.ty(source).shape().len() == 2 && from == to;
                if !matches!((from, to), (Form::Rows(_), _)) && !same_shape {
                    return None;
                }
                if body.ty(v).dtype() != DType::F32 && data.opcode != Opcode::ConvertLayout {
                    return None;
                }
                let component = body.ty(v).dtype();
                let use_ = if component == DType::F32 { ACCUMULATOR_USE } else { usage(body, readers, v)? };
                Role::Spread(matrix(to, component, use_))
            }
            Opcode::Select => {
                let v = result?;
                let [condition, x, y] = [0, 1, 2].map(|i| data.operands[i]);
                let floats = is_float_tensor(x) && is_float_tensor(y) && body.ty(v).dtype() == DType::F32;
                if !floats || affine_condition(func, condition).is_none() {
                    return None;
                }
                Role::Elementwise(matrix(form(v)?, DType::F32, ACCUMULATOR_USE))
            }
            opcode if BINARY.contains(&opcode) || UNARY.contains(&opcode) => {
                let v = result?;
                if body.ty(v).dtype() != DType::F32 || !data.operands.iter().all(|&o| is_float_tensor(o)) {
                    return None;
                }
                Role::Elementwise(matrix(form(v)?, DType::F32, ACCUMULATOR_USE))
            }
            Opcode::Store => {
                let (pointer, value) = (data.operands[0], data.operands[1]);
                let rank_agrees = match form(value)? {
                    Form::Matrix(..) => body.ty(pointer).shape().len() == 2,
                    Form::Rows(_) => body.ty(pointer).shape().len() == 1,
                };
                // A leaf stored would be registers, not a matrix.
                if !rank_agrees || is_leaf(value) || !is_tile(func, pointer, data.operands.get(2).copied()) {
                    return None;
                }
                Role::Store
            }
            _ => return None,
        };
        if let Role::Operand(m)
        | Role::Convert(m)
        | Role::ReduceRows(m)
        | Role::Spread(m)
        | Role::Elementwise(m) = role
        {
            if !fits(&m) {
                return None;
            }
        }
        roles.insert(op, role);
    }
    let dots = roles.values().filter(|&&r| r == Role::Product).count();
    if loop_bodies.is_empty() || dots == 0 || !accumulators.values().all(fits) {
        return None;
    }
    Some(Region { accumulators, roles })
}

/// The `tt.trans` (of a two-dimensional tensor) that is the only reader of `v`, if it is.
fn transposing_reader(func: &Function, readers: &FxHashMap<Value, Vec<IrOp>>, v: Value) -> Option<IrOp> {
    let &[reader] = readers.get(&v)?.as_slice() else { return None };
    let data = func.body.op(reader);
    let swaps = data.attrs.ints("order") == Some(&[1, 0][..]);
    (data.opcode == Opcode::Trans && swaps && func.body.ty(v).shape().len() == 2).then_some(reader)
}

/// The one op that combines a `tt.reduce`'s two arguments, where its region is just that op
/// (a float op of [`BINARY`]) and the return of its result.
fn combiner(func: &Function, reduce: IrOp) -> Option<Opcode> {
    let body = &func.body;
    let block = *body.op(reduce).regions.first()?;
    let (args, ops) = (&body.blocks[block].args, &body.blocks[block].ops);
    let &[combine, ret] = ops.as_slice() else { return None };
    let data = body.op(combine);
    let opcode = data.opcode;
    let reads_args = data.operands.len() == 2 && data.operands.iter().all(|o| args.contains(o));
    let returns = body.op(ret).operands.as_slice() == data.results.as_slice();
    (BINARY.contains(&opcode) && reads_args && returns).then_some(opcode)
}

/// A select's condition that compares two index tensors affine in the row and the column:
/// `arith.cmpi` of 32-bit integer tensors whose strides along both dimensions are constants
/// (`q_rows[:, None] >= kv_rows[None, :]`, a causal mask). Each side is its origin (element
/// (0, 0), a scalar) plus the strides times the coordinates, which a per-element function
/// computes from the row and column it is given.
struct AffineCondition {
    predicate: String,
    lhs: Value,
    rhs: Value,
    lhs_strides: [i64; 2],
    rhs_strides: [i64; 2],
}

fn affine_condition(func: &Function, condition: Value) -> Option<AffineCondition> {
    let body = &func.body;
    let def = body.def_op(condition)?;
    let data = body.op(def);
    if data.opcode != Opcode::CmpI {
        return None;
    }
    let constant = |v: Value| -> Option<[i64; 2]> {
        if body.ty(v).dtype() != DType::I32 {
            return None;
        }
        match strides(body, v)?.as_slice() {
            &[Stride::Const(rows), Stride::Const(cols)] => Some([rows, cols]),
            _ => None,
        }
    };
    let (lhs, rhs) = (data.operands[0], data.operands[1]);
    Some(AffineCondition {
        predicate: data.attrs.str("predicate")?.to_string(),
        lhs,
        rhs,
        lhs_strides: constant(lhs)?,
        rhs_strides: constant(rhs)?,
    })
}

/// Lowers `op` of `role` (one of the region's own: [`Role::Elementwise`], [`Role::ReduceRows`],
/// [`Role::Spread`]), outside a survey (`super::workgroup::lower` makes those zero matrices).
pub fn lower(e: &mut Emitter, op: IrOp, role: Role) -> EResult<()> {
    let data = e.func.body.op(op);
    let (opcode, operands, result) = (data.opcode, data.operands.clone(), data.results[0]);
    let target = match role {
        Role::Elementwise(m) | Role::ReduceRows(m) | Role::Spread(m) => m,
        _ => return e.invalid("a region op without a region role"),
    };
    let class = Class::WorkgroupMatrix(target);
    let id = match role {
        Role::Spread(_) => matrix_of(e, operands[0], target)?.id,
        Role::ReduceRows(_) => {
            let Some(combine) = combiner(e.func, op) else {
                return e.invalid("a row reduction without its op");
            };
            let &[rows, cols] = e.func.body.ty(operands[0]).shape() else {
                return e.invalid("a row reduction of a tensor that is not two-dimensional");
            };
            let source = WorkgroupMatrix { rows, cols, usage: ACCUMULATOR_USE, component: DType::F32 };
            let source = matrix_of(e, operands[0], source)?;
            reduce_rows(e, source, target, Some(combine))?
        }
        _ => elementwise(e, opcode, &operands, target)?,
    };
    e.set(result, vec![Reg { id, class }]);
    Ok(())
}

/// An elementwise op of a region into a matrix of `target`.
fn elementwise(
    e: &mut Emitter,
    opcode: Opcode,
    operands: &[Value],
    target: WorkgroupMatrix,
) -> EResult<Word> {
    let ty = e.s.ty(Class::WorkgroupMatrix(target));
    let core = match opcode {
        Opcode::AddF => Some(Op::FAdd),
        Opcode::SubF => Some(Op::FSub),
        Opcode::MulF => Some(Op::FMul),
        Opcode::DivF => Some(Op::FDiv),
        _ => None,
    };
    if opcode == Opcode::Select {
        return select(e, operands, target);
    }
    if opcode == Opcode::MulF {
        // A product with a leaf: the matrix times the scalar.
        for (scaled, scalar) in [(operands[0], operands[1]), (operands[1], operands[0])] {
            if let Some(factor) = leaf_scalar(e, scalar)? {
                let matrix = matrix_of(e, scaled, target)?;
                return Ok(e.s.inst(Op::MatrixTimesScalar, ty, &[matrix.id, factor.id]));
            }
        }
    }
    if let Some(core) = core {
        let x = matrix_of(e, operands[0], target)?;
        let y = matrix_of(e, operands[1], target)?;
        return Ok(e.s.inst(core, ty, &[x.id, y.id]));
    }
    // A per-element function of the element and, for a binary op, the other operand's element
    // (or the scalar of a leaf).
    let x = matrix_of(e, operands[0], target)?;
    let function = element_function(e, opcode, operands.len())?;
    let mut args = vec![x.id, function];
    if let Some(&y) = operands.get(1) {
        let y = match leaf_scalar(e, y)? {
            Some(scalar) => scalar,
            None => matrix_of(e, y, target)?,
        };
        args.push(y.id);
    }
    e.s.uses_per_element_operations = true;
    Ok(e.s.inst(Op::CooperativeMatrixPerElementOpNV, ty, &args))
}

/// `arith.select` under an [`affine_condition`]: a per-element function of the element of the
/// operand held as a matrix, the other operand (a leaf's scalar or a matrix's element) and the
/// two sides' origins.
fn select(e: &mut Emitter, operands: &[Value], target: WorkgroupMatrix) -> EResult<Word> {
    let Some(condition) = affine_condition(e.func, operands[0]) else {
        return e.invalid("a region's select whose condition is not affine");
    };
    let ty = e.s.ty(Class::WorkgroupMatrix(target));
    let (x, y) = (operands[1], operands[2]);
    // The matrix goes first; `swapped` where that is the value taken where the condition fails.
    let swapped = leaf_scalar(e, x)?.is_some() && leaf_scalar(e, y)?.is_none();
    let (first, other) = if swapped { (y, x) } else { (x, y) };
    let first = matrix_of(e, first, target)?;
    let other = match leaf_scalar(e, other)? {
        Some(scalar) => scalar,
        None => matrix_of(e, other, target)?,
    };
    let lhs = super::workgroup::origin_of(e, condition.lhs, super::workgroup::MAX_DEPTH)?;
    let rhs = super::workgroup::origin_of(e, condition.rhs, super::workgroup::MAX_DEPTH)?;
    let function = select_function(e, &condition, swapped)?;
    e.s.uses_per_element_operations = true;
    Ok(e.s.inst(Op::CooperativeMatrixPerElementOpNV, ty, &[first.id, function, other.id, lhs.id, rhs.id]))
}

/// `(row, column, x, other, lhs0, rhs0) -> cmp(lhs0 + row * a + column * b, rhs0 + row * c +
/// column * d) ? x : other` (the two taken the other way round where `swapped`).
fn select_function(e: &mut Emitter, condition: &AffineCondition, swapped: bool) -> EResult<Word> {
    let AffineCondition { predicate, lhs_strides, rhs_strides, .. } = condition;
    let key = format!("select {predicate} {lhs_strides:?} {rhs_strides:?} {swapped}");
    if let Some(&function) = e.s.helper_functions.get(&key) {
        return Ok(function);
    }
    let (u32t, f32t) = (e.s.ty(Class::U32), e.s.ty(Class::F32));
    let (function, ids) = e.s.begin_helper(f32t, &[u32t, u32t, f32t, f32t, u32t, u32t]);
    let [row, column, x, other, lhs, rhs] = [0, 1, 2, 3, 4, 5].map(|i| {
        let class = if i == 2 || i == 3 { Class::F32 } else { Class::U32 };
        Reg { id: ids[i], class }
    });
    let side = |e: &mut Emitter, origin: Reg, [along_rows, along_cols]: [i64; 2]| {
        let mut value = origin;
        for (coordinate, stride) in [(row, along_rows), (column, along_cols)] {
            if stride != 0 {
                let stride = e.u32c(stride as u32);
                let step = e.s.op(Op::IMul, Class::U32, &[coordinate, stride]);
                value = e.s.op(Op::IAdd, Class::U32, &[value, step]);
            }
        }
        value
    };
    let l = side(e, lhs, *lhs_strides);
    let r = side(e, rhs, *rhs_strides);
    let value = LowerElementwise::int_compare(e, predicate, l, r, DType::I32).map(|holds| {
        let (taken, otherwise) = if swapped { (other, x) } else { (x, other) };
        e.s.select(holds, taken, otherwise)
    });
    e.s.end_helper(value.as_ref().map_or(x.id, |r| r.id));
    value?;
    e.s.helper_functions.insert(key, function);
    Ok(function)
}

/// The scalar a leaf tensor (a float constant or a splat of a scalar) holds in every element;
/// `None` for a tensor held as a matrix.
fn leaf_scalar(e: &mut Emitter, v: Value) -> EResult<Option<Reg>> {
    let regs = e.get(v)?;
    Ok(match regs.first() {
        Some(&r) if r.class == Class::F32 && regs.iter().all(|x| x.id == r.id) => Some(r),
        _ => None,
    })
}

/// `v` as a matrix of `target`: itself; a matrix of another use or width converted (an
/// accumulator into an operand, a row vector spread to another width); a leaf's scalar in every
/// element.
pub fn matrix_of(e: &mut Emitter, v: Value, target: WorkgroupMatrix) -> EResult<Reg> {
    let class = Class::WorkgroupMatrix(target);
    let ty = e.s.ty(class);
    if let Some(scalar) = leaf_scalar(e, v)? {
        if target.component != DType::F32 {
            return e.invalid("a leaf of f32 as a matrix of 16-bit elements");
        }
        let id = e.s.inst(Op::CompositeConstruct, ty, &[scalar.id]);
        return Ok(Reg { id, class });
    }
    let regs = e.get(v)?;
    let &[source] = regs.as_slice() else { return e.invalid("a region value that is not one matrix") };
    convert(e, source, target)
}

/// Matrix `source` as a matrix of `target`: itself; an accumulator of the same shape converted
/// (into an operand, or to another component type); a row vector's matrix spread to another
/// width.
pub fn convert(e: &mut Emitter, source: Reg, target: WorkgroupMatrix) -> EResult<Reg> {
    let Class::WorkgroupMatrix(from) = source.class else {
        return e.invalid("a region value that is not a matrix");
    };
    if from == target {
        return Ok(source);
    }
    let class = Class::WorkgroupMatrix(target);
    let ty = e.s.ty(class);
    let same_shape = from.rows == target.rows && from.cols == target.cols;
    let id = if same_shape && from.usage == ACCUMULATOR_USE && from.component == target.component {
        e.s.uses_matrix_conversions = true;
        e.s.inst(Op::CooperativeMatrixConvertNV, ty, &[source.id])
    } else if same_shape && from.usage == ACCUMULATOR_USE {
        if target.usage != ACCUMULATOR_USE {
            e.s.uses_matrix_conversions = true;
        }
        e.s.inst(Op::FConvert, ty, &[source.id])
    } else if from.rows == target.rows && from.usage == ACCUMULATOR_USE && target.usage == ACCUMULATOR_USE {
        // A row vector's value spread over another width: every element of a row is the same,
        // so the row's "reduction" to one of them is it.
        reduce_rows(e, source, target, None)?
    } else {
        return e.invalid(format!("a matrix of {from:?} where one of {target:?} is read"));
    };
    Ok(Reg { id, class })
}

/// Each row of `source` reduced with `combine` (or, where `None`, to one of its elements) into
/// every column of a matrix of `target`.
fn reduce_rows(
    e: &mut Emitter,
    source: Reg,
    target: WorkgroupMatrix,
    combine: Option<Opcode>,
) -> EResult<Word> {
    let ty = e.s.ty(Class::WorkgroupMatrix(target));
    let function = combine_function(e, combine)?;
    e.s.uses_matrix_reductions = true;
    let row = spirv::CooperativeMatrixReduce::ROW;
    Ok(e.s.build(|b| b.cooperative_matrix_reduce_nv(ty, None, source.id, row, function)))
}

/// The function a per-element operation calls for `opcode` on f32 elements:
/// `(row, column, x[, y]) -> opcode(x[, y])`, made once per module.
fn element_function(e: &mut Emitter, opcode: Opcode, arity: usize) -> EResult<Word> {
    let key = format!("element {opcode:?}/{arity}");
    if let Some(&function) = e.s.helper_functions.get(&key) {
        return Ok(function);
    }
    let (u32t, f32t) = (e.s.ty(Class::U32), e.s.ty(Class::F32));
    let mut params = vec![u32t, u32t, f32t];
    params.extend(std::iter::repeat_n(f32t, arity - 1));
    let (function, ids) = e.s.begin_helper(f32t, &params);
    let x = Reg { id: ids[2], class: Class::F32 };
    let value = match ids.get(3) {
        Some(&y) => {
            LowerElementwise::float_binary(e, opcode, x, Reg { id: y, class: Class::F32 }, DType::F32)
        }
        None => LowerElementwise::float_unary(e, opcode, x, DType::F32),
    };
    e.s.end_helper(value.as_ref().map_or(x.id, |r| r.id));
    value?;
    e.s.helper_functions.insert(key, function);
    Ok(function)
}

/// The function a row reduction combines two f32 elements with: `opcode`, or where `None` the
/// first of the two (a row whose elements are all the same reduces to its value).
fn combine_function(e: &mut Emitter, opcode: Option<Opcode>) -> EResult<Word> {
    let key = format!("combine {opcode:?}");
    if let Some(&function) = e.s.helper_functions.get(&key) {
        return Ok(function);
    }
    let f32t = e.s.ty(Class::F32);
    let (function, ids) = e.s.begin_helper(f32t, &[f32t, f32t]);
    let (x, y) = (Reg { id: ids[0], class: Class::F32 }, Reg { id: ids[1], class: Class::F32 });
    let value = match opcode {
        Some(opcode) => LowerElementwise::float_binary(e, opcode, x, y, DType::F32),
        None => Ok(x),
    };
    e.s.end_helper(value.as_ref().map_or(x.id, |r| r.id));
    value?;
    e.s.helper_functions.insert(key, function);
    Ok(function)
}
