//! `tt.dot` of f32 operands at tf32 precision (Triton's default for f32) on workgroup-scope
//! bf16 matrices, where the device has no tf32 ones (NVIDIA's Vulkan driver lists f16, bf16 and
//! 8-bit integers only) but has bf16 workgroup matrices with per-element operations.
//!
//! Each operand is rounded to tf32 as a tensor core (and the interpreter, and the FMA path) does
//! (10 bits of mantissa, nearest, ties away from zero), and the tf32 value `x` split exactly into
//! two bf16 parts, `x = hi + lo`: `hi` its top 8 significant bits, `lo` the other 3. The product is
//! four bf16 products into the f32 accumulator:
//!
//! ```text
//! c += a_lo b_lo + a_lo b_hi + a_hi b_lo + a_hi b_hi
//! ```
//!
//! Each product of parts is exact in f32, so the four add up to the exact products of the tf32
//! operands, accumulated in f32: what tf32 tensor cores compute, up to the order of the
//! additions. So spirv agrees with interp and nvptx on tf32 dots as closely as they agree with
//! each other (the cross-checks of `trident check` and `TRIDENT_CHECK` hold them to f32's
//! tolerance). An infinite or NaN operand is its own `hi`, with `lo` 0, so that an infinity
//! multiplies as in tf32 instead of becoming a NaN through `inf - inf`.
//!
//! The operand tiles are loaded as f32 accumulator-use matrices (the use f32 matrices have), the
//! parts computed by per-element functions and converted into A and B operands
//! (`VK_NV_cooperative_matrix2`'s conversions), as attention's `p.to(f16)` is.
//!
//! # Measured
//!
//! H100, NVIDIA's Vulkan driver 580, the corpus' tf32 4096^3 matmul (128x128x32 tiles, eight
//! warps, run on four): 13.6 TFLOP/s on FMA; 41.8 with a first form of three products and no
//! rounding to tf32 (`hi` the f32 truncated to bf16, `lo` the rest rounded, `a_lo b_lo` left
//! out: closer to the f32 product than tf32, so farther from the other backends than the
//! cross-checks allow; Triton 3.6 on CUDA: 82.2). The four-product form above: 36.0 (2026-11-28,
//! Triton 83.0 in the same command), and the ci corpus passes with it on that driver. Its loop's
//! SASS (`scripts/vulkan_sass.py`; the driver unrolls eight steps) has, a step and a warp, the 256
//! `HMMA.16816.F32.BF16` of the four products beside 36 `BAR.SYNC`, 64 `MOVM.16.MT88`, about 700
//! register moves and 64 `LDS`/`LDS.128`: the four conversions of parts from accumulator use into
//! operands go through workgroup memory, and they, not the products, take the time; the f32
//! tiles are read 8 bytes a load (`LDG.E.64`). Tried and dropped: the tiles loaded as f32 A and
//! B matrices and converted within their use (no use conversion), 21.0 (three products).

use rspirv::spirv::Op;
use trident_midend::codegen::{dot, LowerDot};
use trident_midend::ir::{DType, Function, Op as IrOp, Opcode};

use crate::emit::{EResult, Emitter};
use crate::spirv::{Class, Reg, WorkgroupMatrix, ACCUMULATOR_USE, MATRIX_A_USE, MATRIX_B_USE};

/// The matrices' component type.
pub const PARTS: DType = DType::BF16;

/// Whether `op` is a `tt.dot` of f32 operands at tf32 precision ([`dot::is_tf32`]).
pub fn is_tf32_dot(func: &Function, op: IrOp) -> bool {
    func.body.opcode(op) == Opcode::Dot && dot::is_tf32(&func.body, op)
}

/// `c + a b` for `a` (m x k) and `b` (k x n), f32 accumulator-use matrices, into `c`'s matrix
/// (m x n, f32): the four products of the module docs.
pub fn product(e: &mut Emitter, a: Reg, b: Reg, c: Reg) -> EResult<Reg> {
    let (
        Class::WorkgroupMatrix(a_matrix),
        Class::WorkgroupMatrix(b_matrix),
        Class::WorkgroupMatrix(c_matrix),
    ) = (a.class, b.class, c.class)
    else {
        return e.invalid("a split product of values that are not workgroup matrices");
    };
    let [a_hi, a_lo] = parts(e, a, WorkgroupMatrix { usage: MATRIX_A_USE, component: PARTS, ..a_matrix })?;
    let [b_hi, b_lo] = parts(e, b, WorkgroupMatrix { usage: MATRIX_B_USE, component: PARTS, ..b_matrix })?;
    let ty = e.s.ty(c.class);
    let mut sum = c.id;
    // The small products first, then the large one.
    for (x, y) in [(a_lo, b_lo), (a_lo, b_hi), (a_hi, b_lo), (a_hi, b_hi)] {
        sum = e.s.build(|builder| builder.cooperative_matrix_mul_add_khr(ty, None, x, y, sum, None));
    }
    Ok(Reg { id: sum, class: Class::WorkgroupMatrix(c_matrix) })
}

