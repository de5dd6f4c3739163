//! Exact scalar numerics: integer canonical forms, rounding to every float dtype, bit patterns,
//! conversions and the few math functions `std` lacks.
//!
//! Representation invariants (shared with `value.rs`):
//! - An integer of dtype `d` is an `i64` holding the value *canonical* for `d`: sign-extended
//!   from `d.bits()` for signed types, zero-extended for unsigned types and `i1` (0 or 1). A
//!   `u64` keeps its bit pattern. [`canon`] restores the invariant after any wrapping op.
//! - A float of dtype `d` is an `f64` holding a value exactly representable in `d`. [`round`]
//!   rounds an exact (or `f64`-rounded) result to `d` with round-to-nearest-even.
//!
//! Rounding f64 results of `+ - * / sqrt` on f32/f16/bf16 operands to the operand type is
//! correctly rounded (f64 has more than 2p+2 bits for all of them), so the interpreter computes
//! those in f64 and rounds once. The `half` crate is used only to encode and decode values that
//! are already representable: its `from_f64` goes through f32 on x86 with F16C (double rounding)
//! and its bf16 conversion drops the sticky bits, so rounding is done here.

use half::{bf16, f16};
use trident_midend::ir::DType;

/// Sign-extends the low `bits` bits of `x`.
pub fn sext(bits: u32, x: i64) -> i64 {
    if bits >= 64 {
        x
    } else {
        let shift = 64 - bits;
        (x << shift) >> shift
    }
}

/// Zero-extends the low `bits` bits of `x`.
pub fn zext(bits: u32, x: i64) -> u64 {
    if bits >= 64 {
        x as u64
    } else {
        (x as u64) & ((1u64 << bits) - 1)
    }
}

/// The canonical `i64` form of `x` wrapped to the width and signedness of `d`.
pub fn canon(d: DType, x: i64) -> i64 {
    if d.is_unsigned_int() || d == DType::I1 {
        zext(d.bits(), x) as i64
    } else {
        sext(d.bits(), x)
    }
}

/// The range of an integer dtype as (min, max) in i128, `i1` counting as unsigned.
pub fn int_range(d: DType) -> (i128, i128) {
    let bits = d.bits();
    if d.is_unsigned_int() || d == DType::I1 {
        (0, (1i128 << bits) - 1)
    } else {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    }
}

/// 2^n as an f64, for n in the normal exponent range.
fn exp2i(n: i32) -> f64 {
    f64::from_bits(((n + 1023) as u64) << 52)
}

/// A small binary float format, described by what rounding needs.
#[derive(Clone, Copy)]
struct MiniFloat {
    /// Stored mantissa bits.
    man: i32,
    /// Exponent of the smallest normal number.
    emin: i32,
    /// Largest finite value.
    max: f64,
    /// Finite overflow saturates to `max` (fp8) instead of becoming infinity (IEEE).
    saturate: bool,
    /// Whether the format has infinities (an infinite input saturates when it does not).
    has_inf: bool,
}

const F16_FMT: MiniFloat = MiniFloat { man: 10, emin: -14, max: 65504.0, saturate: false, has_inf: true };
const BF16_FMT: MiniFloat =
    MiniFloat { man: 7, emin: -126, max: 3.3895313892515355e38, saturate: false, has_inf: true };
const E4M3_FMT: MiniFloat = MiniFloat { man: 3, emin: -6, max: 448.0, saturate: true, has_inf: false };
const E5M2_FMT: MiniFloat = MiniFloat { man: 2, emin: -14, max: 57344.0, saturate: true, has_inf: true };

