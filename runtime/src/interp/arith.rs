//! Elementwise ops: integer and float arithmetic, comparisons, `math.*`, select, casts and
//! constants.
//!
//! Each op is dispatched once per tensor; the per-element work is a monomorphized closure over
//! flat storage. Operands of one element broadcast (see `value.rs`). Results follow the
//! invariants of `numerics.rs`: integers are re-canonicalized after every wrapping op and floats
//! are rounded to the result dtype after every op.

use trident_midend::ir::{Attr, Attrs, DType, Opcode, Type};

use super::numerics::{
    canon, erf, float_from_bits, float_to_bits, float_to_int, int_to_float, round, sext, zext,
};
use super::value::{elementwise_shape, err, lane, Data, Ptr, Res, Val};

fn map1_int(a: &Val, f: impl Fn(i64) -> i64) -> Res<Val> {
    let out = a.ints()?.iter().map(|&x| f(x)).collect();
    Val::new(a.shape.clone(), Data::Int(out))
}

fn map1_float(a: &Val, f: impl Fn(f64) -> f64) -> Res<Val> {
    let out = a.floats()?.iter().map(|&x| f(x)).collect();
    Val::new(a.shape.clone(), Data::Float(out))
}

fn map2_int(a: &Val, b: &Val, f: impl Fn(i64, i64) -> i64) -> Res<Val> {
    let shape = elementwise_shape(&[a, b])?;
    let (x, y) = (a.ints()?, b.ints()?);
    let n = shape.iter().product();
    let out = (0..n).map(|i| f(x[lane(x.len(), i)], y[lane(y.len(), i)])).collect();
    Val::new(shape, Data::Int(out))
}

fn map2_float(a: &Val, b: &Val, f: impl Fn(f64, f64) -> f64) -> Res<Val> {
    let shape = elementwise_shape(&[a, b])?;
    let (x, y) = (a.floats()?, b.floats()?);
    let n = shape.iter().product();
    let out = (0..n).map(|i| f(x[lane(x.len(), i)], y[lane(y.len(), i)])).collect();
    Val::new(shape, Data::Float(out))
}

/// A float comparison producing i1 values.
fn cmp_float(a: &Val, b: &Val, f: impl Fn(f64, f64) -> bool) -> Res<Val> {
    let shape = elementwise_shape(&[a, b])?;
    let (x, y) = (a.floats()?, b.floats()?);
    let n = shape.iter().product();
    let out = (0..n).map(|i| f(x[lane(x.len(), i)], y[lane(y.len(), i)]) as i64).collect();
    Val::new(shape, Data::Int(out))
}

fn map3_float(a: &Val, b: &Val, c: &Val, f: impl Fn(f64, f64, f64) -> f64) -> Res<Val> {
    let shape = elementwise_shape(&[a, b, c])?;
    let (x, y, z) = (a.floats()?, b.floats()?, c.floats()?);
    let n = shape.iter().product();
    let out = (0..n).map(|i| f(x[lane(x.len(), i)], y[lane(y.len(), i)], z[lane(z.len(), i)])).collect();
    Val::new(shape, Data::Float(out))
}

/// IEEE maxNum: a NaN operand yields the other; +0 is above -0.
fn max_num(x: f64, y: f64) -> f64 {
    if x.is_nan() || y > x || (y == x && x.is_sign_negative()) {
        y
    } else {
        x
    }
}

fn min_num(x: f64, y: f64) -> f64 {
    if x.is_nan() || y < x || (y == x && y.is_sign_negative()) {
        y
    } else {
        x
    }
}

fn maximum(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else {
        max_num(x, y)
    }
}

fn minimum(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else {
        min_num(x, y)
    }
}

fn predicate(attrs: &Attrs) -> Res<&str> {
    match attrs.str("predicate") {
        Some(p) => Ok(p),
        None => err("comparison without a `predicate` attribute"),
    }
}

/// Fails when any lane of a divisor is zero.
fn check_divisor(b: &Val) -> Res<()> {
    if b.ints()?.contains(&0) {
        return err("integer division by zero");
    }
    Ok(())
}

