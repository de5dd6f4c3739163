//! Elementwise ops: integer and float arithmetic, comparisons, select, casts and math, one
//! element at a time. The midend walks the registers (each distinct tuple of operand registers
//! once) and picks the rule of each opcode's kind ([`trident_midend::codegen::elementwise`]);
//! this file spells each kind.
//!
//! Numeric choices, following the nvptx backend and the interpreter:
//! - 8- and 16-bit integers live in 32-bit values, sign- or zero-extended; results are
//!   re-extended after every op so they wrap at their own width.
//! - f16 and bf16 arithmetic is done in f32 and rounded back to nearest-even: f16 through
//!   `PackHalf2x16`/`UnpackHalf2x16`, bf16 with integer bit arithmetic. fp8 (e4m3fn, e5m2) is
//!   converted in integer arithmetic, as the nvptx backend's software path does: exact on the way
//!   to f32, rounded to nearest-even and saturated to the largest finite value on the way back.
//! - Shifts by the type's width or more give 0 (or the sign for arithmetic right shifts), as
//!   PTX does, instead of SPIR-V's undefined result.
//! - float -> int conversions truncate and saturate; NaN gives 0.
//! - `erf` is a polynomial (Abramowitz and Stegun 7.1.26, absolute error below 1.5e-7).

use rspirv::spirv::Op;
use trident_midend::codegen::elementwise::{narrow, wide, widen};
use trident_midend::codegen::LowerElementwise;
use trident_midend::ir::{DType, Opcode};

use crate::emit::{class_of, EResult, Emitter};
use crate::spirv::{glsl, Class, Reg};

/// An integer constant as its 32-bit register holds it (narrow types extended).
pub fn normalize_const(v: i64, d: DType) -> u32 {
    match d {
        DType::I8 => v as i8 as i32 as u32,
        DType::I16 => v as i16 as i32 as u32,
        DType::U8 => v as u8 as u32,
        DType::U16 => v as u16 as u32,
        _ => v as u32,
    }
}

/// Re-extends a narrow integer held in 32 bits so it wraps at its width.
pub fn normalize_int(e: &mut Emitter, r: Reg, d: DType) -> Reg {
    match d {
        DType::I8 | DType::I16 => {
            let k = e.u32c(32 - d.bits());
            let t = e.s.op(Op::ShiftLeftLogical, Class::U32, &[r, k]);
            e.s.op(Op::ShiftRightArithmetic, Class::U32, &[t, k])
        }
        DType::U8 | DType::U16 => {
            let m = e.u32c(if d == DType::U8 { 0xff } else { 0xffff });
            e.s.op(Op::BitwiseAnd, Class::U32, &[r, m])
        }
        _ => r,
    }
}

/// An f32 rounded to nearest-even into f16 bits in integer arithmetic (and one f32 add for
/// subnormal results), for modules that may use 16-bit storage and round-trip an f16
/// (`Emitter::f16_rounding_in_integers`): there NVIDIA's Vulkan driver (580.159, H100) folds
/// `UnpackHalf2x16(PackHalf2x16(x))` to `x`, so that `x.to(tl.float16).to(tl.float32)` came back
/// unrounded; integer arithmetic leaves it nothing to fold.
/// - NaN gives a quiet NaN, magnitudes of 65520 and above infinity (of the sign);
/// - normal results: the exponent rebiased, then the 13 dropped bits rounded to nearest-even;
/// - below 2^-14: adding 0.5 (2^-1) lets the f32 adder round the value to a multiple of 2^-24,
///   whose bits, less those of 0.5, are the f16 subnormal.
fn f32_to_f16_bits(e: &mut Emitter, f: Reg) -> Reg {
    let bits = e.s.op(Op::Bitcast, Class::U32, &[f]);
    let (k16, k13, one) = (e.u32c(16), e.u32c(13), e.u32c(1));
    let sign = e.s.op(Op::ShiftRightLogical, Class::U32, &[bits, k16]);
    let sign_mask = e.u32c(0x8000);
    let sign = e.s.op(Op::BitwiseAnd, Class::U32, &[sign, sign_mask]);
    let abs_mask = e.u32c(0x7fff_ffff);
    let abs = e.s.op(Op::BitwiseAnd, Class::U32, &[bits, abs_mask]);
    // Normal: rebias the exponent by 15 - 127 (a wrapping add), round half to even at bit 13.
    let odd = e.s.op(Op::ShiftRightLogical, Class::U32, &[abs, k13]);
    let odd = e.s.op(Op::BitwiseAnd, Class::U32, &[odd, one]);
    let rebias_and_half = e.u32c(0xc800_0fff);
    let normal = e.s.op(Op::IAdd, Class::U32, &[abs, rebias_and_half]);
    let normal = e.s.op(Op::IAdd, Class::U32, &[normal, odd]);
    let normal = e.s.op(Op::ShiftRightLogical, Class::U32, &[normal, k13]);
    // Subnormal (or zero): the f32 adder rounds |x| + 0.5 to a multiple of 2^-24.
    let magnitude = e.s.op(Op::Bitcast, Class::F32, &[abs]);
    let half = e.s.const_f32(0.5);
    let shifted = e.s.op(Op::FAdd, Class::F32, &[magnitude, half]);
    let shifted = e.s.op(Op::Bitcast, Class::U32, &[shifted]);
    let half_bits = e.u32c(0x3f00_0000);
    let subnormal = e.s.op(Op::ISub, Class::U32, &[shifted, half_bits]);
    let smallest_normal = e.u32c(0x3880_0000);
    let is_subnormal = e.s.op(Op::ULessThan, Class::Bool, &[abs, smallest_normal]);
    let finite = e.s.select(is_subnormal, subnormal, normal);
    // Too large for f16 (65520 and up rounds to infinity), infinity, NaN.
    let f16_overflow = e.u32c(0x4780_0000);
    let overflows = e.s.op(Op::UGreaterThanEqual, Class::Bool, &[abs, f16_overflow]);
    let f32_infinity = e.u32c(0x7f80_0000);
    let nan = e.s.op(Op::UGreaterThan, Class::Bool, &[abs, f32_infinity]);
    let (quiet_nan, infinity) = (e.u32c(0x7e00), e.u32c(0x7c00));
    let special = e.s.select(nan, quiet_nan, infinity);
    let magnitude = e.s.select(overflows, special, finite);
    e.s.op(Op::BitwiseOr, Class::U32, &[sign, magnitude])
}

