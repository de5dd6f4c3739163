//! Triton's typing rules (its `semantic.py`): how Python scalars become tensors, how shapes
//! broadcast, how binary operands are promoted, and how values are cast.
//!
//! The rules, in short:
//! - A Python int becomes i32 if it fits, else u32, i64, u64; a Python float becomes f32 (f64 when
//!   out of f32's range); a bool becomes i1.
//! - Shapes broadcast numpy-style: missing leading dims are added, size-1 dims stretch.
//! - Promotion (`computation_type`): a Python scalar of the same or a lower kind than the tensor
//!   (bool < int < float) takes the tensor's type; otherwise f64 > f32 > f16 > bf16 (f16 and bf16
//!   divide in f32), and integers follow C's usual arithmetic conversions.
//! - `/` is always a float division; `//` and `%` on integers truncate toward zero (C).

use trident_midend::ir::{Attr, Attrs, DType, Elem, Opcode, Type, Value};

use super::{FnLowerer, LResult};
use crate::value::{Const, FValue};

/// Binary operators with Triton semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    TrueDiv,
    FloorDiv,
    Mod,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Pow,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::TrueDiv => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Pow => "**",
        }
    }
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// The dtype `to_tensor` gives a Python scalar.
pub fn const_dtype(c: &Const) -> Option<DType> {
    Some(match c {
        Const::Bool(_) => DType::I1,
        Const::Int(v) => {
            let v = *v;
            if (-(1i128 << 31)..(1i128 << 31)).contains(&v) {
                DType::I32
            } else if ((1i128 << 31)..(1i128 << 32)).contains(&v) {
                DType::U32
            } else if (-(1i128 << 63)..(1i128 << 63)).contains(&v) {
                DType::I64
            } else if ((1i128 << 63)..(1i128 << 64)).contains(&v) {
                DType::U64
            } else {
                return None;
            }
        }
        Const::Float(v) => {
            let a = v.abs();
            let min = 2f64.powi(-126);
            let max = (2.0 - 2f64.powi(-23)) * 2f64.powi(127);
            if a.is_infinite() || a == 0.0 || v.is_nan() || (min..=max).contains(&a) {
                DType::F32
            } else {
                DType::F64
            }
        }
        _ => return None,
    })
}

/// Kind order for Triton's scalar promotion rule: bool < int < float.
fn kind(d: DType) -> u8 {
    if d.is_bool() {
        0
    } else if d.is_int() {
        1
    } else {
        2
    }
}

/// C's usual arithmetic conversions between two integer types.
pub fn integer_promote(a: DType, b: DType) -> DType {
    let (ab, bb) = (a.bits(), b.bits());
    let (a_unsigned, b_unsigned) = (a.is_unsigned_int(), b.is_unsigned_int());
    if a_unsigned == b_unsigned {
        if ab > bb {
            a
        } else {
            b
        }
    } else if a_unsigned {
        if ab >= bb {
            a
        } else {
            b
        }
    } else if bb >= ab {
        b
    } else {
        a
    }
}

impl FnLowerer<'_, '_> {
    /// Triton's `computation_type_impl`.
    fn computation_type(
        &self,
        a: DType,
        a_scalar: bool,
        b: DType,
        b_scalar: bool,
        div_or_mod: bool,
    ) -> LResult<DType> {
        if a_scalar != b_scalar {
            let (scalar, tensor) = if a_scalar { (a, b) } else { (b, a) };
            if kind(scalar) <= kind(tensor) {
                if div_or_mod && matches!(tensor, DType::F16 | DType::BF16) {
                    return Ok(DType::F32);
                }
                return Ok(tensor);
            }
        }
        if a == DType::F64 || b == DType::F64 {
            return Ok(DType::F64);
        }
        if a == DType::F32 || b == DType::F32 {
            return Ok(DType::F32);
        }
        if a == DType::F16 || b == DType::F16 {
            return Ok(if div_or_mod { DType::F32 } else { DType::F16 });
        }
        if a == DType::BF16 && b == DType::BF16 {
            return Ok(if div_or_mod { DType::F32 } else { DType::BF16 });
        }
        if a == DType::BF16 || b == DType::BF16 {
            return Ok(DType::F32);
        }
        if a.is_fp8() && b.is_fp8() {
            return Ok(if a == b { a } else { DType::F16 });
        }
        if !a.is_int() || !b.is_int() {
            return self.error(format!(
                "unexpected operand types {} and {}",
                a.triton_name(),
                b.triton_name()
            ));
        }
        if div_or_mod && a.is_unsigned_int() != b.is_unsigned_int() && !a.is_bool() && !b.is_bool() {
            return self.error(format!(
                "cannot use /, // or % with {} and {}: they have different signedness; cast one of them",
                a.triton_name(),
                b.triton_name()
            ));
        }
        Ok(integer_promote(a, b))
    }

