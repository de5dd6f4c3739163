//! Elementwise math: `tl.where`, `maximum` / `minimum` / `clamp`, `fma`, `abs`, the
//! transcendental functions (`exp`, `log`, `sin`, ..., also as `tl.math.*` and libdevice names),
//! the correctly rounded `sqrt_rn` / `div_rn`, `sigmoid`, `umulhi`.
//!
//! Precision follows Triton's choices: `exp`/`exp2`/`log`/... take float32 or float64 (Triton
//! rejects float16 there, so kernels cast first); `/` and `fdiv` may be approximate on GPUs while
//! `div_rn` and `sqrt_rn` are correctly rounded.

use trident_midend::ir::{Attr, Attrs, DType, Opcode};

use super::CallArgs;
use crate::lower::semantic::{BinOp, CmpOp};
use crate::lower::{FnLowerer, LResult};
use crate::value::{Const, FValue};

pub fn call(l: &mut FnLowerer, name: &str, a: &mut CallArgs) -> LResult<FValue> {
    match name {
        "where" => {
            let c = l.arg(a, 0, "condition", "tl.where")?;
            let x = l.arg(a, 1, "x", "tl.where")?;
            let y = l.arg(a, 2, "y", "tl.where")?;
            l.no_more(a, "tl.where")?;
            where_(l, c, x, y)
        }
        "maximum" | "minimum" => {
            let x = l.arg(a, 0, "x", name)?;
            let y = l.arg(a, 1, "y", name)?;
            let nan = a.take(2, "propagate_nan");
            l.no_more(a, name)?;
            let propagate = propagate_nan(l, nan)?;
            min_max(l, name == "maximum", x, y, propagate)
        }
        "clamp" => {
            let x = l.arg(a, 0, "x", "tl.clamp")?;
            let lo = l.arg(a, 1, "min", "tl.clamp")?;
            let hi = l.arg(a, 2, "max", "tl.clamp")?;
            let nan = a.take(3, "propagate_nan");
            l.no_more(a, "tl.clamp")?;
            let propagate = propagate_nan(l, nan)?;
            let x = promote_bf16(l, x, "tl.clamp")?;
            let lo = promote_bf16(l, lo, "tl.clamp")?;
            let hi = promote_bf16(l, hi, "tl.clamp")?;
            let (lo, hi) = binary_typed(l, lo, hi, "tl.clamp")?;
            let FValue::Tensor(x) = x else { unreachable!("promote_bf16 returns tensors") };
            let (x, lo) = binary_typed(l, FValue::Tensor(x), FValue::Tensor(lo), "tl.clamp")?;
            let (x, hi) = binary_typed(l, FValue::Tensor(x), FValue::Tensor(hi), "tl.clamp")?;
            if !l.dtype_of(x).is_float() {
                return l.error(format!("tl.clamp needs a floating-point tensor, got {}", l.ty(x)));
            }
            let attrs = Attrs::new().with("propagate_nan", Attr::Bool(propagate));
            let ty = l.ty(x);
            Ok(FValue::Tensor(l.b().value(Opcode::ClampF, vec![x, lo, hi], ty, attrs)))
        }
        "fma" => {
            let x = l.arg(a, 0, "x", "tl.fma")?;
            let y = l.arg(a, 1, "y", "tl.fma")?;
            let z = l.arg(a, 2, "z", "tl.fma")?;
            l.no_more(a, "tl.fma")?;
            let (x, y) = binary_typed(l, x, y, "tl.fma")?;
            let (z, x) = binary_typed(l, z, FValue::Tensor(x), "tl.fma")?;
            let (z, y) = binary_typed(l, FValue::Tensor(z), FValue::Tensor(y), "tl.fma")?;
            let (x, _) = l.broadcast_pair(x, z)?;
            if !l.dtype_of(x).is_float() {
                return l.error("tl.fma needs floating-point operands");
            }
            Ok(FValue::Tensor(l.b().same_type(Opcode::Fma, vec![x, y, z])))
        }
        "abs" => {
            let x = l.arg(a, 0, "x", "tl.abs")?;
            l.no_more(a, "tl.abs")?;
            let x = l.number(&x, "tl.abs")?;
            let d = l.dtype_of(x);
            if d.is_float() {
                Ok(FValue::Tensor(l.b().same_type(Opcode::AbsF, vec![x])))
            } else if d.is_signed_int() && d != DType::I1 {
                Ok(FValue::Tensor(l.b().same_type(Opcode::AbsI, vec![x])))
            } else {
                Ok(FValue::Tensor(x))
            }
        }
        "exp" | "exp2" | "log" | "log2" | "sqrt" | "sqrt_rn" | "rsqrt" | "sin" | "cos" | "tanh" | "floor"
        | "ceil" | "erf" => {
            let x = l.arg(a, 0, "x", name)?;
            l.no_more(a, name)?;
            let x = l.float_operand(&x, &format!("tl.{name}"))?;
            let op = match name {
                "exp" => Opcode::Exp,
                "exp2" => Opcode::Exp2,
                "log" => Opcode::Log,
                "log2" => Opcode::Log2,
                "sqrt" => Opcode::Sqrt,
                "sqrt_rn" => Opcode::PreciseSqrt,
                "rsqrt" => Opcode::Rsqrt,
                "sin" => Opcode::Sin,
                "cos" => Opcode::Cos,
                "tanh" => Opcode::Tanh,
                "floor" => Opcode::Floor,
                "ceil" => Opcode::Ceil,
                _ => Opcode::Erf,
            };
            Ok(FValue::Tensor(l.b().same_type(op, vec![x])))
        }
        "div_rn" | "fdiv" => {
            let x = l.arg(a, 0, "x", name)?;
            let y = l.arg(a, 1, "y", name)?;
            let _ieee = a.take(2, "ieee_rounding");
            l.no_more(a, name)?;
            let (x, y) = binary_typed(l, x, y, &format!("tl.{name}"))?;
            let d = l.dtype_of(x);
            if d != DType::F32 && d != DType::F64 {
                return l.error(format!("tl.{name} expects fp32 or fp64, got {}", d.triton_name()));
            }
            let op = if name == "div_rn" { Opcode::PreciseDivF } else { Opcode::DivF };
            Ok(FValue::Tensor(l.b().same_type(op, vec![x, y])))
        }
        "sigmoid" => {
            let x = l.arg(a, 0, "x", "tl.sigmoid")?;
            l.no_more(a, "tl.sigmoid")?;
            let x = FValue::Tensor(l.number(&x, "tl.sigmoid")?);
            let neg = l.negate(x)?;
            let e = call(l, "exp", &mut CallArgs::positional(vec![neg]))?;
            let den = l.binary(BinOp::Add, FValue::Const(Const::Float(1.0)), e)?;
            l.binary(BinOp::TrueDiv, FValue::Const(Const::Float(1.0)), den)
        }
        "softmax" => {
            let x = l.arg(a, 0, "x", "tl.softmax")?;
            let _ieee = a.take(1, "ieee_rounding");
            l.no_more(a, "tl.softmax")?;
            let x = FValue::Tensor(l.number(&x, "tl.softmax")?);
            let m = super::call(l, "max", CallArgs::positional(vec![x.clone(), FValue::int(0)]))?;
            let z = l.binary(BinOp::Sub, x, m)?;
            let num = call(l, "exp", &mut CallArgs::positional(vec![z]))?;
            let den = super::call(l, "sum", CallArgs::positional(vec![num.clone(), FValue::int(0)]))?;
            l.binary(BinOp::TrueDiv, num, den)
        }
        "umulhi" => {
            let x = l.arg(a, 0, "x", "tl.umulhi")?;
            let y = l.arg(a, 1, "y", "tl.umulhi")?;
            l.no_more(a, "tl.umulhi")?;
            let (x, y) = binary_typed(l, x, y, "tl.umulhi")?;
            if !l.dtype_of(x).is_int() {
                return l.error("tl.umulhi needs integer operands");
            }
            Ok(FValue::Tensor(l.b().same_type(Opcode::MulHiUI, vec![x, y])))
        }
        other => l.error(format!("`{other}` is not supported")),
    }
}