/// Integer ops. `d` is the operands' dtype.
fn int_binary(opcode: Opcode, attrs: &Attrs, d: DType, a: &Val, b: &Val) -> Res<Val> {
    let bits = d.bits();
    let s = move |x: i64| sext(bits, x);
    let u = move |x: i64| zext(bits, x);
    let c = move |x: i64| canon(d, x);
    match opcode {
        Opcode::AddI => map2_int(a, b, |x, y| c(x.wrapping_add(y))),
        Opcode::SubI => map2_int(a, b, |x, y| c(x.wrapping_sub(y))),
        Opcode::MulI => map2_int(a, b, |x, y| c(x.wrapping_mul(y))),
        Opcode::DivSI => {
            check_divisor(b)?;
            map2_int(a, b, |x, y| c(s(x).wrapping_div(s(y))))
        }
        Opcode::RemSI => {
            check_divisor(b)?;
            map2_int(a, b, |x, y| c(s(x).wrapping_rem(s(y))))
        }
        Opcode::DivUI => {
            check_divisor(b)?;
            map2_int(a, b, |x, y| c((u(x) / u(y)) as i64))
        }
        Opcode::RemUI => {
            check_divisor(b)?;
            map2_int(a, b, |x, y| c((u(x) % u(y)) as i64))
        }
        Opcode::AndI => map2_int(a, b, |x, y| c(x & y)),
        Opcode::OrI => map2_int(a, b, |x, y| c(x | y)),
        Opcode::XOrI => map2_int(a, b, |x, y| c(x ^ y)),
        Opcode::ShLI => map2_int(a, b, |x, y| if u(y) >= bits as u64 { 0 } else { c(x << u(y)) }),
        Opcode::ShRUI => {
            map2_int(a, b, |x, y| if u(y) >= bits as u64 { 0 } else { c((u(x) >> u(y)) as i64) })
        }
        Opcode::ShRSI => map2_int(a, b, |x, y| c(s(x) >> u(y).min(bits as u64 - 1))),
        Opcode::MaxSI => map2_int(a, b, |x, y| if s(x) >= s(y) { x } else { y }),
        Opcode::MinSI => map2_int(a, b, |x, y| if s(x) <= s(y) { x } else { y }),
        Opcode::MaxUI => map2_int(a, b, |x, y| if u(x) >= u(y) { x } else { y }),
        Opcode::MinUI => map2_int(a, b, |x, y| if u(x) <= u(y) { x } else { y }),
        Opcode::MulHiUI => map2_int(a, b, |x, y| c(((u(x) as u128 * u(y) as u128) >> bits) as i64)),
        Opcode::CmpI => {
            let f: fn(i64, i64, u32) -> bool = match predicate(attrs)? {
                "eq" => |x, y, _| x == y,
                "ne" => |x, y, _| x != y,
                "slt" => |x, y, w| sext(w, x) < sext(w, y),
                "sle" => |x, y, w| sext(w, x) <= sext(w, y),
                "sgt" => |x, y, w| sext(w, x) > sext(w, y),
                "sge" => |x, y, w| sext(w, x) >= sext(w, y),
                "ult" => |x, y, w| zext(w, x) < zext(w, y),
                "ule" => |x, y, w| zext(w, x) <= zext(w, y),
                "ugt" => |x, y, w| zext(w, x) > zext(w, y),
                "uge" => |x, y, w| zext(w, x) >= zext(w, y),
                p => return err(format!("unknown arith.cmpi predicate `{p}`")),
            };
            map2_int(a, b, |x, y| f(x, y, bits) as i64)
        }
        _ => err(format!("internal: {} is not an integer binary op", opcode.name())),
    }
}

