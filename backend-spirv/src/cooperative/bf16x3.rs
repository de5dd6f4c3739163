//! `tt.dot` of f32 operands at tf32 precision (Triton's default for f32) on workgroup-scope
//! bf16 matrices, where the device has no tf32 ones (NVIDIA's Vulkan driver lists f16, bf16 and
//! 8-bit integers only) but has bf16 workgroup matrices with per-element operations.
//!
//! Each operand `x` is split into two bf16 parts, `x = hi + lo` with `hi` the f32 truncated to
//! bf16's 8 bits of mantissa and `lo` the rest (exact in f32, then rounded to bf16), and the
//! product is three bf16 products into the f32 accumulator:
//!
//! ```text
//! c += a_hi b_hi + a_hi b_lo + a_lo b_hi        (a_lo b_lo, below 2^-14 of a b, left out)
//! ```
//!
//! Each product of parts is exact in f32; what is left out or rounded away is at most about
//! 2^-13 of each `a b`, where tf32's rounding of both operands to 10 bits of mantissa leaves up to
//! 2^-10: the result is at least as close to the f32 product as tf32's. `hi` is truncated, not
//! rounded, so that it never overflows to infinity; an infinite or NaN operand's `lo` is 0 (its
//! `hi` is the operand itself), so that an infinity multiplies as it does in tf32 instead of
//! becoming a NaN through `inf - inf`.
//!
//! The operand tiles are loaded as f32 accumulator-use matrices (the use f32 matrices have), the
//! parts computed by per-element functions and converted into A and B operands
//! (`VK_NV_cooperative_matrix2`'s conversions), as attention's `p.to(f16)` is.
//!
//! # Measured
//!
//! H100, NVIDIA's Vulkan driver 580, the corpus' tf32 4096^3 matmul (128x128x32 tiles, eight
//! warps, run on four): 13.6 TFLOP/s on FMA, 41.8 split (Triton 3.6 on CUDA: 82.2). Tried and
//! dropped: the tiles loaded as f32 A and B matrices and converted within their use (no use
//! conversion), 21.0.

use rspirv::spirv::Op;
use trident_midend::ir::{DType, Function, Op as IrOp, Opcode};

use crate::emit::{EResult, Emitter};
use crate::spirv::{Class, Reg, WorkgroupMatrix, ACCUMULATOR_USE, MATRIX_A_USE, MATRIX_B_USE};

/// The matrices' component type.
pub const PARTS: DType = DType::BF16;

/// Whether `dot` multiplies f32 operands at tf32 precision (`input_precision` tf32, Triton's
/// default for f32; not `ieee` or `tf32x3`, which ask for more).
pub fn is_tf32_dot(func: &Function, dot: IrOp) -> bool {
    let data = func.body.op(dot);
    data.opcode == Opcode::Dot
        && data.operands[..2].iter().all(|&v| func.body.ty(v).dtype() == DType::F32)
        && data.attrs.str("input_precision").unwrap_or("tf32") == "tf32"
}

/// `c + a b` for `a` (m x k) and `b` (k x n), f32 accumulator-use matrices, into `c`'s matrix
/// (m x n, f32): the three products of the module docs.
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
    for (x, y) in [(a_lo, b_hi), (a_hi, b_lo), (a_hi, b_hi)] {
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

/// `(row, column, x) -> hi(x)` or `lo(x)` (see the module docs), made once per module.
fn part_function(e: &mut Emitter, low: bool) -> u32 {
    let key = format!("bf16x3 part {}", if low { "lo" } else { "hi" });
    if let Some(&function) = e.s.helper_functions.get(&key) {
        return function;
    }
    let (u32t, f32t) = (e.s.ty(Class::U32), e.s.ty(Class::F32));
    let (function, ids) = e.s.begin_helper(f32t, &[u32t, u32t, f32t]);
    let x = Reg { id: ids[2], class: Class::F32 };
    let bits = e.s.op(Op::Bitcast, Class::U32, &[x]);
    let mask = e.u32c(0xFFFF_0000);
    let truncated = e.s.op(Op::BitwiseAnd, Class::U32, &[bits, mask]);
    let truncated = e.s.op(Op::Bitcast, Class::F32, &[truncated]);
    let value = if low {
        // x - hi where x is finite, else 0.
        let rest = e.s.op(Op::FSub, Class::F32, &[x, truncated]);
        let infinite = e.s.op(Op::IsInf, Class::Bool, &[x]);
        let nan = e.s.op(Op::IsNan, Class::Bool, &[x]);
        let special = e.s.op(Op::LogicalOr, Class::Bool, &[infinite, nan]);
        let zero = e.s.const_f32(0.0);
        e.s.select(special, zero, rest)
    } else {
        // A NaN stays itself (truncating one whose payload is in the low bits would give an
        // infinity).
        let nan = e.s.op(Op::IsNan, Class::Bool, &[x]);
        e.s.select(nan, x, truncated)
    };
    e.s.end_helper(value.id);
    e.s.helper_functions.insert(key, function);
    function
}