    /// A constant of dtype `d` holding `c` (Triton's `scalar_constant`).
    pub fn scalar_const(&mut self, c: &Const, d: DType) -> LResult<Value> {
        let attr = match c {
            Const::Bool(b) => {
                if d.is_float() {
                    Attr::Float(*b as i64 as f64)
                } else if d == DType::I1 {
                    Attr::Bool(*b)
                } else {
                    Attr::Int(*b as i64)
                }
            }
            Const::Int(v) => {
                if d.is_float() {
                    Attr::Float(*v as f64)
                } else if d == DType::I1 {
                    Attr::Bool(*v != 0)
                } else {
                    Attr::Int(wrap_int(*v, d))
                }
            }
            Const::Float(v) => {
                if d.is_float() {
                    Attr::Float(*v)
                } else {
                    return self.error(format!("cannot use the float {v:?} as {}", d.triton_name()));
                }
            }
            other => return self.error(format!("{} is not a number", other.describe())),
        };
        Ok(self.b().constant(Type::scalar(d), attr))
    }

    /// Turns a value into an IR value (Python scalars by `to_tensor`): a number or a pointer, never
    /// a tensor descriptor, which only its own operations take (see `operands.rs`).
    pub fn to_value(&mut self, v: &FValue) -> LResult<Value> {
        match v {
            FValue::Tensor(x) if self.ty(*x).is_desc() => {
                self.error(super::operands::descriptor_misuse(&self.ty(*x)))
            }
            FValue::Tensor(x) => Ok(*x),
            FValue::Const(c) => {
                let Some(d) = const_dtype(c) else {
                    return self.error(format!("{} cannot be used as a tensor value", c.describe()));
                };
                self.scalar_const(c, d)
            }
            FValue::Tuple(_) => self.error("a tuple cannot be used as a tensor value here"),
            FValue::BlockPtr(_) => {
                self.error("a block pointer can only be used with tl.load, tl.store and tl.advance")
            }
            _ => self.error("this is not a tensor value"),
        }
    }

    pub fn dtype_of(&self, v: Value) -> DType {
        self.func.body.ty(v).dtype()
    }

    pub fn shape_of(&self, v: Value) -> Vec<u32> {
        self.func.body.ty(v).shape().to_vec()
    }

    pub fn is_ptr(&self, v: Value) -> bool {
        self.func.body.ty(v).is_ptr()
    }

    /// Broadcasts `v` to `shape` (splat for scalars, expand + broadcast for tensors).
    pub fn broadcast_to(&mut self, v: Value, shape: &[u32]) -> LResult<Value> {
        let src = self.shape_of(v);
        if src == shape {
            return Ok(v);
        }
        if src.is_empty() {
            return Ok(self.b().splat(v, shape));
        }
        if src.len() > shape.len() {
            return self.error(format!("cannot broadcast a tensor of shape {src:?} to the shape {shape:?}"));
        }
        let mut v = v;
        let mut cur = src.clone();
        while cur.len() < shape.len() {
            cur.insert(0, 1);
            v = self.b().expand_dims(v, 0);
        }
        for (c, s) in cur.iter().zip(shape) {
            if *c != *s && *c != 1 {
                return self
                    .error(format!("cannot broadcast a tensor of shape {src:?} to the shape {shape:?}"));
            }
        }
        if cur == shape {
            return Ok(v);
        }
        let ty = self.ty(v).with_shape(shape);
        Ok(self.b().value(Opcode::Broadcast, vec![v], ty, Attrs::new()))
    }