/// A 16-bit float (its bits in a u32) widened to f32.
pub fn widen_to_f32(e: &mut Emitter, r: Reg, d: DType) -> EResult<Reg> {
    match d {
        DType::F32 => Ok(r),
        DType::F16 => {
            let f32t = e.s.ty(Class::F32);
            let v2 = e.s.vector_ty(f32t, 2);
            let f32t = e.s.ty(Class::F32);
            let ops = [rspirv::dr::Operand::IdRef(r.id)];
            let set = e.s.glsl;
            let pair = e.s.build(|b| b.ext_inst(v2, None, set, glsl::UNPACK_HALF_2X16, ops));
            let id = e.s.inst_raw(
                Op::CompositeExtract,
                Some(f32t),
                vec![rspirv::dr::Operand::IdRef(pair), rspirv::dr::Operand::LiteralBit32(0)],
            );
            Ok(Reg { id: id.unwrap(), class: Class::F32 })
        }
        DType::BF16 => {
            let k = e.u32c(16);
            let t = e.s.op(Op::ShiftLeftLogical, Class::U32, &[r, k]);
            Ok(e.s.op(Op::Bitcast, Class::F32, &[t]))
        }
        DType::F8E4M3 | DType::F8E5M2 => Ok(fp8_to_f32(e, r, d)),
        _ => e.unsupported(&format!("{d} arithmetic on spirv")),
    }
}

