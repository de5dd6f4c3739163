//! Pointer tensors read as a scalar base plus, per `tt.addptr`, an offset affine in the element's
//! coordinates: what lets a backend address every register of a tile from one register per
//! thread, with the rest as immediate offsets.
//!
//! A tile's pointers are built as `base + rows[:, None] * stride + cols[None, :]` from splats,
//! `tt.make_range`, `tt.expand_dims`, `tt.broadcast`, `ttg.convert_layout`, integer constants,
//! and `arith.addi` / `arith.subi`, and `arith.muli` by a constant. Each `tt.addptr` of such a
//! chain adds an offset of the form
//!
//! ```text
//! sum(k * scalar) + constant + sum(coeffs[d] * coordinate[d])
//! ```
//!
//! a part uniform over the tensor (scalar SSA values with constant factors, and a constant) and a
//! part linear in the element's coordinate. A backend computes the uniform part and the thread's
//! share of the linear part once per level, sign-extends and scales it as the `tt.addptr` does,
//! and adds each register's share of the linear part as an immediate.
//!
//! The IR's offsets are 32-bit and wrap; the immediate is added after the sign extension. The two
//! agree unless a level's offset wraps for some element, which puts that element's pointer
//! gigabytes away from its base: out of bounds either way.

use std::collections::BTreeMap;

use super::trip_count;
use crate::ir::{Attr, Body, DType, Op, Opcode, Value};

/// How many values the reading visits before it gives up (tile pointers are short chains; the
/// bound is on visits, not depth, so that shared operands cannot make it exponential).
const MAX_STEPS: u32 = 256;

/// A pointer tensor as `base` plus the offsets of its `tt.addptr` levels, each sign-extended and
/// scaled by the pointee's size on its own, as the IR adds them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AffinePointer {
    /// The scalar pointer every element is offset from.
    pub base: Value,
    /// One 32-bit offset per `tt.addptr`, innermost first.
    pub levels: Vec<AffineOffset>,
}

/// A 32-bit integer tensor as `sum(terms[v] * v) + constant + sum(coeffs[d] * coordinate[d])`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AffineOffset {
    /// Scalar values (uniform over the tensor) and their factors.
    pub terms: BTreeMap<Value, i64>,
    pub constant: i64,
    /// One factor per dimension of the tensor.
    pub coeffs: Vec<i64>,
}

impl AffineOffset {
    fn uniform(terms: BTreeMap<Value, i64>, constant: i64, rank: usize) -> AffineOffset {
        AffineOffset { terms, constant, coeffs: vec![0; rank] }
    }

    /// The linear part at coordinate `c` (a register's share, for a thread at the origin).
    pub fn linear_at(&self, c: &[u32]) -> i64 {
        self.coeffs.iter().zip(c).map(|(k, &x)| k * i64::from(x)).sum()
    }

    fn as_constant(&self) -> Option<i64> {
        (self.terms.is_empty() && self.coeffs.iter().all(|&k| k == 0)).then_some(self.constant)
    }

    fn insert_dim(&mut self, axis: usize) -> Option<()> {
        (axis <= self.coeffs.len()).then(|| self.coeffs.insert(axis, 0))
    }

    /// `self + sign * other`, term by term (`None` on overflow or different ranks).
    pub fn combine(mut self, other: AffineOffset, sign: i64) -> Option<AffineOffset> {
        if self.coeffs.len() != other.coeffs.len() {
            return None;
        }
        for (value, k) in other.terms {
            let term = self.terms.entry(value).or_insert(0);
            *term = term.checked_add(k.checked_mul(sign)?)?;
        }
        self.terms.retain(|_, k| *k != 0);
        self.constant = self.constant.checked_add(other.constant.checked_mul(sign)?)?;
        for (a, b) in self.coeffs.iter_mut().zip(other.coeffs) {
            *a = a.checked_add(b.checked_mul(sign)?)?;
        }
        Some(self)
    }

    fn scale(mut self, factor: i64) -> Option<AffineOffset> {
        for k in self.terms.values_mut() {
            *k = k.checked_mul(factor)?;
        }
        self.terms.retain(|_, k| *k != 0);
        self.constant = self.constant.checked_mul(factor)?;
        for k in &mut self.coeffs {
            *k = k.checked_mul(factor)?;
        }
        Some(self)
    }
}