    /// The common broadcast shape of two shapes, or an error naming both.
    pub fn broadcast_shape(&self, a: &[u32], b: &[u32]) -> LResult<Vec<u32>> {
        let rank = a.len().max(b.len());
        let pad = |s: &[u32]| -> Vec<u32> {
            let mut v = vec![1; rank - s.len()];
            v.extend_from_slice(s);
            v
        };
        let (pa, pb) = (pad(a), pad(b));
        let mut out = Vec::with_capacity(rank);
        for i in 0..rank {
            let (x, y) = (pa[i], pb[i]);
            if x == y || y == 1 {
                out.push(x);
            } else if x == 1 {
                out.push(y);
            } else {
                return self.error(format!(
                    "incompatible shapes for broadcasting: {a:?} and {b:?} (dimension {i}: {x} vs {y})"
                ));
            }
        }
        Ok(out)
    }

    pub fn broadcast_pair(&mut self, a: Value, b: Value) -> LResult<(Value, Value)> {
        let (sa, sb) = (self.shape_of(a), self.shape_of(b));
        if sa == sb {
            return Ok((a, b));
        }
        let shape = self.broadcast_shape(&sa, &sb)?;
        Ok((self.broadcast_to(a, &shape)?, self.broadcast_to(b, &shape)?))
    }

    /// Triton's value cast (`x.to(dtype)` without bitcast).
    pub fn cast(&mut self, v: Value, to: DType) -> LResult<Value> {
        let ty = self.ty(v);
        if ty.is_ptr() {
            return self.error(format!(
                "cannot cast a pointer to {}; use tl.pointer_type for pointer casts",
                to.triton_name()
            ));
        }
        let from = ty.dtype();
        if from == to {
            return Ok(v);
        }
        let out = ty.with_dtype(to);
        let b = &mut self.b();
        let r = if from.is_float() && to.is_float() {
            if (from == DType::F16 && to == DType::BF16) || (from == DType::BF16 && to == DType::F16) {
                let mid = b.cast(Opcode::ExtF, v, ty.with_dtype(DType::F32));
                let attrs = Attrs::new().with("rounding", Attr::Str("rtne".into()));
                b.value(Opcode::TruncF, vec![mid], out, attrs)
            } else if from.is_fp8() || to.is_fp8() {
                let mut attrs = Attrs::new();
                if to.bits() < from.bits() || to.is_fp8() {
                    attrs.set("rounding", Attr::Str("rtne".into()));
                }
                b.value(Opcode::FpToFp, vec![v], out, attrs)
            } else if to.bits() > from.bits() || (from == DType::BF16 && to == DType::F32) {
                b.cast(Opcode::ExtF, v, out)
            } else {
                b.cast(Opcode::TruncF, v, out)
            }
        } else if from.is_int() && to.is_int() {
            if to == DType::I1 {
                let zero = b.constant(Type::scalar(from), Attr::Int(0));
                let zero = if ty.is_tensor() { b.splat(zero, ty.shape()) } else { zero };
                b.cmpi("ne", v, zero)
            } else if from.bits() == to.bits() {
                b.cast(Opcode::Bitcast, v, out)
            } else if to.bits() > from.bits() {
                let op =
                    if from.is_signed_int() && from != DType::I1 { Opcode::ExtSI } else { Opcode::ExtUI };
                b.cast(op, v, out)
            } else {
                b.cast(Opcode::TruncI, v, out)
            }
        } else if from.is_int() && to.is_float() {
            let op =
                if from.is_unsigned_int() || from == DType::I1 { Opcode::UIToFP } else { Opcode::SIToFP };
            if to.is_fp8() {
                let mid = b.cast(op, v, ty.with_dtype(DType::F32));
                let attrs = Attrs::new().with("rounding", Attr::Str("rtne".into()));
                b.value(Opcode::FpToFp, vec![mid], out, attrs)
            } else {
                b.cast(op, v, out)
            }
        } else {
            // float -> int
            if to == DType::I1 {
                let zero = b.constant(Type::scalar(from), Attr::Float(0.0));
                let zero = if ty.is_tensor() { b.splat(zero, ty.shape()) } else { zero };
                b.cmpf("une", v, zero)
            } else {
                let src = if from.is_fp8() {
                    let attrs = Attrs::new();
                    b.value(Opcode::FpToFp, vec![v], ty.with_dtype(DType::F32), attrs)
                } else {
                    v
                };
                let op = if to.is_unsigned_int() { Opcode::FPToUI } else { Opcode::FPToSI };
                b.cast(op, src, out)
            }
        };
        Ok(r)
    }

