//! Tiles of memory as a backend can address them whole: a pointer tensor whose elements step by
//! a fixed stride along each dimension (`base + rows[:, None] * stride + cols[None, :]`), and a
//! mask that keeps a leading block of each dimension (`rows[:, None] < M & cols[None, :] < K - k`).
//!
//! A backend that loads a tile with one instruction (a cooperative matrix's row-strided load, a
//! tensor map) needs the tile's origin, its strides and how many rows and columns the mask keeps,
//! all uniform over the program. This analysis gives the strides as scalar SSA values with
//! constant factors ([`strides`]), and the mask as comparisons of one index per dimension against
//! a scalar bound ([`mask_terms`]). The origin is left to the backend: any element of the tile
//! minus its coordinate times the strides (every thread holds one, so no scalar has to be carried
//! beside a loop's pointer tensor).
//!
//! The strides follow `tt.splat`, `tt.make_range`, `tt.expand_dims`, `tt.broadcast`,
//! `ttg.convert_layout`, integer constants, `arith.addi` / `arith.subi`, `arith.muli` by a
//! uniform factor (a constant or a splat scalar), `tt.addptr`, and a loop-carried tensor whose
//! initial value has the strides and whose next value is itself advanced by a uniform offset.
//! Offsets are 32-bit and wrap as the IR's do; a tile whose offsets wrap reads gigabytes away
//! from its base, out of bounds either way.

use super::trip_count;
use crate::ir::{Attr, Body, DType, Op, Opcode, Value, ValueDef};

/// How many values the reading visits before it gives up (tile expressions are short; the bound
/// also keeps a DAG whose shared operands would be read again and again from taking exponential
/// time: `x + x` nested thirty deep).
const MAX_STEPS: u32 = 256;

/// How far apart (in elements, for pointers) neighbouring elements of a tensor are along one
/// dimension: a constant, or a scalar SSA value times a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stride {
    Const(i64),
    Scaled(Value, i64),
}

impl Stride {
    const ZERO: Stride = Stride::Const(0);

    fn add(self, other: Stride, sign: i64) -> Option<Stride> {
        use Stride::*;
        Some(match (self, other) {
            (Const(a), Const(b)) => Const(a.checked_add(b.checked_mul(sign)?)?),
            (Scaled(v, a), Const(0)) => Scaled(v, a),
            (Const(0), Scaled(v, b)) => Scaled(v, b.checked_mul(sign)?),
            (Scaled(v, a), Scaled(w, b)) if v == w => match a.checked_add(b.checked_mul(sign)?)? {
                0 => Const(0),
                k => Scaled(v, k),
            },
            _ => return None,
        })
    }

    fn times(self, factor: Stride) -> Option<Stride> {
        use Stride::*;
        Some(match (self, factor) {
            (Const(0), _) | (_, Const(0)) => Const(0),
            (Const(a), Const(b)) => Const(a.checked_mul(b)?),
            (Const(a), Scaled(v, b)) | (Scaled(v, b), Const(a)) => Scaled(v, a.checked_mul(b)?),
            (Scaled(..), Scaled(..)) => return None,
        })
    }

    /// The constant stride, if it is one.
    pub fn constant(self) -> Option<i64> {
        match self {
            Stride::Const(k) => Some(k),
            Stride::Scaled(..) => None,
        }
    }
}

/// The strides of tensor `v` (an integer tensor of 32 or 64 bits, or a tensor of pointers: in
/// elements of the pointee), one per dimension, where it is built as the module docs say.
pub fn strides(body: &Body, v: Value) -> Option<Vec<Stride>> {
    let mut steps = MAX_STEPS;
    strides_at(body, v, &mut steps, None)
}

