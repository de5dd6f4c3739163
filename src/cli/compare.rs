//! Buffer comparison for `trident check`: one backend's buffer against interp's, element by
//! element, with per-dtype tolerances like the acceptance corpus's runner.
//!
//! An element is within tolerance when `|got - want| <= atol + rtol * |want|` (fp8 elements by
//! their decoded values); NaN matches NaN and an infinity matches the same infinity. Integers,
//! booleans and fp8 default to exact; fp32 to 1e-5, fp16 to 1e-2, bf16 to 2e-2 and fp64 to
//! 1e-12 (both atol and rtol). `--atol`/`--rtol` override the defaults for every buffer. Besides the count and
//! the first index beyond tolerance, a comparison reports the largest absolute, relative and
//! ULP differences, so that a near miss reads differently from garbage.

use trident_midend::ir::DType;
use trident_runtime::Buffer;

/// Absolute and relative tolerance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub atol: f64,
    pub rtol: f64,
}

/// The default tolerance of a dtype (the corpus runner's `default_tol`).
pub fn default_tolerance(dtype: DType) -> Tolerance {
    let both = |t: f64| Tolerance { atol: t, rtol: t };
    match dtype {
        DType::F16 => both(1e-2),
        DType::BF16 => both(2e-2),
        DType::F32 => both(1e-5),
        DType::F64 => both(1e-12),
        _ => both(0.0),
    }
}

/// The first element beyond tolerance.
#[derive(Clone, Debug, PartialEq)]
pub struct FirstBad {
    pub index: usize,
    pub got: f64,
    pub want: f64,
}

/// The result of comparing one buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub elements: usize,
    pub max_abs: f64,
    pub max_rel: f64,
    /// Largest distance in units in the last place (for integers: the absolute difference).
    pub max_ulp: u64,
    /// Elements beyond tolerance.
    pub bad: usize,
    pub first_bad: Option<FirstBad>,
    /// Set when the buffers cannot be compared at all (dtype or length differ).
    pub mismatch: Option<String>,
}

impl Comparison {
    pub fn agrees(&self) -> bool {
        self.bad == 0 && self.mismatch.is_none()
    }
}

/// Compares `got` with the reference `want`.
pub fn compare(want: &Buffer, got: &Buffer, tolerance: Tolerance) -> Comparison {
    let mut result = Comparison {
        elements: want.len(),
        max_abs: 0.0,
        max_rel: 0.0,
        max_ulp: 0,
        bad: 0,
        first_bad: None,
        mismatch: None,
    };
    if want.dtype != got.dtype || want.bytes.len() != got.bytes.len() {
        result.mismatch = Some(format!(
            "{} elements of {} vs {} elements of {}",
            got.len(),
            got.dtype.triton_name(),
            want.len(),
            want.dtype.triton_name()
        ));
        result.bad = want.len().max(got.len());
        return result;
    }
    let dtype = want.dtype;
    let size = dtype.size_bytes();
    for (index, (w, g)) in want.bytes.chunks_exact(size).zip(got.bytes.chunks_exact(size)).enumerate() {
        if w == g {
            continue;
        }
        let (w_bits, g_bits) = (bits(w), bits(g));
        let (want_value, got_value) = (element_as_f64(dtype, w_bits), element_as_f64(dtype, g_bits));
        if want_value.is_nan() && got_value.is_nan() {
            continue;
        }
        if want_value.is_infinite() && want_value == got_value {
            continue;
        }
        let abs = (got_value - want_value).abs();
        let abs = if abs.is_nan() { f64::INFINITY } else { abs };
        let rel = abs / want_value.abs().max(f64::MIN_POSITIVE);
        result.max_abs = result.max_abs.max(abs);
        result.max_rel = result.max_rel.max(rel);
        result.max_ulp = result.max_ulp.max(ulp_distance(dtype, w_bits, g_bits));
        // An infinite difference is never within tolerance (against an infinite `want`,
        // `rtol * |want|` would be infinite too).
        let within = abs.is_finite() && abs <= tolerance.atol + tolerance.rtol * want_value.abs();
        if !within {
            result.bad += 1;
            if result.first_bad.is_none() {
                result.first_bad = Some(FirstBad { index, got: got_value, want: want_value });
            }
        }
    }
    result
}

/// The little-endian bits of one element.
fn bits(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(word)
}

/// One element's value.
pub fn element_as_f64(dtype: DType, bits: u64) -> f64 {
    match dtype {
        DType::F16 => half::f16::from_bits(bits as u16).to_f64(),
        DType::BF16 => half::bf16::from_bits(bits as u16).to_f64(),
        DType::F32 => f32::from_bits(bits as u32) as f64,
        DType::F64 => f64::from_bits(bits),
        DType::F8E4M3 | DType::F8E5M2 => trident_runtime::interp::float_from_bits(dtype, bits),
        DType::I8 => bits as u8 as i8 as f64,
        DType::I16 => bits as u16 as i16 as f64,
        DType::I32 => bits as u32 as i32 as f64,
        DType::I64 => bits as i64 as f64,
        _ => bits as f64,
    }
}