    /// Reinterprets the bits of `v` as `to` (same width required).
    pub fn bitcast(&mut self, v: Value, to: DType) -> LResult<Value> {
        let ty = self.ty(v);
        let from = ty.dtype();
        if ty.is_ptr() {
            return self.error("use tl.pointer_type(...) to reinterpret a pointer");
        }
        if from == to {
            return Ok(v);
        }
        if from.bits() != to.bits() {
            return self.error(format!(
                "cannot bitcast {} ({} bits) to {} ({} bits): the widths differ",
                from.triton_name(),
                from.bits(),
                to.triton_name(),
                to.bits()
            ));
        }
        let out = ty.with_dtype(to);
        Ok(self.b().cast(Opcode::Bitcast, v, out))
    }

    /// Elementwise binary operation with Triton's typing.
    pub fn binary(&mut self, op: BinOp, lhs: FValue, rhs: FValue) -> LResult<FValue> {
        if let (FValue::Const(a), FValue::Const(b)) = (&lhs, &rhs) {
            return self.const_binary(op, a, b).map(FValue::Const);
        }
        if op == BinOp::Pow {
            return self
                .error("`**` is only supported between compile-time constants; use tl.exp2 / libdevice.pow");
        }
        let lhs_scalar = as_number(&lhs);
        let rhs_scalar = as_number(&rhs);
        let mut a = self.to_value(&lhs)?;
        let mut b = self.to_value(&rhs)?;
        let (ta, tb) = (self.ty(a), self.ty(b));

        // Pointer arithmetic.
        if ta.is_ptr() || tb.is_ptr() {
            return self.pointer_arith(op, a, b).map(FValue::Tensor);
        }
        let (da, db) = (ta.dtype(), tb.dtype());
        let bitwise = matches!(op, BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Shl | BinOp::Shr);
        let div_or_mod = matches!(op, BinOp::TrueDiv | BinOp::FloorDiv | BinOp::Mod);
        let ret = if bitwise {
            if !da.is_int() || !db.is_int() {
                return self.error(format!(
                    "`{}` needs integer operands, got {} and {}",
                    op.symbol(),
                    da.triton_name(),
                    db.triton_name()
                ));
            }
            integer_promote(da, db)
        } else {
            self.computation_type(da, lhs_scalar.is_some(), db, rhs_scalar.is_some(), div_or_mod)?
        };
        if !bitwise && ret.is_unsigned_int() {
            for s in [&lhs_scalar, &rhs_scalar].into_iter().flatten() {
                if let Const::Int(v) = s {
                    if *v < 0 {
                        return self.error(
                            "cannot combine an unsigned tensor with a negative scalar; cast one of them explicitly",
                        );
                    }
                }
            }
        }
        // Python scalars become constants of the result type directly; tensors are cast.
        if let (Some(c), false) = (&lhs_scalar, bitwise) {
            a = self.scalar_const(c, ret)?;
        } else {
            a = self.cast(a, ret)?;
        }
        if let (Some(c), false) = (&rhs_scalar, bitwise) {
            b = self.scalar_const(c, ret)?;
        } else {
            b = self.cast(b, ret)?;
        }
        let (a, b) = self.broadcast_pair(a, b)?;
        self.arith(op, a, b).map(FValue::Tensor)
    }