/// Float binary ops, rounded to `d`.
fn float_binary(opcode: Opcode, attrs: &Attrs, d: DType, a: &Val, b: &Val) -> Res<Val> {
    let r = move |x: f64| round(d, x);
    match opcode {
        Opcode::AddF => map2_float(a, b, |x, y| r(x + y)),
        Opcode::SubF => map2_float(a, b, |x, y| r(x - y)),
        Opcode::MulF => map2_float(a, b, |x, y| r(x * y)),
        Opcode::DivF | Opcode::PreciseDivF => map2_float(a, b, |x, y| r(x / y)),
        Opcode::RemF => map2_float(a, b, |x, y| r(x % y)),
        Opcode::MaxNumF => map2_float(a, b, max_num),
        Opcode::MinNumF => map2_float(a, b, min_num),
        Opcode::MaximumF => map2_float(a, b, maximum),
        Opcode::MinimumF => map2_float(a, b, minimum),
        Opcode::CmpF => {
            let f: fn(f64, f64) -> bool = match predicate(attrs)? {
                "oeq" => |x, y| x == y,
                "one" => |x, y| !x.is_nan() && !y.is_nan() && x != y,
                "olt" => |x, y| x < y,
                "ole" => |x, y| x <= y,
                "ogt" => |x, y| x > y,
                "oge" => |x, y| x >= y,
                "ueq" => |x, y| x.is_nan() || y.is_nan() || x == y,
                "une" => |x, y| x != y,
                "ult" => |x, y| x.is_nan() || y.is_nan() || x < y,
                "ule" => |x, y| x.is_nan() || y.is_nan() || x <= y,
                "ugt" => |x, y| x.is_nan() || y.is_nan() || x > y,
                "uge" => |x, y| x.is_nan() || y.is_nan() || x >= y,
                "ord" => |x, y| !x.is_nan() && !y.is_nan(),
                "uno" => |x, y| x.is_nan() || y.is_nan(),
                p => return err(format!("unknown arith.cmpf predicate `{p}`")),
            };
            cmp_float(a, b, f)
        }
        _ => err(format!("internal: {} is not a float binary op", opcode.name())),
    }
}

/// `math.*` and other one-operand float ops, computed in f64 and rounded to `d`.
fn float_unary(opcode: Opcode, d: DType, a: &Val) -> Res<Val> {
    let f: fn(f64) -> f64 = match opcode {
        Opcode::NegF => |x| -x,
        Opcode::Exp => f64::exp,
        Opcode::Exp2 => f64::exp2,
        Opcode::Log => f64::ln,
        Opcode::Log2 => f64::log2,
        Opcode::Sqrt | Opcode::PreciseSqrt => f64::sqrt,
        Opcode::Rsqrt => |x| 1.0 / x.sqrt(),
        Opcode::Sin => f64::sin,
        Opcode::Cos => f64::cos,
        Opcode::Tanh => f64::tanh,
        Opcode::AbsF => f64::abs,
        Opcode::Floor => f64::floor,
        Opcode::Ceil => f64::ceil,
        Opcode::Erf => erf,
        _ => return err(format!("internal: {} is not a float unary op", opcode.name())),
    };
    map1_float(a, |x| round(d, f(x)))
}

/// `arith.select` on any element storage.
fn select(cond: &Val, a: &Val, b: &Val) -> Res<Val> {
    let shape = elementwise_shape(&[cond, a, b])?;
    let n: usize = shape.iter().product();
    let cs = cond.ints()?;
    let (la, lb) = (a.numel(), b.numel());
    let pick = |i: usize| cs[lane(cs.len(), i)] != 0;
    let data = match (&a.data, &b.data) {
        (Data::Int(x), Data::Int(y)) => {
            Data::Int((0..n).map(|i| if pick(i) { x[lane(la, i)] } else { y[lane(lb, i)] }).collect())
        }
        (Data::Float(x), Data::Float(y)) => {
            Data::Float((0..n).map(|i| if pick(i) { x[lane(la, i)] } else { y[lane(lb, i)] }).collect())
        }
        (Data::Ptr(x), Data::Ptr(y)) => {
            Data::Ptr((0..n).map(|i| if pick(i) { x[lane(la, i)] } else { y[lane(lb, i)] }).collect())
        }
        _ => return err("arith.select on mismatched or unsupported operands"),
    };
    Val::new(shape, data)
}

/// Addresses handed out by `tt.ptr_to_int`: buffer `b` lives at `(b + 1) << 40`.
const BUFFER_STRIDE_LOG2: u32 = 40;

fn ptr_to_int(p: Ptr) -> i64 {
    ((p.buf as i64 + 1) << BUFFER_STRIDE_LOG2) + p.off
}