/// fp8 bits (in a u32) -> f32, exactly, in integer arithmetic.
fn fp8_to_f32(e: &mut Emitter, code: Reg, d: DType) -> Reg {
    let (mbits, bias, _) = d.fp8_format().expect("an fp8 type");
    let ebits = 7 - mbits;
    let (mb, emask, mmask) = (e.u32c(mbits), e.u32c((1 << ebits) - 1), e.u32c((1 << mbits) - 1));
    let exponent = e.s.op(Op::ShiftRightLogical, Class::U32, &[code, mb]);
    let exponent = e.s.op(Op::BitwiseAnd, Class::U32, &[exponent, emask]);
    let mantissa = e.s.op(Op::BitwiseAnd, Class::U32, &[code, mmask]);
    // Normal: the exponent rebiased into f32's, the mantissa moved to the top.
    let rebias = e.u32c((127 - bias) as u32);
    let bits = e.s.op(Op::IAdd, Class::U32, &[exponent, rebias]);
    let k23 = e.u32c(23);
    let bits = e.s.op(Op::ShiftLeftLogical, Class::U32, &[bits, k23]);
    let top = e.u32c(23 - mbits);
    let mantissa_top = e.s.op(Op::ShiftLeftLogical, Class::U32, &[mantissa, top]);
    let bits = e.s.op(Op::BitwiseOr, Class::U32, &[bits, mantissa_top]);
    let normal = e.s.op(Op::Bitcast, Class::F32, &[bits]);
    // Subnormal (exponent 0): the mantissa times the smallest subnormal.
    let zero = e.u32c(0);
    let is_subnormal = e.s.op(Op::IEqual, Class::Bool, &[exponent, zero]);
    let m = e.s.op(Op::ConvertUToF, Class::F32, &[mantissa]);
    let scale = e.s.const_f32(2f32.powi(1 - bias - mbits as i32));
    let subnormal = e.s.op(Op::FMul, Class::F32, &[m, scale]);
    let mut f = e.s.select(is_subnormal, subnormal, normal);
    // Specials: e4m3fn has one NaN (all ones); e5m2 has IEEE infinities and NaNs.
    let nan = {
        let bits = e.u32c(0x7fc0_0000);
        e.s.in_prologue(|s| s.op(Op::Bitcast, Class::F32, &[bits]))
    };
    if d == DType::F8E4M3 {
        let low7 = e.u32c(0x7f);
        let magnitude = e.s.op(Op::BitwiseAnd, Class::U32, &[code, low7]);
        let is_nan = e.s.op(Op::IEqual, Class::Bool, &[magnitude, low7]);
        f = e.s.select(is_nan, nan, f);
    } else {
        let is_special = e.s.op(Op::IEqual, Class::Bool, &[exponent, emask]);
        let is_inf = e.s.op(Op::IEqual, Class::Bool, &[mantissa, zero]);
        let inf = {
            let bits = e.u32c(0x7f80_0000);
            e.s.in_prologue(|s| s.op(Op::Bitcast, Class::F32, &[bits]))
        };
        let special = e.s.select(is_inf, inf, nan);
        f = e.s.select(is_special, special, f);
    }
    let k7 = e.u32c(7);
    let sign = e.s.op(Op::ShiftRightLogical, Class::U32, &[code, k7]);
    let one = e.u32c(1);
    let sign = e.s.op(Op::BitwiseAnd, Class::U32, &[sign, one]);
    let negative = e.s.op(Op::INotEqual, Class::Bool, &[sign, zero]);
    let negated = e.s.op(Op::FNegate, Class::F32, &[f]);
    e.s.select(negative, negated, f)
}

/// f32 -> fp8 bits in integer arithmetic: the mantissa rounded to nearest-even, the magnitude
/// saturated to the largest finite value, NaN to the all-ones code.
fn f32_to_fp8(e: &mut Emitter, f: Reg, d: DType) -> Reg {
    let (mbits, bias, max) = d.fp8_format().expect("an fp8 type");
    let shift = 23 - mbits;
    let absolute = e.s.ext(glsl::FABS, Class::F32, &[f]);
    let max_c = e.s.const_f32(max as f32);
    let a = e.s.ext(glsl::FMIN, Class::F32, &[absolute, max_c]);
    // Normal numbers: round the f32 mantissa to `mbits` bits, then rebias the exponent.
    let bits = e.s.op(Op::Bitcast, Class::U32, &[a]);
    let (shift_c, one) = (e.u32c(shift), e.u32c(1));
    let lsb = e.s.op(Op::ShiftRightLogical, Class::U32, &[bits, shift_c]);
    let lsb = e.s.op(Op::BitwiseAnd, Class::U32, &[lsb, one]);
    let half = e.u32c((1 << (shift - 1)) - 1);
    let t = e.s.op(Op::IAdd, Class::U32, &[bits, half]);
    let t = e.s.op(Op::IAdd, Class::U32, &[t, lsb]);
    let t = e.s.op(Op::ShiftRightLogical, Class::U32, &[t, shift_c]);
    let rebias = e.u32c(((127 - bias) as u32) << mbits);
    let normal = e.s.op(Op::ISub, Class::U32, &[t, rebias]);
    // Subnormals: multiples of the smallest subnormal, rounded to nearest even.
    let min_normal = e.s.const_f32(2f32.powi(1 - bias));
    let is_subnormal = e.s.op(Op::FOrdLessThan, Class::Bool, &[a, min_normal]);
    let scale = e.s.const_f32(2f32.powi(bias - 1 + mbits as i32));
    let scaled = e.s.op(Op::FMul, Class::F32, &[a, scale]);
    let scaled = e.s.ext(glsl::ROUND_EVEN, Class::F32, &[scaled]);
    let subnormal = e.s.op(Op::ConvertFToU, Class::U32, &[scaled]);
    let code = e.s.select(is_subnormal, subnormal, normal);
    let is_nan = e.is_nan(f);
    let nan_code = e.u32c(0x7f);
    let code = e.s.select(is_nan, nan_code, code);
    let raw = e.s.op(Op::Bitcast, Class::U32, &[f]);
    let k31 = e.u32c(31);
    let sign = e.s.op(Op::ShiftRightLogical, Class::U32, &[raw, k31]);
    let k7 = e.u32c(7);
    let sign = e.s.op(Op::ShiftLeftLogical, Class::U32, &[sign, k7]);
    e.s.op(Op::BitwiseOr, Class::U32, &[code, sign])
}