    /// Emits the op for `op` on two operands of one type and shape.
    fn arith(&mut self, op: BinOp, a: Value, b: Value) -> LResult<Value> {
        let d = self.dtype_of(a);
        let float = d.is_float();
        let signed = d.is_signed_int();
        let opcode = match op {
            BinOp::Add => {
                if float {
                    Opcode::AddF
                } else {
                    Opcode::AddI
                }
            }
            BinOp::Sub => {
                if float {
                    Opcode::SubF
                } else {
                    Opcode::SubI
                }
            }
            BinOp::Mul => {
                if float {
                    Opcode::MulF
                } else {
                    Opcode::MulI
                }
            }
            BinOp::TrueDiv => {
                let (a, b) =
                    if float { (a, b) } else { (self.cast(a, DType::F32)?, self.cast(b, DType::F32)?) };
                return Ok(self.b().same_type(Opcode::DivF, vec![a, b]));
            }
            BinOp::FloorDiv => {
                if float {
                    return self.error("`//` needs integer operands");
                }
                if signed {
                    Opcode::DivSI
                } else {
                    Opcode::DivUI
                }
            }
            BinOp::Mod => {
                if float {
                    Opcode::RemF
                } else if signed {
                    Opcode::RemSI
                } else {
                    Opcode::RemUI
                }
            }
            BinOp::And => Opcode::AndI,
            BinOp::Or => Opcode::OrI,
            BinOp::Xor => Opcode::XOrI,
            BinOp::Shl => Opcode::ShLI,
            BinOp::Shr => {
                if signed {
                    Opcode::ShRSI
                } else {
                    Opcode::ShRUI
                }
            }
            BinOp::Pow => return self.error("`**` is not supported on tensors"),
        };
        Ok(self.b().same_type(opcode, vec![a, b]))
    }

    fn pointer_arith(&mut self, op: BinOp, a: Value, b: Value) -> LResult<Value> {
        let (ta, tb) = (self.ty(a), self.ty(b));
        let (ptr, offset) = match op {
            BinOp::Add if ta.is_ptr() && !tb.is_ptr() => (a, b),
            BinOp::Add if tb.is_ptr() && !ta.is_ptr() => (b, a),
            BinOp::Sub if ta.is_ptr() && !tb.is_ptr() => {
                let zero = self.scalar_const(&Const::Int(0), tb.dtype())?;
                let zero = self.broadcast_to(zero, tb.shape())?;
                let neg = self.b().same_type(Opcode::SubI, vec![zero, b]);
                (a, neg)
            }
            _ => {
                return self.error(format!(
                "unsupported pointer arithmetic: {ta} {} {tb} (only pointer + integer and pointer - integer)",
                op.symbol()
            ))
            }
        };
        if !self.ty(offset).dtype().is_int() {
            return self.error(format!("a pointer offset must be an integer, got {}", self.ty(offset)));
        }
        let (p, o) = self.broadcast_pair(ptr, offset)?;
        let ty = self.ty(p);
        Ok(self.b().value(Opcode::AddPtr, vec![p, o], ty, Attrs::new()))
    }

    /// Comparison with Triton's typing; the result is i1.
    pub fn compare(&mut self, op: CmpOp, lhs: FValue, rhs: FValue) -> LResult<FValue> {
        if let (FValue::Const(a), FValue::Const(b)) = (&lhs, &rhs) {
            return self.const_compare(op, a, b).map(|r| FValue::Const(Const::Bool(r)));
        }
        let lhs_scalar = as_number(&lhs);
        let rhs_scalar = as_number(&rhs);
        let a = self.to_value(&lhs)?;
        let b = self.to_value(&rhs)?;
        let (da, db) = (self.dtype_of(a), self.dtype_of(b));
        if self.is_ptr(a) != self.is_ptr(b) {
            // Triton compares pointers only with pointers (IncompatibleTypeErrors otherwise).
            let (ta, tb) = (self.ty(a), self.ty(b));
            return self
                .error(format!("cannot compare {ta} with {tb}: a pointer compares only with a pointer"));
        }
        if self.is_ptr(a) {
            let (a, b) = self.broadcast_pair(a, b)?;
            let pred = cmp_pred(op, false, false);
            let ia = self.ptr_to_int(a);
            let ib = self.ptr_to_int(b);
            return Ok(FValue::Tensor(self.b().cmpi(pred, ia, ib)));
        }
        let ret = self.computation_type(da, lhs_scalar.is_some(), db, rhs_scalar.is_some(), false)?;
        let a = match &lhs_scalar {
            Some(c) => self.scalar_const(c, ret)?,
            None => self.cast(a, ret)?,
        };
        let b = match &rhs_scalar {
            Some(c) => self.scalar_const(c, ret)?,
            None => self.cast(b, ret)?,
        };
        let (a, b) = self.broadcast_pair(a, b)?;
        let r = if ret.is_float() {
            self.b().cmpf(cmp_pred(op, true, false), a, b)
        } else {
            self.b().cmpi(cmp_pred(op, false, ret.is_unsigned_int() || ret == DType::I1), a, b)
        };
        Ok(FValue::Tensor(r))
    }