/// `assumed`: a loop-carried argument and the strides its initial value has, while its next
/// value is read.
fn strides_at(
    body: &Body,
    v: Value,
    steps: &mut u32,
    assumed: Option<(Value, &[Stride])>,
) -> Option<Vec<Stride>> {
    super::take_step(steps)?;
    let ty = body.ty(v);
    let rank = ty.shape().len();
    // 64-bit offsets appear only as splats of a scalar (a loop's rematerialized pointer offset).
    if !ty.is_ptr() && !matches!(ty.dtype(), DType::I32 | DType::I64) {
        return None;
    }
    if let Some((arg, strides)) = assumed {
        if arg == v {
            return Some(strides.to_vec());
        }
    }
    let def = match body.values[v].def {
        ValueDef::Result(op, _) => op,
        ValueDef::Arg(block, index) => return carried_strides(body, block, index as usize, steps),
    };
    let data = body.op(def);
    let operands = &data.operands;
    let uniform = || Some(vec![Stride::ZERO; rank]);
    match data.opcode {
        Opcode::Constant if data.attrs.get("value").and_then(Attr::as_int).is_some() => uniform(),
        Opcode::Splat if body.ty(operands[0]).shape().is_empty() => uniform(),
        Opcode::MakeRange if rank == 1 => Some(vec![Stride::Const(1)]),
        Opcode::AddI | Opcode::SubI | Opcode::AddPtr => {
            let sign = if data.opcode == Opcode::SubI { -1 } else { 1 };
            let lhs = strides_at(body, operands[0], steps, assumed)?;
            let rhs = strides_at(body, operands[1], steps, assumed)?;
            lhs.iter().zip(&rhs).map(|(a, &b)| a.add(b, sign)).collect()
        }
        Opcode::MulI => {
            let (lhs, rhs) = (operands[0], operands[1]);
            let (varying, factor) = match (uniform_factor(body, rhs), uniform_factor(body, lhs)) {
                (Some(factor), _) => (lhs, factor),
                (None, Some(factor)) => (rhs, factor),
                (None, None) => return None,
            };
            let strides = strides_at(body, varying, steps, assumed)?;
            strides.iter().map(|s| s.times(factor)).collect()
        }
        // 64-bit offsets built from 32-bit indices (a tensor descriptor's loads on Vulkan).
        Opcode::ExtSI => strides_at(body, operands[0], steps, assumed),
        Opcode::Broadcast | Opcode::ConvertLayout => {
            let source = body.ty(operands[0]).shape().to_vec();
            let strides = strides_at(body, operands[0], steps, assumed)?;
            // A dimension broadcast from one element repeats it: no step along it.
            Some(strides.iter().zip(&source).map(|(&s, &n)| if n == 1 { Stride::ZERO } else { s }).collect())
        }
        Opcode::ExpandDims => {
            let axis = usize::try_from(data.attrs.get("axis").and_then(Attr::as_int)?).ok()?;
            let mut strides = strides_at(body, operands[0], steps, assumed)?;
            (axis <= strides.len()).then(|| strides.insert(axis, Stride::ZERO))?;
            Some(strides)
        }
        _ => None,
    }
}

/// The strides of carried value `index - 1` of the `scf.for` whose body is `block`: those of its
/// initial value, where the value the body yields for it has them too (given that it has them).
fn carried_strides(
    body: &Body,
    block: crate::ir::Block,
    index: usize,
    steps: &mut u32,
) -> Option<Vec<Stride>> {
    let lp = body.blocks[block].parent_op?;
    if body.opcode(lp) != Opcode::For || index == 0 {
        return None;
    }
    let arg = body.blocks[block].args[index];
    let init = *body.op(lp).operands.get(2 + index)?;
    let initial = strides_at(body, init, steps, None)?;
    let terminator = *body.blocks[block].ops.last()?;
    let next = *body.op(terminator).operands.get(index - 1)?;
    let advanced = strides_at(body, next, steps, Some((arg, &initial)))?;
    (advanced == initial).then_some(initial)
}

/// Scalar `v`, or a tensor splat of one, as a factor.
fn uniform_factor(body: &Body, v: Value) -> Option<Stride> {
    if let Some(k) = trip_count::constant(body, v) {
        return Some(Stride::Const(k));
    }
    if body.ty(v).shape().is_empty() {
        return (body.ty(v).dtype() == DType::I32).then_some(Stride::Scaled(v, 1));
    }
    let def = body.def_op(v)?;
    let scalar = body.op(def).operands.first().copied();
    match body.opcode(def) {
        Opcode::Splat => uniform_factor(body, scalar?),
        Opcode::Constant => body.op(def).attrs.get("value").and_then(Attr::as_int).map(Stride::Const),
        _ => None,
    }
}