fn propagate_nan(l: &FnLowerer, v: Option<FValue>) -> LResult<bool> {
    match v {
        None | Some(FValue::Const(Const::None)) => Ok(false),
        Some(FValue::Const(Const::Bool(b))) => Ok(b),
        Some(FValue::Const(Const::Int(i))) => Ok(i != 0),
        Some(FValue::Const(Const::Str(s))) => Ok(s.to_ascii_uppercase().contains("ALL")),
        Some(_) => l.error("propagate_nan must be a compile-time constant (tl.PropagateNan.ALL / NONE)"),
    }
}

/// `to_tensor` on a number, and bf16 promoted to f32 (Triton does this for min/max/clamp).
fn promote_bf16(l: &mut FnLowerer, v: FValue, func: &str) -> LResult<FValue> {
    let x = l.number(&v, func)?;
    if l.dtype_of(x) == DType::BF16 {
        return Ok(FValue::Tensor(l.cast(x, DType::F32)?));
    }
    Ok(FValue::Tensor(x))
}

/// Both operands of `func` converted to tensors of numbers and to their common type and shape,
/// without the Python scalar rule (Triton calls `to_tensor` first in these functions).
fn binary_typed(
    l: &mut FnLowerer,
    x: FValue,
    y: FValue,
    func: &str,
) -> LResult<(trident_midend::ir::Value, trident_midend::ir::Value)> {
    let x = FValue::Tensor(l.number(&x, func)?);
    let y = FValue::Tensor(l.number(&y, func)?);
    // Reuse the arithmetic typing through a comparison-free path: compute the common type from a
    // throwaway addition's rules by casting explicitly.
    let (xv, yv) = (l.to_value(&x)?, l.to_value(&y)?);
    let (dx, dy) = (l.dtype_of(xv), l.dtype_of(yv));
    let common = common_type(l, dx, dy)?;
    let xv = l.cast(xv, common)?;
    let yv = l.cast(yv, common)?;
    l.broadcast_pair(xv, yv)
}