    fn ptr_to_int(&mut self, p: Value) -> Value {
        let ty = self.ty(p).with_elem(Elem::Scalar(DType::I64));
        self.b().cast(Opcode::PtrToInt, p, ty)
    }

    /// `-x`, `~x`, `not x`, `+x`.
    pub fn negate(&mut self, v: FValue) -> LResult<FValue> {
        match v {
            FValue::Const(c) => Ok(FValue::Const(match c {
                Const::Int(i) => Const::Int(-i),
                Const::Float(f) => Const::Float(-f),
                Const::Bool(b) => Const::Int(-(b as i128)),
                other => return self.error(format!("cannot negate {}", other.describe())),
            })),
            other => {
                let x = self.to_value(&other)?;
                let d = self.expect_number(x, "unary `-`")?;
                if d.is_float() {
                    return Ok(FValue::Tensor(self.b().same_type(Opcode::NegF, vec![x])));
                }
                self.binary(BinOp::Sub, FValue::int(0), FValue::Tensor(x))
            }
        }
    }

    pub fn invert(&mut self, v: FValue) -> LResult<FValue> {
        match v {
            FValue::Const(Const::Int(i)) => Ok(FValue::int(!i)),
            FValue::Const(Const::Bool(b)) => Ok(FValue::int(!(b as i128))),
            other => {
                let x = self.to_value(&other)?;
                let d = self.expect_number(x, "`~`")?;
                if !d.is_int() {
                    return self.error(format!("`~` needs an integer operand, got {}", d.triton_name()));
                }
                let ones = if d == DType::I1 { Const::Bool(true) } else { Const::Int(-1) };
                let ones = self.scalar_const(&ones, d)?;
                let ones = self.broadcast_to(ones, &self.shape_of(x))?;
                Ok(FValue::Tensor(self.b().same_type(Opcode::XOrI, vec![x, ones])))
            }
        }
    }

    pub fn logical_not(&mut self, v: FValue) -> LResult<FValue> {
        match v {
            FValue::Const(c) => Ok(FValue::Const(Const::Bool(!c.truthy()))),
            other => {
                let x = self.to_value(&other)?;
                let x = self.cast(x, DType::I1)?;
                self.invert(FValue::Tensor(x))
            }
        }
    }