/// One conjunct of a mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskTerm {
    /// Elements whose `index` (a 32-bit integer tensor that steps by one along `index_axis` and
    /// not at all along the others) is below `bound` (a scalar, or a constant tensor), or at most `bound` where
    /// `inclusive`. `axis` is the mask's dimension that `index_axis` becomes.
    Below { index: Value, index_axis: usize, bound: Value, inclusive: bool, axis: usize },
    /// Elements whose `index` (as for `Below`) is at least `bound` (above it where `strict`): a
    /// tensor descriptor's `index >= 0`.
    AtLeast { index: Value, index_axis: usize, bound: Value, strict: bool, axis: usize },
    /// Every element or none: a scalar condition splat over the mask.
    Uniform(Value),
}

/// The conjuncts of boolean tensor `mask`, where it is an `arith.andi` tree of comparisons of
/// indices against scalar bounds (signed `<`, `<=`, `>`, `>=`, the index on either side) and of
/// splat conditions, through broadcasts, layout conversions and inserted dimensions.
pub fn mask_terms(body: &Body, mask: Value) -> Option<Vec<MaskTerm>> {
    let rank = body.ty(mask).shape().len();
    let mut terms = Vec::new();
    let axes: Vec<usize> = (0..rank).collect();
    let mut steps = MAX_STEPS;
    collect_terms(body, mask, &axes, &mut terms, &mut steps)?;
    Some(terms)
}

/// `axes[d]`: the mask's dimension that dimension `d` of `v` becomes.
fn collect_terms(
    body: &Body,
    v: Value,
    axes: &[usize],
    terms: &mut Vec<MaskTerm>,
    steps: &mut u32,
) -> Option<()> {
    super::take_step(steps)?;
    if body.ty(v).shape().is_empty() {
        terms.push(MaskTerm::Uniform(v));
        return Some(());
    }
    let def = body.def_op(v)?;
    let data = body.op(def);
    let operands = &data.operands;
    match data.opcode {
        Opcode::AndI => {
            collect_terms(body, operands[0], axes, terms, steps)?;
            collect_terms(body, operands[1], axes, terms, steps)
        }
        Opcode::Splat => collect_terms(body, operands[0], axes, terms, steps),
        Opcode::Constant if data.attrs.get("value").and_then(Attr::as_int) == Some(1) => Some(()),
        Opcode::Broadcast | Opcode::ConvertLayout => collect_terms(body, operands[0], axes, terms, steps),
        Opcode::ExpandDims => {
            let axis = usize::try_from(data.attrs.get("axis").and_then(Attr::as_int)?).ok()?;
            let mut inner = axes.to_vec();
            (axis < inner.len()).then(|| inner.remove(axis))?;
            collect_terms(body, operands[0], &inner, terms, steps)
        }
        Opcode::CmpI => {
            let predicate = data.attrs.get("predicate").and_then(Attr::as_str)?;
            // `index < bound` (`Below`) or `index > bound` (`AtLeast`), with its orientation
            // (`index` first) or mirrored (`bound` first).
            let (below, strict) = match predicate {
                "slt" => (true, true),
                "sle" => (true, false),
                "sgt" => (false, true),
                "sge" => (false, false),
                _ => return None,
            };
            let term = |index: Value, bound: Value, below: bool| -> Option<MaskTerm> {
                let bound = splat_scalar(body, bound)?;
                let strides = strides(body, index)?;
                let mut stepping = strides.iter().enumerate().filter(|(_, &s)| s != Stride::ZERO);
                let (index_axis, &step) = stepping.next()?;
                if stepping.next().is_some() || step != Stride::Const(1) {
                    return None;
                }
                let axis = axes[index_axis];
                Some(match below {
                    true => MaskTerm::Below { index, index_axis, bound, inclusive: !strict, axis },
                    false => MaskTerm::AtLeast { index, index_axis, bound, strict, axis },
                })
            };
            let (lhs, rhs) = (operands[0], operands[1]);
            terms.push(term(lhs, rhs, below).or_else(|| term(rhs, lhs, !below))?);
            Some(())
        }
        _ => None,
    }
}