fn common_type(l: &FnLowerer, a: DType, b: DType) -> LResult<DType> {
    if a == b {
        return Ok(a);
    }
    if a == DType::F64 || b == DType::F64 {
        return Ok(DType::F64);
    }
    if a == DType::F32 || b == DType::F32 {
        return Ok(DType::F32);
    }
    if a == DType::F16 || b == DType::F16 {
        return Ok(DType::F16);
    }
    if a.is_float() || b.is_float() {
        return Ok(DType::F32);
    }
    if a.is_int() && b.is_int() {
        return Ok(crate::lower::semantic::integer_promote(a, b));
    }
    l.error(format!("incompatible operand types {} and {}", a.triton_name(), b.triton_name()))
}

/// `tl.where(cond, x, y)`.
pub fn where_(l: &mut FnLowerer, cond: FValue, x: FValue, y: FValue) -> LResult<FValue> {
    let c = l.number(&cond, "the condition of a selection")?;
    let c = l.cast(c, DType::I1)?;
    // x and y follow the arithmetic typing rules, Python scalars included. Pointers select only
    // between pointers of one type: `select` has one result type, and Triton's own check lets a
    // pointer and an integer through to a select that MLIR then rejects.
    let is_ptr = |l: &FnLowerer, v: &FValue| matches!(v, FValue::Tensor(t) if l.ty(*t).is_ptr());
    let (xv, yv) = if is_ptr(l, &x) || is_ptr(l, &y) {
        let (a, b) = (l.to_value(&x)?, l.to_value(&y)?);
        if l.ty(a).elem() != l.ty(b).elem() {
            return l.error(format!(
                "cannot select between {} and {}: a pointer is selected only with a pointer of the same type",
                l.elem_name(a),
                l.elem_name(b)
            ));
        }
        l.broadcast_pair(a, b)?
    } else {
        typed_pair(l, x, y)?
    };
    let shape = l.broadcast_shape(&l.shape_of(c), &l.shape_of(xv))?;
    let c = l.broadcast_to(c, &shape)?;
    let xv = l.broadcast_to(xv, &shape)?;
    let yv = l.broadcast_to(yv, &shape)?;
    Ok(FValue::Tensor(l.b().select(c, xv, yv)))
}

/// Operands converted with the arithmetic rules (Python scalars take the tensor's type).
fn typed_pair(
    l: &mut FnLowerer,
    x: FValue,
    y: FValue,
) -> LResult<(trident_midend::ir::Value, trident_midend::ir::Value)> {
    // A comparison applies exactly the arithmetic typing; use its operands. Two Python scalars
    // are both materialized first (neither then counts as "the scalar" of the promotion rule).
    let (x, y) = if x.is_const() && y.is_const() {
        (FValue::Tensor(l.to_value(&x)?), FValue::Tensor(l.to_value(&y)?))
    } else {
        (x, y)
    };
    let probe = l.compare(CmpOp::Eq, x, y)?;
    let FValue::Tensor(cmp) = probe else {
        return l.error("tl.where needs at least one tensor operand");
    };
    let op = l.func.body.def_op(cmp).expect("a comparison result");
    let operands = l.func.body.op(op).operands.clone();
    l.func.body.detach_op(op);
    Ok((operands[0], operands[1]))
}

fn min_max(l: &mut FnLowerer, is_max: bool, x: FValue, y: FValue, propagate: bool) -> LResult<FValue> {
    let func = if is_max { "tl.maximum" } else { "tl.minimum" };
    let x = promote_bf16(l, x, func)?;
    let y = promote_bf16(l, y, func)?;
    let (x, y) = typed_pair(l, x, y)?;
    let d = l.dtype_of(x);
    let op = if d.is_float() {
        match (is_max, propagate) {
            (true, false) => Opcode::MaxNumF,
            (true, true) => Opcode::MaximumF,
            (false, false) => Opcode::MinNumF,
            (false, true) => Opcode::MinimumF,
        }
    } else if d.is_unsigned_int() || d == DType::I1 {
        if is_max {
            Opcode::MaxUI
        } else {
            Opcode::MinUI
        }
    } else if is_max {
        Opcode::MaxSI
    } else {
        Opcode::MinSI
    };
    Ok(FValue::Tensor(l.b().same_type(op, vec![x, y])))
}