/// An f32 rounded to nearest-even into the bits of a 16- or 8-bit float.
pub fn narrow_from_f32(e: &mut Emitter, f: Reg, d: DType) -> EResult<Reg> {
    match d {
        DType::F16 if e.f16_rounding_in_integers => Ok(f32_to_f16_bits(e, f)),
        DType::F16 => {
            let f32t = e.s.ty(Class::F32);
            let v2 = e.s.vector_ty(f32t, 2);
            let zero = e.s.const_f32(0.0);
            let pair = e.s.inst(Op::CompositeConstruct, v2, &[f.id, zero.id]);
            let u32t = e.s.u32_ty();
            let ops = [rspirv::dr::Operand::IdRef(pair)];
            let set = e.s.glsl;
            let id = e.s.build(|b| b.ext_inst(u32t, None, set, glsl::PACK_HALF_2X16, ops));
            let m = e.u32c(0xffff);
            Ok(e.s.op(Op::BitwiseAnd, Class::U32, &[Reg { id, class: Class::U32 }, m]))
        }
        DType::BF16 => {
            // Round to nearest even on the bits; NaN stays a quiet NaN.
            let u = e.s.op(Op::Bitcast, Class::U32, &[f]);
            let (k16, one, bias) = (e.u32c(16), e.u32c(1), e.u32c(0x7fff));
            let lsb = e.s.op(Op::ShiftRightLogical, Class::U32, &[u, k16]);
            let lsb = e.s.op(Op::BitwiseAnd, Class::U32, &[lsb, one]);
            let t = e.s.op(Op::IAdd, Class::U32, &[u, bias]);
            let t = e.s.op(Op::IAdd, Class::U32, &[t, lsb]);
            let rounded = e.s.op(Op::ShiftRightLogical, Class::U32, &[t, k16]);
            let nan = e.is_nan(f);
            let qnan = e.u32c(0x7fc0);
            Ok(e.s.select(nan, qnan, rounded))
        }
        DType::F8E4M3 | DType::F8E5M2 => Ok(f32_to_fp8(e, f, d)),
        DType::F32 => Ok(f),
        _ => e.unsupported(&format!("{d} arithmetic on spirv")),
    }
}

/// A register as a plain integer value (pointers: their byte offset).
fn int_view(r: Reg) -> Reg {
    match r.class {
        Class::Ptr(_) => Reg { id: r.id, class: Class::U32 },
        _ => r,
    }
}