/// Rounds `x` to nearest even in the format `f`, with gradual underflow.
fn round_mini(x: f64, f: MiniFloat) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return if f.has_inf { x } else { f.max.copysign(x) };
    }
    let a = x.abs();
    if a == 0.0 {
        return x;
    }
    // f64 subnormals give -1023 here, far below every format's emin.
    let e = (((a.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(f.emin);
    let quantum = exp2i(e - f.man);
    // Dividing by a power of two is exact, so this is one rounding of the exact value.
    let mut r = (a / quantum).round_ties_even() * quantum;
    if r > f.max {
        r = if f.saturate { f.max } else { f64::INFINITY };
    }
    r.copysign(x)
}

/// Rounds `x` to the float dtype `d` (nearest even; fp8 saturates). Integers pass through.
pub fn round(d: DType, x: f64) -> f64 {
    match d {
        DType::F64 => x,
        DType::F32 => x as f32 as f64,
        DType::F16 => round_mini(x, F16_FMT),
        DType::BF16 => round_mini(x, BF16_FMT),
        DType::F8E4M3 => round_mini(x, E4M3_FMT),
        DType::F8E5M2 => round_mini(x, E5M2_FMT),
        _ => x,
    }
}

/// Rounds an f32 to tf32 (10 mantissa bits), ties away from zero like PTX `cvt.rna.tf32.f32`.
pub fn tf32(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    // The sign is a separate bit, so adding half an ulp to the magnitude rounds ties away.
    f32::from_bits((x.to_bits() + 0x1000) & !0x1fff)
}

/// Decodes an fp8 byte.
fn fp8_from_bits(bits: u8, e4m3: bool) -> f64 {
    let (man, bias) = if e4m3 { (3, 7) } else { (2, 15) };
    let sign = if bits & 0x80 != 0 { -1.0 } else { 1.0 };
    let exp_field = ((bits & 0x7f) >> man) as i32;
    let mant = (bits & ((1 << man) - 1)) as i32;
    let max_exp_field = if e4m3 { 15 } else { 31 };
    if e4m3 && exp_field == max_exp_field && mant == 7 {
        return f64::NAN;
    }
    if !e4m3 && exp_field == max_exp_field {
        return if mant == 0 { sign * f64::INFINITY } else { f64::NAN };
    }
    let magnitude = if exp_field == 0 {
        mant as f64 * exp2i(1 - bias - man)
    } else {
        (1.0 + mant as f64 / (1 << man) as f64) * exp2i(exp_field - bias)
    };
    sign * magnitude
}

/// Encodes an fp8 value (already representable).
fn fp8_to_bits(x: f64, e4m3: bool) -> u8 {
    let (man, bias) = if e4m3 { (3, 7) } else { (2, 15) };
    if x.is_nan() {
        return if e4m3 { 0x7f } else { 0x7e };
    }
    let sign: u8 = if x.is_sign_negative() { 0x80 } else { 0 };
    let a = x.abs();
    if a.is_infinite() {
        return sign | if e4m3 { 0x7e } else { 0x7c };
    }
    if a == 0.0 {
        return sign;
    }
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let emin = 1 - bias;
    if e < emin {
        let mant = (a / exp2i(emin - man)) as u8;
        return sign | mant;
    }
    let mant = ((a / exp2i(e) - 1.0) * (1 << man) as f64) as u8;
    sign | (((e + bias) as u8) << man) | mant
}

/// The bit pattern of a representable float of dtype `d`.
pub fn float_to_bits(d: DType, x: f64) -> u64 {
    match d {
        DType::F64 => x.to_bits(),
        DType::F32 => (x as f32).to_bits() as u64,
        DType::F16 => f16::from_f64(x).to_bits() as u64,
        DType::BF16 => bf16::from_f64(x).to_bits() as u64,
        DType::F8E4M3 => fp8_to_bits(x, true) as u64,
        DType::F8E5M2 => fp8_to_bits(x, false) as u64,
        _ => x as i64 as u64,
    }
}

/// A float as `tl.device_print` prints it on CUDA, where Triton formats floats with C's `%f`:
/// six decimals, `inf`, `-inf` and `nan`. Every backend prints floats this way, so that the
/// lines of one kernel compare equal across backends.
pub fn printf_float(v: f64) -> String {
    if v.is_nan() {
        "nan".to_string()
    } else if v.is_infinite() {
        (if v > 0.0 { "inf" } else { "-inf" }).to_string()
    } else {
        format!("{v:.6}")
    }
}

/// The float of dtype `d` with bit pattern `bits` (low bits used).
pub fn float_from_bits(d: DType, bits: u64) -> f64 {
    match d {
        DType::F64 => f64::from_bits(bits),
        DType::F32 => f32::from_bits(bits as u32) as f64,
        DType::F16 => f16::from_bits(bits as u16).to_f64(),
        DType::BF16 => bf16::from_bits(bits as u16).to_f64(),
        DType::F8E4M3 => fp8_from_bits(bits as u8, true),
        DType::F8E5M2 => fp8_from_bits(bits as u8, false),
        _ => bits as i64 as f64,
    }
}

/// An integer (given exactly as i128) rounded once to the float dtype `d`.
pub fn int_to_float(v: i128, d: DType) -> f64 {
    let negative = v < 0;
    let magnitude = v.unsigned_abs() as u64;
    let value = if d == DType::F64 || magnitude >> 53 == 0 {
        // Rust's int-to-float conversion is correctly rounded.
        magnitude as f64
    } else {
        // Round to odd at 53 bits (keep a sticky bit), which makes the later rounding to a
        // narrower format exact-once.
        let shift = 64 - magnitude.leading_zeros() - 53;
        let kept = magnitude >> shift;
        let sticky = (magnitude & ((1u64 << shift) - 1) != 0) as u64;
        (kept | sticky) as f64 * exp2i(shift as i32)
    };
    round(d, if negative { -value } else { value })
}

/// A float truncated toward zero and saturated to the integer dtype `d` (NaN gives 0), as PTX
/// `cvt.rzi` does.
pub fn float_to_int(x: f64, d: DType) -> i64 {
    if x.is_nan() {
        return 0;
    }
    let (lo, hi) = int_range(d);
    let t = x.trunc();
    let clamped = if t <= lo as f64 {
        lo
    } else if t >= hi as f64 {
        hi
    } else {
        t as i128
    };
    canon(d, clamped as i64)
}

/// The error function, to about 1e-15 relative error: a series without cancellation below 3,
/// a continued fraction for erfc above.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    if a >= 6.0 {
        return 1.0f64.copysign(x);
    }
    // exp(-a^2) with the rounding error of a^2 compensated.
    let a2 = a * a;
    let a2_err = a.mul_add(a, -a2);
    let gauss = (-a2).exp() * (1.0 - a2_err);
    let two_over_sqrt_pi = std::f64::consts::FRAC_2_SQRT_PI;
    let r = if a < 3.0 {
        // erf(a) = 2/sqrt(pi) exp(-a^2) sum_n (2a^2)^n a / (1*3*...*(2n+1)); all terms positive.
        let mut term = a;
        let mut sum = a;
        let mut n = 0.0;
        while term > sum * 1e-17 {
            n += 1.0;
            term *= 2.0 * a2 / (2.0 * n + 1.0);
            sum += term;
        }
        two_over_sqrt_pi * gauss * sum
    } else {
        // erfc(a) = exp(-a^2)/sqrt(pi) / (a + (1/2)/(a + 1/(a + (3/2)/(a + ...)))).
        let mut t = a;
        for k in (1..=120).rev() {
            t = a + (k as f64 / 2.0) / t;
        }
        1.0 - two_over_sqrt_pi / 2.0 * gauss / t
    };
    r.copysign(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_reference_values() {
        let cases = [
            (0.1, 0.1124629160182849),
            (0.5, 0.5204998778130465),
            (1.0, 0.8427007929497149),
            (2.0, 0.9953222650189527),
            (2.9, 0.9999589021219005),
            (3.0, 0.9999779095030014),
            (4.0, 0.9999999845827421),
            (-1.5, -0.9661051464753108),
        ];
        for (x, want) in cases {
            let got = erf(x);
            assert!(((got - want) / want).abs() < 2e-15, "erf({x}) = {got}, want {want}");
        }
    }

    #[test]
    fn fp8_encodings_round_trip() {
        for bits in 0..=255u8 {
            for d in [DType::F8E4M3, DType::F8E5M2] {
                let x = float_from_bits(d, bits as u64);
                if x.is_nan() {
                    continue;
                }
                assert_eq!(float_to_bits(d, x), bits as u64, "{d} bits {bits:#x}");
                assert_eq!(round(d, x).to_bits(), x.to_bits());
            }
        }
    }

    #[test]
    fn half_rounding_is_single() {
        // 1 + 2^-11 + 2^-40 is just above the f16 tie between 1 and 1 + 2^-10: it must round up,
        // though rounding through f32 first would land on the tie and go to even (1.0).
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(round(DType::F16, x), 1.0 + 2f64.powi(-10));
        assert_eq!(round(DType::F16, 1.0 + 2f64.powi(-11)), 1.0);
        assert_eq!(round(DType::F16, 70000.0), f64::INFINITY);
        assert_eq!(round(DType::BF16, 1.0 + 2f64.powi(-8) + 2f64.powi(-45)), 1.0 + 2f64.powi(-7));
        assert_eq!(
            int_to_float((1i128 << 60) + (1 << 36) + 1, DType::F32),
            ((1u64 << 60) + (1 << 37)) as f64
        );
    }
}
