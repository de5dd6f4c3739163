//! `tt.dot`: what every target reads off the op before choosing its instructions.
//!
//! The operands' shapes (`[batch,] M x K` by `[batch,] K x N`), types and layouts, whether the
//! inputs are integers (an int8 dot accumulates in i32), and the input precision: f32 inputs
//! round to tf32 first unless `input_precision` is `ieee`, as tensor cores would. Operands are
//! widened to f32 (f16, bf16 and fp8 exactly) or kept as 32-bit integers, each distinct register
//! once ([`widen_operand`]). How the product is computed (FMAs through scratch memory, or tensor
//! core instructions) is the target's [`LowerDot`].

use rustc_hash::FxHashMap;
use std::rc::Rc;

use super::elementwise::LowerElementwise;
use super::error::Result;
use crate::ir::{Body, DType, Op, Value};
use crate::layout::registers::LayoutInfo;

/// The target's rules for `tt.dot` (its `dot.rs`).
pub trait LowerDot<'a>: LowerElementwise<'a> {
    fn dot(e: &mut Self, op: Op) -> Result<()>;

    /// An f32 rounded to tf32 (nearest, ties away from zero, 10 mantissa bits), still an f32.
    fn round_to_tf32(e: &mut Self, r: Self::Reg) -> Self::Reg;
}

/// A `tt.dot`'s operands and geometry.
pub struct DotOp {
    pub a: Value,
    pub b: Value,
    pub c: Value,
    pub result: Value,
    /// A's element type (the input type) and B's.
    pub a_type: DType,
    pub b_type: DType,
    /// Integer inputs (accumulating in i32).
    pub integer: bool,
    /// f32 inputs rounded to tf32 first.
    pub tf32: bool,
    pub a_layout: Rc<LayoutInfo>,
    pub b_layout: Rc<LayoutInfo>,
    /// The accumulator's (and the result's) layout.
    pub c_layout: Rc<LayoutInfo>,
    /// 2, or 3 with a leading batch dim.
    pub rank: usize,
    pub m: i64,
    pub k: i64,
    pub n: i64,
    /// The batch size (1 without a batch dim).
    pub batch: i64,
}

/// Whether dot `op` multiplies f32 operands at tf32 precision: `input_precision` tf32 (Triton's
/// default for f32), not `ieee` or a split form (`tf32x3`, `bf16x3`, `bf16x6`: every backend
/// takes those as `ieee`). Its operands are then rounded to tf32 first.
pub fn is_tf32(body: &Body, op: Op) -> bool {
    let data = body.op(op);
    data.attrs.str("input_precision").unwrap_or("tf32") == "tf32"
        && body.ty(data.operands[0]).dtype() == DType::F32
}

impl DotOp {
    /// Reads a `tt.dot`; refuses float accumulators other than f32.
    pub fn read<'a, B: LowerDot<'a>>(e: &mut B, op: Op) -> Result<DotOp> {
        let data = e.func.body.op(op);
        let (a, b, c) = (data.operands[0], data.operands[1], data.operands[2]);
        let result = data.results[0];
        let (a_type, b_type) = (e.ty(a).dtype(), e.ty(b).dtype());
        let out_type = e.ty(result).dtype();
        let integer = a_type.is_int();
        if out_type != DType::F32 && !integer {
            return e.unsupported(&format!("tl.dot accumulating in {out_type}"));
        }
        let (a_layout, b_layout, c_layout) = (e.layout(a)?, e.layout(b)?, e.layout(c)?);
        let rank = a_layout.rank();
        let (m, k) = (a_layout.shape[rank - 2] as i64, a_layout.shape[rank - 1] as i64);
        let n = b_layout.shape[rank - 1] as i64;
        let batch = if rank == 3 { a_layout.shape[0] as i64 } else { 1 };
        let tf32 = is_tf32(&e.func.body, op);
        Ok(DotOp {
            a,
            b,
            c,
            result,
            a_type,
            b_type,
            integer,
            tf32,
            a_layout,
            b_layout,
            c_layout,
            rank,
            m,
            k,
            n,
            batch,
        })
    }
}

/// An operand's registers as f32 (tf32-rounded if asked) or as 32-bit integers, each distinct
/// register converted once.
pub fn widen_operand<'a, B: LowerDot<'a>>(
    e: &mut B,
    regs: &[B::Reg],
    d: DType,
    tf32: bool,
) -> Result<Vec<B::Reg>> {
    let mut cache: FxHashMap<B::Reg, B::Reg> = FxHashMap::default();
    let mut out = Vec::with_capacity(regs.len());
    for &r in regs {
        if let Some(&w) = cache.get(&r) {
            out.push(w);
            continue;
        }
        let w = match d {
            DType::F32 if tf32 => B::round_to_tf32(e, r),
            DType::F32 | DType::I8 | DType::U8 | DType::I32 => r,
            DType::F16 | DType::BF16 | DType::F8E4M3 | DType::F8E5M2 => B::widen_to_f32(e, r, d)?,
            other => return e.unsupported(&format!("tl.dot on {other} operands")),
        };
        cache.insert(r, w);
        out.push(w);
    }
    Ok(out)
}