/// The SPIR-V spelling of each kind of element; the midend widens 16- and 8-bit float operands
/// to f32 before and rounds results back after ([`trident_midend::codegen::elementwise`]).
impl<'a> LowerElementwise<'a> for Emitter<'a> {
    /// Refuses 64-bit results in portable mode.
    fn check_result(e: &Self, out: DType) -> EResult<()> {
        e.check_class(class_of(out))
    }

    fn int_abs(e: &mut Self, x: Reg, d: DType) -> EResult<Reg> {
        let r = e.s.ext(glsl::SABS, class_of(d), &[x]);
        Ok(normalize_int(e, r, d))
    }

    fn int_compare(e: &mut Self, predicate: &str, a: Reg, b: Reg, d: DType) -> EResult<Reg> {
        if let (Class::Ptr(x), Class::Ptr(y)) = (a.class, b.class) {
            if x != y {
                return e.unsupported("a comparison of pointers into different arguments");
            }
        }
        let (x, y) = (int_view(a), int_view(b));
        if d == DType::I1 {
            let op = match predicate {
                "eq" => Op::LogicalEqual,
                "ne" => Op::LogicalNotEqual,
                _ => return e.unsupported(&format!("ordered comparison `{predicate}` of booleans")),
            };
            return Ok(e.s.op(op, Class::Bool, &[x, y]));
        }
        let unsigned = d.is_unsigned_int() || a.class != x.class;
        let op = match predicate {
            "eq" => Op::IEqual,
            "ne" => Op::INotEqual,
            "slt" if !unsigned => Op::SLessThan,
            "sle" if !unsigned => Op::SLessThanEqual,
            "sgt" if !unsigned => Op::SGreaterThan,
            "sge" if !unsigned => Op::SGreaterThanEqual,
            "slt" | "ult" => Op::ULessThan,
            "sle" | "ule" => Op::ULessThanEqual,
            "sgt" | "ugt" => Op::UGreaterThan,
            "sge" | "uge" => Op::UGreaterThanEqual,
            other => return e.invalid(format!("cmpi predicate {other}")),
        };
        Ok(e.s.op(op, Class::Bool, &[x, y]))
    }

    fn float_compare(e: &mut Self, predicate: &str, x: Reg, y: Reg, _w: DType) -> EResult<Reg> {
        let op = match predicate {
            "oeq" => Op::FOrdEqual,
            "one" => Op::FOrdNotEqual,
            "olt" => Op::FOrdLessThan,
            "ole" => Op::FOrdLessThanEqual,
            "ogt" => Op::FOrdGreaterThan,
            "oge" => Op::FOrdGreaterThanEqual,
            "ueq" => Op::FUnordEqual,
            "une" => Op::FUnordNotEqual,
            "ult" => Op::FUnordLessThan,
            "ule" => Op::FUnordLessThanEqual,
            "ugt" => Op::FUnordGreaterThan,
            "uge" => Op::FUnordGreaterThanEqual,
            "ord" | "uno" => {
                let nx = e.is_nan(x);
                let ny = e.is_nan(y);
                let any = e.s.op(Op::LogicalOr, Class::Bool, &[nx, ny]);
                return Ok(if predicate == "uno" {
                    any
                } else {
                    e.s.op(Op::LogicalNot, Class::Bool, &[any])
                });
            }
            other => return e.invalid(format!("cmpf predicate {other}")),
        };
        Ok(e.s.op(op, Class::Bool, &[x, y]))
    }

    fn select(e: &mut Self, cond: Reg, a: Reg, b: Reg) -> EResult<Reg> {
        if let (Class::Ptr(x), Class::Ptr(y)) = (a.class, b.class) {
            if x != y {
                return e.unsupported("a select between pointers into different arguments");
            }
        }
        Ok(e.s.select(cond, a, b))
    }

    fn float_binary(e: &mut Self, opcode: Opcode, x: Reg, y: Reg, w: DType) -> EResult<Reg> {
        use Opcode::*;
        let w = class_of(w);
        let r = match opcode {
            AddF => e.s.op(Op::FAdd, w, &[x, y]),
            SubF => e.s.op(Op::FSub, w, &[x, y]),
            MulF => e.s.op(Op::FMul, w, &[x, y]),
            DivF | PreciseDivF => e.s.op(Op::FDiv, w, &[x, y]),
            RemF => e.s.op(Op::FRem, w, &[x, y]),
            MaxNumF | MinNumF if e.options.mode == crate::Mode::Vulkan => {
                // NMax/NMin are maxNum/minNum (the non-NaN operand wins) in one instruction; naga's
                // SPIR-V reader, which the portable mode goes through, reads them as plain max/min
                // and would lose the NaN rule.
                e.s.ext(if opcode == MaxNumF { glsl::NMAX } else { glsl::NMIN }, w, &[x, y])
            }
            MaxNumF | MinNumF => {
                // The non-NaN operand wins.
                let m = e.s.ext(if opcode == MaxNumF { glsl::FMAX } else { glsl::FMIN }, w, &[x, y]);
                let nx = e.is_nan(x);
                let ny = e.is_nan(y);
                let m = e.s.select(nx, y, m);
                e.s.select(ny, x, m)
            }
            _ => {
                // NaN propagates.
                let m = e.s.ext(if opcode == MaximumF { glsl::FMAX } else { glsl::FMIN }, w, &[x, y]);
                let nx = e.is_nan(x);
                let ny = e.is_nan(y);
                let m = e.s.select(nx, x, m);
                e.s.select(ny, y, m)
            }
        };
        Ok(r)
    }

    fn float_unary(e: &mut Self, opcode: Opcode, x: Reg, w: DType) -> EResult<Reg> {
        use Opcode::*;
        let w = class_of(w);
        let transcendental = matches!(opcode, Exp | Exp2 | Log | Log2 | Sin | Cos | Tanh | Erf);
        if transcendental && w == Class::F64 {
            return e.unsupported("float64 transcendental math (GLSL.std.450 is 32-bit only)");
        }
        let r = match opcode {
            NegF => e.s.op(Op::FNegate, w, &[x]),
            AbsF => e.s.ext(glsl::FABS, w, &[x]),
            Exp => e.s.ext(glsl::EXP, w, &[x]),
            Exp2 => e.s.ext(glsl::EXP2, w, &[x]),
            Log => e.s.ext(glsl::LOG, w, &[x]),
            Log2 => e.s.ext(glsl::LOG2, w, &[x]),
            Sqrt | PreciseSqrt => e.s.ext(glsl::SQRT, w, &[x]),
            Rsqrt => e.s.ext(glsl::INVERSE_SQRT, w, &[x]),
            Sin => e.s.ext(glsl::SIN, w, &[x]),
            Cos => e.s.ext(glsl::COS, w, &[x]),
            Tanh => e.s.ext(glsl::TANH, w, &[x]),
            Floor => e.s.ext(glsl::FLOOR, w, &[x]),
            Ceil => e.s.ext(glsl::CEIL, w, &[x]),
            Erf => erf(e, x),
            _ => unreachable!(),
        };
        Ok(r)
    }

    fn fma(e: &mut Self, x: Reg, y: Reg, z: Reg, w: DType) -> EResult<Reg> {
        Ok(e.s.ext(glsl::FMA, class_of(w), &[x, y, z]))
    }

    fn clamp(e: &mut Self, x: Reg, lo: Reg, hi: Reg, w: DType, propagate_nan: bool) -> EResult<Reg> {
        let w = class_of(w);
        let m = e.s.ext(glsl::FMAX, w, &[x, lo]);
        let m = e.s.ext(glsl::FMIN, w, &[m, hi]);
        if propagate_nan {
            let nx = e.is_nan(x);
            Ok(e.s.select(nx, x, m))
        } else {
            Ok(m)
        }
    }

    fn widen_to_f32(e: &mut Self, r: Reg, d: DType) -> EResult<Reg> {
        widen_to_f32(e, r, d)
    }

    fn narrow_from_f32(e: &mut Self, f: Reg, d: DType) -> EResult<Reg> {
        narrow_from_f32(e, f, d)
    }

    fn int_binary(e: &mut Self, opcode: Opcode, x: Reg, y: Reg, d: DType) -> EResult<Reg> {
        use Opcode::*;
        if d == DType::I1 {
            let op = match opcode {
                AndI | MinUI | MinSI | MulI => Op::LogicalAnd,
                OrI | MaxUI | MaxSI => Op::LogicalOr,
                XOrI | AddI | SubI => Op::LogicalNotEqual,
                _ => return e.unsupported(&format!("{} on booleans", opcode.name())),
            };
            return Ok(e.s.op(op, Class::Bool, &[x, y]));
        }
        let (x, y) = (int_view(x), int_view(y));
        let c = class_of(d);
        let r = match opcode {
            AddI => e.s.op(Op::IAdd, c, &[x, y]),
            SubI => e.s.op(Op::ISub, c, &[x, y]),
            MulI => e.s.op(Op::IMul, c, &[x, y]),
            DivSI => e.s.op(Op::SDiv, c, &[x, y]),
            DivUI => e.s.op(Op::UDiv, c, &[x, y]),
            RemSI => {
                // x - (x / y) * y rather than OpSRem: NVIDIA's Vulkan driver (580.159) returned wrong
                // OpSRem results for negative operands in the corpus (int_binops, int_scalar_ops),
                // where its OpSDiv truncated toward zero as SPIR-V says.
                let quotient = e.s.op(Op::SDiv, c, &[x, y]);
                let product = e.s.op(Op::IMul, c, &[quotient, y]);
                e.s.op(Op::ISub, c, &[x, product])
            }
            RemUI => e.s.op(Op::UMod, c, &[x, y]),
            AndI => e.s.op(Op::BitwiseAnd, c, &[x, y]),
            OrI => e.s.op(Op::BitwiseOr, c, &[x, y]),
            XOrI => e.s.op(Op::BitwiseXor, c, &[x, y]),
            MaxSI => e.s.ext(glsl::SMAX, c, &[x, y]),
            MinSI => e.s.ext(glsl::SMIN, c, &[x, y]),
            MaxUI => e.s.ext(glsl::UMAX, c, &[x, y]),
            MinUI => e.s.ext(glsl::UMIN, c, &[x, y]),
            MulHiUI => {
                let pair_ty = {
                    let t = e.s.ty(c);
                    e.s.pair_ty(t)
                };
                let pair = e.s.inst(Op::UMulExtended, pair_ty, &[x.id, y.id]);
                let t = e.s.ty(c);
                let id = e.s.inst_raw(
                    Op::CompositeExtract,
                    Some(t),
                    vec![rspirv::dr::Operand::IdRef(pair), rspirv::dr::Operand::LiteralBit32(1)],
                );
                Reg { id: id.unwrap(), class: c }
            }
            ShLI | ShRSI | ShRUI => {
                // Amounts at or past the width: 0, or the sign for arithmetic shifts.
                let width = if c == Class::U64 { 64 } else { 32 };
                let bits = d.bits().max(1);
                let limit = e.s.const_of(c, bits as u64);
                let big = e.s.op(Op::UGreaterThanEqual, Class::Bool, &[y, limit]);
                let op = match opcode {
                    ShLI => Op::ShiftLeftLogical,
                    ShRSI => Op::ShiftRightArithmetic,
                    _ => Op::ShiftRightLogical,
                };
                let shifted = e.s.op(op, c, &[x, y]);
                let overflow = if opcode == ShRSI {
                    let k = e.s.const_of(c, width - 1);
                    e.s.op(Op::ShiftRightArithmetic, c, &[x, k])
                } else {
                    e.s.const_of(c, 0)
                };
                e.s.select(big, overflow, shifted)
            }
            _ => unreachable!(),
        };
        Ok(normalize_int(e, r, d))
    }

    fn cast(e: &mut Self, opcode: Opcode, x: Reg, from: DType, to: DType) -> EResult<Reg> {
        use Opcode::*;
        let op = e.current.unwrap();
        let src_ty = e.ty(e.func.body.op(op).operands[0]).clone();
        let dst_ty = e.ty(e.func.body.op(op).results[0]).clone();
        match opcode {
            Bitcast if src_ty.is_ptr() && dst_ty.is_ptr() => Ok(x),
            Bitcast | IntToPtr | PtrToInt if src_ty.is_ptr() || dst_ty.is_ptr() => e.unsupported(
                "a cast between pointers and integers (the pointer's base argument would be lost)",
            ),
            Bitcast => {
                let (fc, tc) = (class_of(from), class_of(to));
                if fc == tc {
                    return Ok(if to.is_int() { normalize_int(e, x, to) } else { x });
                }
                match (fc, tc) {
                    (Class::U32, Class::F32)
                    | (Class::F32, Class::U32)
                    | (Class::U64, Class::F64)
                    | (Class::F64, Class::U64) => {
                        let r = e.s.op(Op::Bitcast, tc, &[x]);
                        Ok(if to.is_int() { normalize_int(e, r, to) } else { r })
                    }
                    _ => e.unsupported(&format!("bitcast from {from} to {to}")),
                }
            }
            ExtSI | ExtUI | TruncI => {
                if to == DType::I1 {
                    let zero = e.s.const_of(x.class, 0);
                    return Ok(e.s.op(Op::INotEqual, Class::Bool, &[x, zero]));
                }
                let c = class_of(to);
                if from == DType::I1 {
                    let (one, zero) = (e.s.const_of(c, 1), e.s.const_of(c, 0));
                    return Ok(e.s.select(x, one, zero));
                }
                // A narrow source was kept extended by its own signedness; an unsigned extension
                // must zero-extend instead.
                let mut x = x;
                if opcode == ExtUI && from.bits() < 32 {
                    let m = e.u32c(((1u64 << from.bits()) - 1) as u32);
                    x = e.s.op(Op::BitwiseAnd, Class::U32, &[x, m]);
                }
                let r = match (x.class, c) {
                    (Class::U32, Class::U64) => {
                        let signed = opcode == ExtSI || (opcode != ExtUI && from.is_signed_int());
                        if signed {
                            // Sign-extended by hand, the sign word shifted over the zero-extended
                            // value: lavapipe (Mesa 22.3, LLVM 15) folded comparisons of an
                            // `OpSConvert` result with constants wrongly (`n.to(tl.int64) >= 128`
                            // true for 100 and for -5; `tests/kernels/int64_compares.py`).
                            let low = e.s.op(Op::UConvert, Class::U64, &[x]);
                            let thirty_one = e.u32c(31);
                            let sign = e.s.op(Op::ShiftRightArithmetic, Class::U32, &[x, thirty_one]);
                            let high = e.s.op(Op::UConvert, Class::U64, &[sign]);
                            let thirty_two = e.u32c(32);
                            let high = e.s.op(Op::ShiftLeftLogical, Class::U64, &[high, thirty_two]);
                            e.s.op(Op::BitwiseOr, Class::U64, &[high, low])
                        } else {
                            e.s.op(Op::UConvert, Class::U64, &[x])
                        }
                    }
                    (Class::U64, Class::U32) => e.s.op(Op::UConvert, Class::U32, &[x]),
                    _ => x,
                };
                Ok(normalize_int(e, r, to))
            }
            ExtF | TruncF | FpToFp => {
                if from == to {
                    return Ok(x);
                }
                match (from, to) {
                    (DType::F32, DType::F64) => Ok(e.s.op(Op::FConvert, Class::F64, &[x])),
                    (DType::F64, DType::F32) => Ok(e.s.op(Op::FConvert, Class::F32, &[x])),
                    (DType::F64, _) => {
                        let f = e.s.op(Op::FConvert, Class::F32, &[x]);
                        narrow_from_f32(e, f, to)
                    }
                    (_, DType::F64) => {
                        let f = widen_to_f32(e, x, from)?;
                        Ok(e.s.op(Op::FConvert, Class::F64, &[f]))
                    }
                    _ => {
                        let f = widen(e, x, from)?;
                        narrow(e, f, to)
                    }
                }
            }
            SIToFP | UIToFP => {
                let src = if from == DType::I1 {
                    let (one, zero) = (e.u32c(1), e.u32c(0));
                    e.s.select(x, one, zero)
                } else {
                    x
                };
                let signed = opcode == SIToFP && from != DType::I1;
                let w = class_of(wide(to));
                let f = e.s.op(if signed { Op::ConvertSToF } else { Op::ConvertUToF }, w, &[src]);
                narrow(e, f, to)
            }
            FPToSI | FPToUI => {
                let f = widen(e, x, from)?;
                let r = float_to_int(e, f, to, opcode == FPToSI);
                Ok(normalize_int(e, r, to))
            }
            _ => e.unsupported(&format!("{} on spirv", opcode.name())),
        }
    }
}