    /// Compile-time arithmetic with Python semantics.
    pub fn const_binary(&self, op: BinOp, a: &Const, b: &Const) -> LResult<Const> {
        let as_int = |c: &Const| match c {
            Const::Int(v) => Some(*v),
            Const::Bool(b) => Some(*b as i128),
            _ => None,
        };
        let as_float = |c: &Const| match c {
            Const::Float(v) => Some(*v),
            _ => as_int(c).map(|v| v as f64),
        };
        if let (Some(x), Some(y)) = (as_int(a), as_int(b)) {
            let both_bool = matches!((a, b), (Const::Bool(_), Const::Bool(_)));
            let r = match op {
                BinOp::Add => x.checked_add(y),
                BinOp::Sub => x.checked_sub(y),
                BinOp::Mul => x.checked_mul(y),
                BinOp::TrueDiv => {
                    if y == 0 {
                        return self.error("division by zero in a constant expression");
                    }
                    return Ok(Const::Float(x as f64 / y as f64));
                }
                BinOp::FloorDiv | BinOp::Mod => {
                    if y == 0 {
                        return self.error("division by zero in a constant expression");
                    }
                    let q = x.div_euclid(y);
                    // Python floors the quotient; div_euclid differs for negative divisors.
                    let q = if y < 0 && x.rem_euclid(y) != 0 { q + 1 } else { q };
                    Some(if op == BinOp::FloorDiv { q } else { x - q * y })
                }
                BinOp::And => Some(x & y),
                BinOp::Or => Some(x | y),
                BinOp::Xor => Some(x ^ y),
                BinOp::Shl => u32::try_from(y).ok().and_then(|s| x.checked_shl(s)),
                BinOp::Shr => u32::try_from(y).ok().map(|s| x >> s.min(127)),
                BinOp::Pow => u32::try_from(y).ok().and_then(|e| x.checked_pow(e)),
            };
            let Some(r) = r else {
                return self.error(format!("constant expression overflows: {x} {} {y}", op.symbol()));
            };
            if both_bool && matches!(op, BinOp::And | BinOp::Or | BinOp::Xor) {
                return Ok(Const::Bool(r != 0));
            }
            return Ok(Const::Int(r));
        }
        if let (Some(x), Some(y)) = (as_float(a), as_float(b)) {
            let r = match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::TrueDiv => {
                    if y == 0.0 {
                        return self.error("division by zero in a constant expression");
                    }
                    x / y
                }
                BinOp::FloorDiv => (x / y).floor(),
                BinOp::Mod => x - (x / y).floor() * y,
                BinOp::Pow => x.powf(y),
                _ => return self.error(format!("`{}` needs integer constants", op.symbol())),
            };
            return Ok(Const::Float(r));
        }
        self.error(format!(
            "unsupported constant operation: {} {} {}",
            a.describe(),
            op.symbol(),
            b.describe()
        ))
    }

    pub fn const_compare(&self, op: CmpOp, a: &Const, b: &Const) -> LResult<bool> {
        use std::cmp::Ordering;
        let num = |c: &Const| match c {
            Const::Int(v) => Some(*v as f64),
            Const::Bool(b) => Some(*b as i64 as f64),
            Const::Float(f) => Some(*f),
            _ => None,
        };
        let ord = match (a, b) {
            (Const::Int(x), Const::Int(y)) => Some(x.cmp(y)),
            _ => match (num(a), num(b)) {
                (Some(x), Some(y)) => x.partial_cmp(&y),
                _ => {
                    return match op {
                        CmpOp::Eq => Ok(a == b),
                        CmpOp::Ne => Ok(a != b),
                        _ => self.error(format!("cannot order {} and {}", a.describe(), b.describe())),
                    }
                }
            },
        };
        Ok(match (op, ord) {
            (CmpOp::Eq, o) => o == Some(Ordering::Equal),
            (CmpOp::Ne, o) => o != Some(Ordering::Equal),
            (CmpOp::Lt, o) => o == Some(Ordering::Less),
            (CmpOp::Le, o) => matches!(o, Some(Ordering::Less | Ordering::Equal)),
            (CmpOp::Gt, o) => o == Some(Ordering::Greater),
            (CmpOp::Ge, o) => matches!(o, Some(Ordering::Greater | Ordering::Equal)),
        })
    }
}

/// A Python number literal (the "scalar" of Triton's promotion rules).
fn as_number(v: &FValue) -> Option<Const> {
    match v {
        FValue::Const(c @ (Const::Int(_) | Const::Float(_) | Const::Bool(_))) => Some(c.clone()),
        _ => None,
    }
}

fn cmp_pred(op: CmpOp, float: bool, unsigned: bool) -> &'static str {
    match (op, float, unsigned) {
        (CmpOp::Eq, true, _) => "oeq",
        (CmpOp::Ne, true, _) => "une",
        (CmpOp::Lt, true, _) => "olt",
        (CmpOp::Le, true, _) => "ole",
        (CmpOp::Gt, true, _) => "ogt",
        (CmpOp::Ge, true, _) => "oge",
        (CmpOp::Eq, false, _) => "eq",
        (CmpOp::Ne, false, _) => "ne",
        (CmpOp::Lt, false, false) => "slt",
        (CmpOp::Le, false, false) => "sle",
        (CmpOp::Gt, false, false) => "sgt",
        (CmpOp::Ge, false, false) => "sge",
        (CmpOp::Lt, false, true) => "ult",
        (CmpOp::Le, false, true) => "ule",
        (CmpOp::Gt, false, true) => "ugt",
        (CmpOp::Ge, false, true) => "uge",
    }
}

/// Wraps a Python int into the range of an integer dtype (two's complement), as the stored
/// attribute of a constant.
pub fn wrap_int(v: i128, d: DType) -> i64 {
    let bits = d.bits();
    if bits >= 64 {
        return v as i64;
    }
    let mask = (1i128 << bits) - 1;
    let low = v & mask;
    if d.is_signed_int() && low >> (bits - 1) & 1 == 1 {
        (low - (1i128 << bits)) as i64
    } else {
        low as i64
    }
}