/// `source`'s two parts as matrices of `target` (an operand use of [`PARTS`]).
fn parts(e: &mut Emitter, source: Reg, target: WorkgroupMatrix) -> EResult<[u32; 2]> {
    let Class::WorkgroupMatrix(from) = source.class else {
        return e.invalid("a split operand that is not a workgroup matrix");
    };
    if from.usage != ACCUMULATOR_USE || from.component != DType::F32 {
        return e.invalid("a split operand that is not an f32 accumulator-use matrix");
    }
    let ty = e.s.ty(source.class);
    let mut split = [0; 2];
    for (slot, low) in split.iter_mut().zip([false, true]) {
        let function = part_function(e, low);
        e.s.uses_per_element_operations = true;
        let part = e.s.inst(Op::CooperativeMatrixPerElementOpNV, ty, &[source.id, function]);
        let part = Reg { id: part, class: source.class };
        *slot = super::workgroup_region::convert(e, part, target)?.id;
    }
    Ok(split)
}

/// `(row, column, x) -> hi(tf32(x))` or `lo(tf32(x))` (see the module docs), made once per
/// module.
fn part_function(e: &mut Emitter, low: bool) -> u32 {
    let key = format!("tf32 part {}", if low { "lo" } else { "hi" });
    if let Some(&function) = e.s.helper_functions.get(&key) {
        return function;
    }
    let (u32t, f32t) = (e.s.ty(Class::U32), e.s.ty(Class::F32));
    let (function, ids) = e.s.begin_helper(f32t, &[u32t, u32t, f32t]);
    let x = Reg { id: ids[2], class: Class::F32 };
    // tf32(x) keeps an infinity or a NaN as it is.
    let rounded = <Emitter as LowerDot>::round_to_tf32(e, x);
    let bits = e.s.op(Op::Bitcast, Class::U32, &[rounded]);
    let mask = e.u32c(0xFFFF_0000);
    let hi = e.s.op(Op::BitwiseAnd, Class::U32, &[bits, mask]);
    let hi = e.s.op(Op::Bitcast, Class::F32, &[hi]);
    let infinite = e.s.op(Op::IsInf, Class::Bool, &[rounded]);
    let nan = e.s.op(Op::IsNan, Class::Bool, &[rounded]);
    let special = e.s.op(Op::LogicalOr, Class::Bool, &[infinite, nan]);
    let value = if low {
        // Exact: the bits below hi's.
        let rest = e.s.op(Op::FSub, Class::F32, &[rounded, hi]);
        let zero = e.s.const_f32(0.0);
        e.s.select(special, zero, rest)
    } else {
        // A NaN whose payload lies in the low bits would truncate to an infinity.
        e.s.select(special, rounded, hi)
    };
    e.s.end_helper(value.id);
    e.s.helper_functions.insert(key, function);
    function
}

#[cfg(test)]
mod tests {
    /// tf32 as `round_to_tf32` emits it: half of the last place added, the bits below cleared;
    /// NaN and infinity kept.
    fn tf32(x: f32) -> f32 {
        if !x.is_finite() {
            return x;
        }
        f32::from_bits((x.to_bits().wrapping_add(0x1000)) & 0xFFFF_E000)
    }

    /// `part_function`'s two parts of `x`.
    fn parts(x: f32) -> (f32, f32) {
        let t = tf32(x);
        let hi = f32::from_bits(t.to_bits() & 0xFFFF_0000);
        if !t.is_finite() {
            return (t, 0.0);
        }
        (hi, t - hi)
    }

    fn is_bf16(x: f32) -> bool {
        x.to_bits() & 0xFFFF == 0
    }

    /// The split is exact: both parts are bf16 values, they add up to the tf32 value, and the
    /// four products of parts (each exact in f32) add up to the product of the tf32 values, so
    /// the matrices compute what tf32 tensor cores do. Over random bit patterns of magnitude
    /// 1e-15 to 1e15 (products within f32's normal range), a tie, and values next to 1 and 2.
    #[test]
    fn the_parts_are_bf16_and_add_up_to_the_tf32_product() {
        let mut state = 0x2545_f491_u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        let mut values: Vec<f32> = (0..20_000)
            .map(|_| f32::from_bits(next()))
            .filter(|x| x.is_finite() && x.abs() > 1e-15 && x.abs() < 1e15)
            .collect();
        values.extend([1.0, -1.0, 1.0 + f32::EPSILON, 2.0 - f32::EPSILON, f32::from_bits(0x3f80_1000)]);
        for pair in values.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let ((a_hi, a_lo), (b_hi, b_lo)) = (parts(a), parts(b));
            for part in [a_hi, a_lo, b_hi, b_lo] {
                assert!(is_bf16(part), "{a} {b}: {part} is no bf16 value");
            }
            assert_eq!(a_hi + a_lo, tf32(a), "{a}");
            let products = [a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi];
            let exact = |x: f32, y: f32| f64::from(x) * f64::from(y);
            for (p, (x, y)) in products.iter().zip([(a_lo, b_lo), (a_lo, b_hi), (a_hi, b_lo), (a_hi, b_hi)]) {
                assert_eq!(f64::from(*p), exact(x, y), "{a} {b}: a product of parts is not exact");
            }
            let sum: f64 = products.iter().map(|&p| f64::from(p)).sum();
            assert_eq!(sum, exact(tf32(a), tf32(b)), "{a} {b}");
        }
    }

    /// An infinite or NaN operand is its own `hi`, with `lo` 0.
    #[test]
    fn special_values_keep_themselves_in_hi() {
        for x in [f32::INFINITY, f32::NEG_INFINITY] {
            assert_eq!(parts(x), (x, 0.0));
        }
        let (hi, lo) = parts(f32::from_bits(0x7f80_0001));
        assert!(hi.is_nan() && lo == 0.0);
    }
}