/// erf(x) = sign(x) (1 - (a1 t + ... + a5 t^5) e^{-x^2}), t = 1 / (1 + p|x|).
fn erf(e: &mut Emitter, x: Reg) -> Reg {
    let f = |e: &mut Emitter, v: f64| e.s.const_f32(v as f32);
    let ax = e.s.ext(glsl::FABS, Class::F32, &[x]);
    let one = f(e, 1.0);
    let p = f(e, 0.3275911);
    let t = e.s.ext(glsl::FMA, Class::F32, &[ax, p, one]);
    let t = e.s.op(Op::FDiv, Class::F32, &[one, t]);
    let mut poly = f(e, 1.061405429);
    for c in [-1.453152027, 1.421413741, -0.284496736, 0.254829592] {
        let cc = f(e, c);
        poly = e.s.ext(glsl::FMA, Class::F32, &[poly, t, cc]);
    }
    let poly = e.s.op(Op::FMul, Class::F32, &[poly, t]);
    let sq = e.s.op(Op::FMul, Class::F32, &[ax, ax]);
    let nsq = e.s.op(Op::FNegate, Class::F32, &[sq]);
    let ex = e.s.ext(glsl::EXP, Class::F32, &[nsq]);
    let poly = e.s.op(Op::FMul, Class::F32, &[poly, ex]);
    let mag = e.s.op(Op::FSub, Class::F32, &[one, poly]);
    let neg = e.s.op(Op::FNegate, Class::F32, &[mag]);
    let zero = f(e, 0.0);
    let is_neg = e.s.op(Op::FOrdLessThan, Class::Bool, &[x, zero]);
    e.s.select(is_neg, neg, mag)
}