/// Pointer tensor `v` as a base and affine levels, when it is built as the module docs say.
pub fn pointer(body: &Body, v: Value) -> Option<AffinePointer> {
    let mut steps = MAX_STEPS;
    pointer_at(body, v, &mut steps)
}

fn pointer_at(body: &Body, v: Value, steps: &mut u32) -> Option<AffinePointer> {
    super::take_step(steps)?;
    let def = body.def_op(v)?;
    let operands = &body.op(def).operands;
    match body.opcode(def) {
        Opcode::Splat if body.ty(operands[0]).shape().is_empty() => {
            Some(AffinePointer { base: operands[0], levels: Vec::new() })
        }
        Opcode::AddPtr if !body.ty(operands[0]).shape().is_empty() => {
            let mut pointer = pointer_at(body, operands[0], steps)?;
            pointer.levels.push(offset_at(body, operands[1], steps)?);
            Some(pointer)
        }
        _ => {
            let (inner, inserted) = reshaped(body, def)?;
            let mut pointer = pointer_at(body, inner, steps)?;
            if let Some(axis) = inserted {
                for level in &mut pointer.levels {
                    level.insert_dim(axis)?;
                }
            }
            Some(pointer)
        }
    }
}

/// For an op that moves each element without changing it (`tt.broadcast`, `ttg.convert_layout`,
/// `tt.expand_dims`): its operand, and the dimension `tt.expand_dims` inserts.
fn reshaped(body: &Body, def: Op) -> Option<(Value, Option<usize>)> {
    let data = body.op(def);
    match body.opcode(def) {
        Opcode::Broadcast | Opcode::ConvertLayout => Some((data.operands[0], None)),
        Opcode::ExpandDims => {
            let axis = usize::try_from(data.attrs.get("axis").and_then(Attr::as_int)?).ok()?;
            Some((data.operands[0], Some(axis)))
        }
        _ => None,
    }
}