/// Distance in units in the last place: floats map to integers ordered like their values
/// (sign-magnitude to two's complement); integers are their own units.
fn ulp_distance(dtype: DType, a: u64, b: u64) -> u64 {
    if !dtype.is_float() {
        let (x, y) = (element_as_f64(dtype, a), element_as_f64(dtype, b));
        let diff = (x - y).abs();
        return if diff >= u64::MAX as f64 { u64::MAX } else { diff as u64 };
    }
    let width = dtype.bits();
    let ordered = |bits: u64| -> i128 {
        let sign = 1u64 << (width - 1);
        let magnitude = (bits & (sign | (sign - 1))) & !sign;
        if bits & sign != 0 {
            -(magnitude as i128)
        } else {
            magnitude as i128
        }
    };
    let distance = (ordered(a) - ordered(b)).unsigned_abs();
    distance.min(u64::MAX as u128) as u64
}

/// Changes element `index` of `buffer` so that it lies far outside any tolerance (for the
/// hidden `--perturb` of `check`). `Err` when the index is out of range.
pub fn perturb(buffer: &mut Buffer, index: usize) -> Result<(), String> {
    let size = buffer.dtype.size_bytes();
    let Some(element) = buffer.bytes.get_mut(index * size..(index + 1) * size) else {
        return Err(format!("{} has {} elements, no element {index}", buffer.name, buffer.len()));
    };
    let old = bits(element);
    let value = element_as_f64(buffer.dtype, old);
    let new = match buffer.dtype {
        DType::F16 => half::f16::from_f64(value * 2.0 + 1.0).to_bits() as u64,
        DType::BF16 => half::bf16::from_f64(value * 2.0 + 1.0).to_bits() as u64,
        DType::F32 => ((value * 2.0 + 1.0) as f32).to_bits() as u64,
        DType::F64 => (value * 2.0 + 1.0).to_bits(),
        // Integers, booleans and fp8 default to exact: flipping the lowest bit is enough.
        _ => old ^ 1,
    };
    element.copy_from_slice(&new.to_le_bytes()[..size]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(values: &[f32]) -> Buffer {
        let mut buffer = Buffer::zeros("b", DType::F32, values.len());
        buffer.bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        buffer
    }

    /// fp8 elements compare by value: exact by default, within `--atol`/`--rtol` when given
    /// (e5m2 0x3C is 1.0 and 0x3D 1.25, one step apart; 0x80 is -0, equal to 0).
    #[test]
    fn fp8_compares_values_with_the_tolerance_given() {
        let bytes = |values: &[u8]| {
            let mut buffer = Buffer::zeros("b", DType::F8E5M2, values.len());
            buffer.bytes = values.to_vec();
            buffer
        };
        let (want, got) = (bytes(&[0x3C, 0x00]), bytes(&[0x3D, 0x80]));
        let exact = compare(&want, &got, default_tolerance(DType::F8E5M2));
        assert_eq!(exact.bad, 1, "one step off is beyond the exact default; -0 equals 0: {exact:?}");
        assert_eq!((exact.max_abs, exact.max_ulp), (0.25, 1));
        let loose = compare(&want, &got, Tolerance { atol: 0.0, rtol: 0.25 });
        assert!(loose.agrees(), "{loose:?}");
    }

    #[test]
    fn floats_within_and_beyond_tolerance() {
        let want = f32s(&[1.0, 2.0, f32::NAN, f32::INFINITY, 4.0]);
        let close = f32s(&[1.0, 2.0 + 1e-6, f32::NAN, f32::INFINITY, 4.0]);
        let result = compare(&want, &close, default_tolerance(DType::F32));
        assert!(result.agrees(), "{result:?}");
        assert!(result.max_ulp >= 1 && result.max_abs > 0.0);

        let far = f32s(&[1.0, 2.0, f32::NAN, f32::NEG_INFINITY, 5.0]);
        let result = compare(&want, &far, default_tolerance(DType::F32));
        assert_eq!(result.bad, 2);
        assert_eq!(result.first_bad.as_ref().map(|f| f.index), Some(3));
        assert_eq!(result.max_abs, f64::INFINITY);
    }

    #[test]
    fn ulp_distance_crosses_zero() {
        let (plus, minus) = (1f32.to_bits() as u64, (-1f32).to_bits() as u64);
        assert_eq!(ulp_distance(DType::F32, plus, minus), 2 * 0x3f80_0000);
        assert_eq!(ulp_distance(DType::F32, 0, 0x8000_0000), 0);
        assert_eq!(ulp_distance(DType::I32, 5, (-3i32) as u32 as u64), 8);
    }

    #[test]
    fn perturbation_is_caught_for_every_dtype() {
        for dtype in DType::ALL {
            let want = Buffer::zeros("b", dtype, 4);
            let mut got = want.clone();
            perturb(&mut got, 2).unwrap();
            let result = compare(&want, &got, default_tolerance(dtype));
            assert_eq!(result.bad, 1, "{dtype:?}: {result:?}");
            assert_eq!(result.first_bad.map(|f| f.index), Some(2), "{dtype:?}");
        }
        assert!(perturb(&mut Buffer::zeros("b", DType::F32, 4), 4).is_err());
    }

    #[test]
    fn mismatched_buffers_disagree() {
        let result = compare(
            &Buffer::zeros("b", DType::F32, 4),
            &Buffer::zeros("b", DType::F32, 5),
            default_tolerance(DType::F32),
        );
        assert!(!result.agrees() && result.mismatch.is_some());
    }
}