fn int_to_ptr(addr: i64) -> Ptr {
    let buf = ((addr + (1 << (BUFFER_STRIDE_LOG2 - 1))) >> BUFFER_STRIDE_LOG2) - 1;
    Ptr { buf: buf.clamp(0, u32::MAX as i64) as u32, off: addr - ((buf + 1) << BUFFER_STRIDE_LOG2) }
}

/// Conversions; `s` is the operand's dtype and `d` the result's.
fn cast(opcode: Opcode, s: DType, src_ty: &Type, d: DType, dst_ty: &Type, a: &Val) -> Res<Val> {
    let sbits = s.bits();
    match opcode {
        Opcode::ExtSI => map1_int(a, |x| canon(d, sext(sbits, x))),
        Opcode::ExtUI => map1_int(a, |x| canon(d, zext(sbits, x) as i64)),
        Opcode::TruncI => map1_int(a, |x| canon(d, x)),
        Opcode::ExtF | Opcode::TruncF | Opcode::FpToFp => map1_float(a, |x| round(d, x)),
        Opcode::SIToFP => {
            let out = a.ints()?.iter().map(|&x| int_to_float(sext(sbits, x) as i128, d)).collect();
            Val::new(a.shape.clone(), Data::Float(out))
        }
        Opcode::UIToFP => {
            let out = a.ints()?.iter().map(|&x| int_to_float(zext(sbits, x) as i128, d)).collect();
            Val::new(a.shape.clone(), Data::Float(out))
        }
        Opcode::FPToSI | Opcode::FPToUI => {
            let out = a.floats()?.iter().map(|&x| float_to_int(x, d)).collect();
            Val::new(a.shape.clone(), Data::Int(out))
        }
        Opcode::Bitcast => match (&a.data, src_ty.is_ptr(), dst_ty.is_ptr()) {
            (Data::Ptr(_), true, true) => Ok(a.clone()),
            (Data::Int(v), false, false) if d.is_float() => {
                let out = v.iter().map(|&x| float_from_bits(d, zext(sbits, x))).collect();
                Val::new(a.shape.clone(), Data::Float(out))
            }
            (Data::Int(_), false, false) => map1_int(a, |x| canon(d, x)),
            (Data::Float(v), false, false) if d.is_float() => {
                let out = v.iter().map(|&x| float_from_bits(d, float_to_bits(s, x))).collect();
                Val::new(a.shape.clone(), Data::Float(out))
            }
            (Data::Float(v), false, false) => {
                let out = v.iter().map(|&x| canon(d, float_to_bits(s, x) as i64)).collect();
                Val::new(a.shape.clone(), Data::Int(out))
            }
            _ => err(format!("unsupported tt.bitcast from {src_ty} to {dst_ty}")),
        },
        Opcode::PtrToInt => {
            let out = a.ptrs()?.iter().map(|&p| canon(d, ptr_to_int(p))).collect();
            Val::new(a.shape.clone(), Data::Int(out))
        }
        Opcode::IntToPtr => {
            let out = a.ints()?.iter().map(|&x| int_to_ptr(x)).collect();
            Val::new(a.shape.clone(), Data::Ptr(out))
        }
        _ => err(format!("internal: {} is not a cast", opcode.name())),
    }
}

/// `arith.constant`, splatted to the result type's shape.
pub fn constant(attrs: &Attrs, ty: &Type) -> Res<Val> {
    let shape: Vec<usize> = ty.shape().iter().map(|&d| d as usize).collect();
    let n = shape.iter().product();
    let d = ty.dtype();
    let value = match attrs.get("value") {
        Some(v) => v,
        None => return err("arith.constant without a `value` attribute"),
    };
    let data = if ty.is_ptr() || ty.is_desc() {
        return err(format!("unsupported constant of type {ty}"));
    } else if d.is_float() {
        let Some(x) = value.as_float() else {
            return err(format!("arith.constant value {value} is not a number"));
        };
        Data::Float(vec![round(d, x); n])
    } else {
        let x = match value {
            Attr::Int(x) => *x,
            Attr::Bool(b) => *b as i64,
            Attr::Float(f) => *f as i64,
            _ => return err(format!("arith.constant value {value} is not a number")),
        };
        Data::Int(vec![canon(d, x); n])
    };
    Val::new(shape, data)
}