/// 32-bit integer tensor `v` as an affine offset.
fn offset_at(body: &Body, v: Value, steps: &mut u32) -> Option<AffineOffset> {
    super::take_step(steps)?;
    let ty = body.ty(v);
    if ty.is_ptr() || ty.dtype() != DType::I32 {
        return None;
    }
    let rank = ty.shape().len();
    let def = body.def_op(v)?;
    let data = body.op(def);
    let operands = &data.operands;
    match body.opcode(def) {
        Opcode::Constant => Some(AffineOffset::uniform(
            BTreeMap::new(),
            data.attrs.get("value").and_then(Attr::as_int)?,
            rank,
        )),
        Opcode::MakeRange if rank == 1 => {
            let start = data.attrs.get("start").and_then(Attr::as_int)?;
            Some(AffineOffset { terms: BTreeMap::new(), constant: start, coeffs: vec![1] })
        }
        Opcode::Splat => Some(match trip_count::constant(body, operands[0]) {
            Some(c) => AffineOffset::uniform(BTreeMap::new(), c, rank),
            None => AffineOffset::uniform(BTreeMap::from([(operands[0], 1)]), 0, rank),
        }),
        Opcode::AddI | Opcode::SubI => {
            let sign = if body.opcode(def) == Opcode::AddI { 1 } else { -1 };
            let lhs = offset_at(body, operands[0], steps)?;
            lhs.combine(offset_at(body, operands[1], steps)?, sign)
        }
        Opcode::MulI => {
            let (lhs, rhs) = (offset_at(body, operands[0], steps)?, offset_at(body, operands[1], steps)?);
            match (lhs.as_constant(), rhs.as_constant()) {
                (_, Some(factor)) => lhs.scale(factor),
                (Some(factor), None) => rhs.scale(factor),
                (None, None) => None,
            }
        }
        _ => {
            let (inner, inserted) = reshaped(body, def)?;
            let mut offset = offset_at(body, inner, steps)?;
            if let Some(axis) = inserted {
                offset.insert_dim(axis)?;
            }
            Some(offset)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Attrs, Builder, Elem, Type};

    fn offset(body: &Body, v: Value) -> Option<AffineOffset> {
        let mut steps = MAX_STEPS;
        offset_at(body, v, &mut steps)
    }

    fn ints(shape: &[u32]) -> Type {
        Type::tensor(Elem::Scalar(DType::I32), shape)
    }

    fn pointers(shape: &[u32]) -> Type {
        Type::tensor(Elem::Ptr(DType::F16), shape)
    }

    fn range(b: &mut Builder, end: i64) -> Value {
        let attrs = Attrs::new().with("start", Attr::Int(0)).with("end", Attr::Int(end));
        b.value(Opcode::MakeRange, vec![], ints(&[end as u32]), attrs)
    }

    fn expand(b: &mut Builder, x: Value, axis: i64, ty: Type) -> Value {
        b.value(Opcode::ExpandDims, vec![x], ty, Attrs::new().with("axis", Attr::Int(axis)))
    }

    /// `base + (n0 + arange(0, 64))[None, :] * 128 + arange(0, 128)[:, None]`: the K^T tile of
    /// attention, two `tt.addptr` levels.
    #[test]
    fn attention_tiles_are_a_base_and_two_affine_levels() {
        let mut body = Body::new();
        let entry = body.new_block(&[Type::ptr(DType::F16), Type::scalar(DType::I32)]);
        let (base, n0) = (body.blocks[entry].args[0], body.blocks[entry].args[1]);
        let mut b = Builder::at(&mut body, entry, 0);
        let cols = range(&mut b, 64);
        let n0s = b.value(Opcode::Splat, vec![n0], ints(&[64]), Attrs::new());
        let rows = b.same_type(Opcode::AddI, vec![n0s, cols]);
        let rows = expand(&mut b, rows, 0, ints(&[1, 64]));
        let stride = b.constant(ints(&[1, 64]), Attr::Int(128));
        let row_offsets = b.same_type(Opcode::MulI, vec![rows, stride]);
        let splat = b.value(Opcode::Splat, vec![base], pointers(&[1, 64]), Attrs::new());
        let row_ptrs = b.value(Opcode::AddPtr, vec![splat, row_offsets], pointers(&[1, 64]), Attrs::new());
        let row_ptrs = b.value(Opcode::Broadcast, vec![row_ptrs], pointers(&[128, 64]), Attrs::new());
        let d = range(&mut b, 128);
        let d = expand(&mut b, d, 1, ints(&[128, 1]));
        let d = b.value(Opcode::Broadcast, vec![d], ints(&[128, 64]), Attrs::new());
        let tile = b.value(Opcode::AddPtr, vec![row_ptrs, d], pointers(&[128, 64]), Attrs::new());

        let pointer = pointer(&body, tile).expect("an affine tile");
        assert_eq!(pointer.base, base);
        assert_eq!(
            pointer.levels,
            vec![
                AffineOffset { terms: BTreeMap::from([(n0, 128)]), constant: 0, coeffs: vec![0, 128] },
                AffineOffset { terms: BTreeMap::new(), constant: 0, coeffs: vec![1, 0] },
            ]
        );
        assert_eq!(pointer.levels[0].linear_at(&[5, 3]), 384);
    }

    /// A product of two tensors that vary is not affine; neither is an i64 offset.
    #[test]
    fn products_of_varying_tensors_are_not_affine() {
        let mut body = Body::new();
        let entry = body.new_block(&[]);
        let mut b = Builder::at(&mut body, entry, 0);
        let r = range(&mut b, 16);
        let square = b.same_type(Opcode::MulI, vec![r, r]);
        let wide =
            b.value(Opcode::ExtSI, vec![r], Type::tensor(Elem::Scalar(DType::I64), &[16]), Attrs::new());
        assert_eq!(offset(&body, square), None);
        assert_eq!(offset(&body, wide), None);
        assert_eq!(
            offset(&body, r),
            Some(AffineOffset { terms: BTreeMap::new(), constant: 0, coeffs: vec![1] })
        );
    }

    /// `r + r` nested forty deep: a few ops, but a tree of 2^40 leaves; the reading gives up
    /// after its budget of visits instead of following every path (it took 2^24 visits when the
    /// bound was a depth).
    #[test]
    fn the_reading_is_bounded_by_visits() {
        let mut body = Body::new();
        let entry = body.new_block(&[]);
        let mut b = Builder::at(&mut body, entry, 0);
        let mut x = range(&mut b, 16);
        for _ in 0..40 {
            x = b.same_type(Opcode::AddI, vec![x, x]);
        }
        let started = std::time::Instant::now();
        assert_eq!(offset(&body, x), None);
        assert!(started.elapsed() < std::time::Duration::from_millis(100));
    }
}