/// Saturating float -> integer conversion (NaN gives 0).
fn float_to_int(e: &mut Emitter, f: Reg, to: DType, signed: bool) -> Reg {
    let w = f.class;
    let (lo, hi): (f64, f64) = match (to, signed) {
        (DType::I8, _) => (-128.0, 127.0),
        (DType::I16, _) => (-32768.0, 32767.0),
        (DType::U8, _) => (0.0, 255.0),
        (DType::U16, _) => (0.0, 65535.0),
        (_, true) if to.bits() == 64 => (-9.223_372_036_854_776e18, 9.223_372_036_854_775e18),
        (_, false) if to.bits() == 64 => (0.0, 1.844_674_407_370_955e19),
        (_, true) => (-2147483648.0, 2147483520.0),
        (_, false) => (0.0, 4294967040.0),
    };
    let (lo_c, hi_c) = if w == Class::F64 {
        (e.s.const_of(Class::F64, lo.to_bits()), e.s.const_of(Class::F64, hi.to_bits()))
    } else {
        (e.s.const_f32(lo as f32), e.s.const_f32(hi as f32))
    };
    let clamped = e.s.ext(glsl::FMAX, w, &[f, lo_c]);
    let clamped = e.s.ext(glsl::FMIN, w, &[clamped, hi_c]);
    let c = class_of(to);
    let r = e.s.op(if signed { Op::ConvertFToS } else { Op::ConvertFToU }, c, &[clamped]);
    let nan = e.is_nan(f);
    let zero = e.s.const_of(c, 0);
    e.s.select(nan, zero, r)
}