/// Evaluates an elementwise op, or returns `Ok(None)` when `opcode` is not one.
pub fn eval(
    opcode: Opcode,
    attrs: &Attrs,
    args: &[&Val],
    arg_types: &[&Type],
    result_ty: &Type,
) -> Res<Option<Val>> {
    let d = result_ty.dtype();
    let arg = |i: usize| -> Res<&Val> {
        args.get(i).copied().ok_or_else(|| super::RuntimeError {
            message: format!("{} lacks operand {i}", opcode.name()),
            span: None,
        })
    };
    let val = match opcode {
        Opcode::AddI
        | Opcode::SubI
        | Opcode::MulI
        | Opcode::DivSI
        | Opcode::DivUI
        | Opcode::RemSI
        | Opcode::RemUI
        | Opcode::AndI
        | Opcode::OrI
        | Opcode::XOrI
        | Opcode::ShLI
        | Opcode::ShRSI
        | Opcode::ShRUI
        | Opcode::MaxSI
        | Opcode::MinSI
        | Opcode::MaxUI
        | Opcode::MinUI
        | Opcode::MulHiUI
        | Opcode::CmpI => {
            let operand_dtype = arg_types.first().map_or(d, |t| t.dtype());
            int_binary(opcode, attrs, operand_dtype, arg(0)?, arg(1)?)?
        }
        Opcode::AddF
        | Opcode::SubF
        | Opcode::MulF
        | Opcode::DivF
        | Opcode::PreciseDivF
        | Opcode::RemF
        | Opcode::MaxNumF
        | Opcode::MinNumF
        | Opcode::MaximumF
        | Opcode::MinimumF
        | Opcode::CmpF => {
            float_binary(opcode, attrs, arg_types.first().map_or(d, |t| t.dtype()), arg(0)?, arg(1)?)?
        }
        Opcode::NegF
        | Opcode::Exp
        | Opcode::Exp2
        | Opcode::Log
        | Opcode::Log2
        | Opcode::Sqrt
        | Opcode::PreciseSqrt
        | Opcode::Rsqrt
        | Opcode::Sin
        | Opcode::Cos
        | Opcode::Tanh
        | Opcode::AbsF
        | Opcode::Floor
        | Opcode::Ceil
        | Opcode::Erf => float_unary(opcode, d, arg(0)?)?,
        Opcode::AbsI => {
            let bits = d.bits();
            map1_int(arg(0)?, |x| canon(d, sext(bits, x).wrapping_abs()))?
        }
        Opcode::Fma => map3_float(arg(0)?, arg(1)?, arg(2)?, |x, y, z| match d {
            DType::F32 => (x as f32).mul_add(y as f32, z as f32) as f64,
            _ => round(d, x.mul_add(y, z)),
        })?,
        Opcode::ClampF => {
            let propagate = match attrs.get("propagate_nan") {
                Some(Attr::Str(s)) => s.eq_ignore_ascii_case("all"),
                Some(a) => a.as_bool().unwrap_or(false),
                None => false,
            };
            if propagate {
                map3_float(arg(0)?, arg(1)?, arg(2)?, |x, lo, hi| minimum(maximum(x, lo), hi))?
            } else {
                map3_float(arg(0)?, arg(1)?, arg(2)?, |x, lo, hi| min_num(max_num(x, lo), hi))?
            }
        }
        Opcode::Select => select(arg(0)?, arg(1)?, arg(2)?)?,
        Opcode::ExtSI
        | Opcode::ExtUI
        | Opcode::TruncI
        | Opcode::ExtF
        | Opcode::TruncF
        | Opcode::FpToFp
        | Opcode::SIToFP
        | Opcode::UIToFP
        | Opcode::FPToSI
        | Opcode::FPToUI
        | Opcode::Bitcast
        | Opcode::PtrToInt
        | Opcode::IntToPtr => {
            let Some(src_ty) = arg_types.first() else {
                return err(format!("{} lacks its operand", opcode.name()));
            };
            cast(opcode, src_ty.dtype(), src_ty, d, result_ty, arg(0)?)?
        }
        Opcode::Constant => constant(attrs, result_ty)?,
        _ => return Ok(None),
    };
    Ok(Some(val))
}
