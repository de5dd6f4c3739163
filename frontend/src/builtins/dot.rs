//! `tl.dot(a, b, acc, input_precision, allow_tf32, max_num_imprecise_acc, out_dtype)`.
//!
//! Checks Triton's rules (2-D or batched 3-D operands, matching inner dimensions, every
//! dimension at least 16, one operand dtype) and emits `tt.dot` with an explicit accumulator: a
//! zero constant when none is given (the combine pass folds a following addition into it).
//! `input_precision` defaults to "tf32", Triton's default on NVIDIA; fp32 inputs are then rounded
//! to tf32 by every backend, the interpreter included.

use trident_midend::ir::{Attr, Attrs, DType, Elem, Opcode, Type};

use super::CallArgs;
use crate::lower::{FnLowerer, LResult};
use crate::value::{Const, FValue};

pub fn call(l: &mut FnLowerer, a: &mut CallArgs) -> LResult<FValue> {
    let x = l.arg(a, 0, "input", "tl.dot")?;
    let y = l.arg(a, 1, "other", "tl.dot")?;
    let acc = a.take(2, "acc");
    let precision = a.take(3, "input_precision");
    let allow_tf32 = a.take(4, "allow_tf32");
    let imprecise = a.take(5, "max_num_imprecise_acc");
    let out_dtype = a.take(6, "out_dtype");
    l.no_more(a, "tl.dot")?;
    let x = l.number(&x, "tl.dot")?;
    let y = l.number(&y, "tl.dot")?;
    let (sx, sy) = (l.shape_of(x), l.shape_of(y));
    if sx.len() != sy.len() || !(2..=3).contains(&sx.len()) {
        return l.error(format!(
            "tl.dot needs two 2-D (or two batched 3-D) operands, got shapes {sx:?} and {sy:?}"
        ));
    }
    let r = sx.len();
    if r == 3 && sx[0] != sy[0] {
        return l.error(format!("tl.dot: the batch dimensions differ: {sx:?} and {sy:?}"));
    }
    let (m, k, k2, n) = (sx[r - 2], sx[r - 1], sy[r - 2], sy[r - 1]);
    if k != k2 {
        return l.error(format!("tl.dot: the inner dimensions differ: {sx:?} @ {sy:?} ({k} != {k2})"));
    }
    if m < 16 || n < 16 || k < 16 {
        return l.error(format!(
            "tl.dot needs every dimension of its operands to be at least 16 (M, N, K >= 16), got {sx:?} @ {sy:?}"
        ));
    }
    let (dx, dy) = (l.dtype_of(x), l.dtype_of(y));
    if dx != dy && !(dx.is_fp8() && dy.is_fp8()) {
        return l.error(format!(
            "tl.dot needs operands of the same dtype, got {} and {}",
            dx.triton_name(),
            dy.triton_name()
        ));
    }
    let out = match out_dtype {
        None | Some(FValue::Const(Const::None)) => DType::F32,
        Some(d) => l.const_dtype(&d, "out_dtype")?,
    };
    let result_dtype = if dx.is_int() {
        if dx != DType::I8 && dx != DType::U8 {
            return l.error(format!("tl.dot supports int8 integer operands, got {}", dx.triton_name()));
        }
        DType::I32
    } else {
        if !matches!(out, DType::F32 | DType::F16 | DType::BF16) {
            return l.error("tl.dot's out_dtype must be float32 or float16");
        }
        out
    };
    let mut precision = match precision {
        None | Some(FValue::Const(Const::None)) => "tf32".to_string(),
        Some(FValue::Const(Const::Str(s))) => s.to_ascii_lowercase(),
        Some(_) => return l.error("input_precision must be a string constant"),
    };
    if let Some(FValue::Const(c)) = allow_tf32 {
        if !matches!(c, Const::None) && !c.truthy() {
            precision = "ieee".into();
        }
    }
    if !matches!(precision.as_str(), "tf32" | "tf32x3" | "ieee" | "bf16x3" | "bf16x6") {
        return l
            .error(format!("unknown input_precision {precision:?} (tf32, tf32x3, bf16x3, bf16x6, ieee)"));
    }
    let imprecise = match imprecise {
        None | Some(FValue::Const(Const::None)) => 0,
        Some(v) => l.const_int(&v, "max_num_imprecise_acc")?,
    };
    let mut out_shape = sx.clone();
    out_shape[r - 1] = n;
    let out_ty = Type::tensor(Elem::Scalar(result_dtype), &out_shape);
    let c = match acc {
        None | Some(FValue::Const(Const::None)) => {
            let zero = if result_dtype.is_float() { Attr::Float(0.0) } else { Attr::Int(0) };
            l.b().constant(out_ty.clone(), zero)
        }
        Some(acc) => {
            let c = l.number(&acc, "tl.dot's accumulator")?;
            if l.shape_of(c) != out_shape {
                return l.error(format!(
                    "tl.dot: the accumulator has shape {:?}, expected {out_shape:?}",
                    l.shape_of(c)
                ));
            }
            if l.dtype_of(c) != result_dtype {
                let d = l.dtype_of(c);
                if d.is_float() && result_dtype.is_float() {
                    // The accumulator's type wins (Triton takes the result type from acc).
                    let attrs = dot_attrs(&precision, imprecise);
                    let ty = l.ty(c);
                    return Ok(FValue::Tensor(l.b().value(Opcode::Dot, vec![x, y, c], ty, attrs)));
                }
                return l.error(format!(
                    "tl.dot: the accumulator is {}, expected {}",
                    d.triton_name(),
                    result_dtype.triton_name()
                ));
            }
            c
        }
    };
    let attrs = dot_attrs(&precision, imprecise);
    Ok(FValue::Tensor(l.b().value(Opcode::Dot, vec![x, y, c], out_ty, attrs)))
}

fn dot_attrs(precision: &str, imprecise: i64) -> Attrs {
    Attrs::new()
        .with("input_precision", Attr::Str(precision.into()))
        .with("max_num_imprecise_acc", Attr::Int(imprecise))
}