/// The scalar a tensor splats (through layout conversions and broadcasts), or the tensor itself
/// where it is an integer constant (every element the same).
fn splat_scalar(body: &Body, v: Value) -> Option<Value> {
    if body.ty(v).shape().is_empty() {
        return Some(v);
    }
    let def: Op = body.def_op(v)?;
    match body.opcode(def) {
        Opcode::Constant => body.op(def).attrs.get("value").and_then(Attr::as_int).map(|_| v),
        Opcode::Splat | Opcode::Broadcast | Opcode::ConvertLayout => {
            splat_scalar(body, body.op(def).operands[0])
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Attr, Builder, Elem, Type};

    /// The tutorial GEMM's A tile, `a + (m0 + arange(64))[:, None] * stride + arange(32)[None, :]`,
    /// and its mask `rows < M & cols < K - k`.
    #[test]
    fn a_gemm_tile_has_a_runtime_row_stride_and_a_block_mask() {
        let mut body = Body::new();
        let int = Type::scalar(DType::I32);
        let entry = body.new_block(&[Type::ptr(DType::F16), int.clone(), int.clone(), int.clone(), int]);
        let [base, m0, stride, m, k_left] = body.blocks[entry].args[..] else { unreachable!() };
        let mut b = Builder::at(&mut body, entry, 0);
        let rows = b.make_range(0, 64);
        let m0s = b.splat(m0, &[64]);
        let rows = b.same_type(Opcode::AddI, vec![m0s, rows]);
        let rows = b.expand_dims(rows, 1);
        let strides_v = b.splat(stride, &[64, 1]);
        let row_offsets = b.same_type(Opcode::MulI, vec![rows, strides_v]);
        let bases = b.splat(base, &[64, 1]);
        let row_ptrs = b.same_type(Opcode::AddPtr, vec![bases, row_offsets]);
        let row_ptrs = b.broadcast(row_ptrs, &[64, 32]);
        let cols = b.make_range(0, 32);
        let cols = b.expand_dims(cols, 0);
        let cols_wide = b.broadcast(cols, &[64, 32]);
        let tile = b.same_type(Opcode::AddPtr, vec![row_ptrs, cols_wide]);

        let ms = b.splat(m, &[64, 1]);
        let rows_ok = b.cmpi("slt", rows, ms);
        let rows_ok = b.broadcast(rows_ok, &[64, 32]);
        let ks = b.splat(k_left, &[1, 32]);
        let cols_ok = b.cmpi("sgt", ks, cols);
        let cols_ok = b.broadcast(cols_ok, &[64, 32]);
        let mask = b.same_type(Opcode::AndI, vec![rows_ok, cols_ok]);

        assert_eq!(strides(&body, tile), Some(vec![Stride::Scaled(stride, 1), Stride::Const(1)]));
        assert_eq!(
            mask_terms(&body, mask),
            Some(vec![
                MaskTerm::Below { index: rows, index_axis: 0, bound: m, inclusive: false, axis: 0 },
                MaskTerm::Below { index: cols, index_axis: 1, bound: k_left, inclusive: false, axis: 1 },
            ])
        );
    }

    /// A tensor descriptor's tile on Vulkan: 64-bit offsets from sign-extended 32-bit indices,
    /// and a mask with each index's lower bound (`rows >= 0`) beside its upper one.
    #[test]
    fn a_descriptor_tile_has_wide_offsets_and_lower_bounds() {
        let mut body = Body::new();
        let int = Type::scalar(DType::I32);
        let entry = body.new_block(&[Type::ptr(DType::F16), int.clone(), int]);
        let [base, m0, m] = body.blocks[entry].args[..] else { unreachable!() };
        let mut b = Builder::at(&mut body, entry, 0);
        let rows = b.make_range(0, 64);
        let m0s = b.splat(m0, &[64]);
        let rows = b.same_type(Opcode::AddI, vec![m0s, rows]);
        let rows = b.expand_dims(rows, 1);
        let wide = b.cast(Opcode::ExtSI, rows, Type::tensor(Elem::Scalar(DType::I64), &[64, 1]));
        let row_size = b.constant(Type::tensor(Elem::Scalar(DType::I64), &[64, 1]), Attr::Int(128));
        let offsets = b.same_type(Opcode::MulI, vec![wide, row_size]);
        let offsets = b.broadcast(offsets, &[64, 128]);
        let cols = b.make_range(0, 128);
        let cols = b.expand_dims(cols, 0);
        let cols = b.cast(Opcode::ExtSI, cols, Type::tensor(Elem::Scalar(DType::I64), &[1, 128]));
        let cols = b.broadcast(cols, &[64, 128]);
        let offsets = b.same_type(Opcode::AddI, vec![offsets, cols]);
        let bases = b.splat(base, &[64, 128]);
        let tile = b.same_type(Opcode::AddPtr, vec![bases, offsets]);

        let zero = b.constant(Type::tensor(Elem::Scalar(DType::I32), &[64, 1]), Attr::Int(0));
        let at_least = b.cmpi("sge", rows, zero);
        let ms = b.splat(m, &[64, 1]);
        let below = b.cmpi("slt", rows, ms);
        let mask = b.same_type(Opcode::AndI, vec![at_least, below]);

        assert_eq!(strides(&body, tile), Some(vec![Stride::Const(128), Stride::Const(1)]));
        assert_eq!(
            mask_terms(&body, mask),
            Some(vec![
                MaskTerm::AtLeast { index: rows, index_axis: 0, bound: zero, strict: false, axis: 0 },
                MaskTerm::Below { index: rows, index_axis: 0, bound: m, inclusive: false, axis: 0 },
            ])
        );
    }

    /// A product of two varying tensors has no strides; a comparison of an index that steps by
    /// two, or along both dimensions, is not a block mask.
    #[test]
    fn what_is_not_a_strided_tile() {
        let mut body = Body::new();
        let entry = body.new_block(&[Type::scalar(DType::I32)]);
        let n = body.blocks[entry].args[0];
        let mut b = Builder::at(&mut body, entry, 0);
        let r = b.make_range(0, 16);
        let square = b.same_type(Opcode::MulI, vec![r, r]);
        let two = b.constant(Type::tensor(Elem::Scalar(DType::I32), &[16]), Attr::Int(2));
        let even = b.same_type(Opcode::MulI, vec![r, two]);
        let ns = b.splat(n, &[16]);
        let even_ok = b.cmpi("slt", even, ns);
        let rows = b.expand_dims(r, 1);
        let rows = b.broadcast(rows, &[16, 16]);
        let cols = b.expand_dims(r, 0);
        let cols = b.broadcast(cols, &[16, 16]);
        let diagonal = b.same_type(Opcode::AddI, vec![rows, cols]);
        let ns2 = b.splat(n, &[16, 16]);
        let diagonal_ok = b.cmpi("slt", diagonal, ns2);

        assert_eq!(strides(&body, square), None);
        assert_eq!(strides(&body, even), Some(vec![Stride::Const(2)]));
        assert_eq!(mask_terms(&body, even_ok), None);
        assert_eq!(strides(&body, diagonal), Some(vec![Stride::Const(1), Stride::Const(1)]));
        assert_eq!(mask_terms(&body, diagonal_ok), None);
    }

    /// `x + x` nested thirty deep is read in bounded time (the shared operand is not read 2^30
    /// times): past the step budget there are no strides.
    #[test]
    fn a_deep_dag_is_given_up_quickly() {
        let mut body = Body::new();
        let entry = body.new_block(&[]);
        let mut b = Builder::at(&mut body, entry, 0);
        let mut x = b.make_range(0, 16);
        for _ in 0..30 {
            x = b.same_type(Opcode::AddI, vec![x, x]);
        }
        let started = std::time::Instant::now();
        assert_eq!(strides(&body, x), None);
        assert!(started.elapsed() < std::time::Duration::from_secs(1), "took {:?}", started.elapsed());
    }
}
