//! Elementwise ops: integer and float arithmetic, comparisons, select, casts and math, lowered
//! register by register.
//!
//! What every target shares: the operands of a register index (a splat's one register serves
//! every index), one computation per distinct tuple of operand registers (splats and broadcasts
//! repeat registers, and their results are computed once), which opcodes form which kind of
//! computation, and the float policy: f16, bf16 and fp8 compute in f32 ([`wide`]), their operands
//! widened before and the result rounded back after, which for `+ - * /` equals the correctly
//! rounded narrow result. How each kind is spelled, and every numeric choice of the instruction
//! set (approximate division, shift amounts past the width), is the target's [`LowerElementwise`].

use rustc_hash::FxHashMap;

use super::error::Result;
use super::isa::Isa;
use crate::ir::{DType, Op, Opcode};

/// The target's rules for one element of an elementwise op (its `arith.rs`).
pub trait LowerElementwise<'a>: Isa<'a> {
    /// Refuses a result type the target cannot hold, once per op, before any element.
    fn check_result(_e: &Self, _out: DType) -> Result<()> {
        Ok(())
    }

    /// An integer binary op (`arith.addi` .. `arith.minui`, `tt.mulhiui`) on `d`, booleans
    /// included.
    fn int_binary(e: &mut Self, opcode: Opcode, x: Self::Reg, y: Self::Reg, d: DType) -> Result<Self::Reg>;

    /// `math.absi`.
    fn int_abs(e: &mut Self, x: Self::Reg, d: DType) -> Result<Self::Reg>;

    /// `arith.cmpi` with its `predicate`, on operands of `d` (pointers compare as addresses).
    fn int_compare(e: &mut Self, predicate: &str, x: Self::Reg, y: Self::Reg, d: DType) -> Result<Self::Reg>;

    /// `arith.cmpf` with its `predicate`, on operands already widened to `w`.
    fn float_compare(
        e: &mut Self,
        predicate: &str,
        x: Self::Reg,
        y: Self::Reg,
        w: DType,
    ) -> Result<Self::Reg>;

    /// `arith.select`.
    fn select(e: &mut Self, cond: Self::Reg, a: Self::Reg, b: Self::Reg) -> Result<Self::Reg>;

    /// A float binary op (`arith.addf` .. `tt.precise_divf`) on operands widened to `w`.
    fn float_binary(e: &mut Self, opcode: Opcode, x: Self::Reg, y: Self::Reg, w: DType) -> Result<Self::Reg>;

    /// A float unary op or math function on an operand widened to `w`.
    fn float_unary(e: &mut Self, opcode: Opcode, x: Self::Reg, w: DType) -> Result<Self::Reg>;

    /// `math.fma` on operands widened to `w`.
    fn fma(e: &mut Self, x: Self::Reg, y: Self::Reg, z: Self::Reg, w: DType) -> Result<Self::Reg>;

    /// `tt.clampf` of `x` to `[lo, hi]`, on operands widened to `w`.
    fn clamp(
        e: &mut Self,
        x: Self::Reg,
        lo: Self::Reg,
        hi: Self::Reg,
        w: DType,
        propagate_nan: bool,
    ) -> Result<Self::Reg>;

    /// A cast from `from` to `to`.
    fn cast(e: &mut Self, opcode: Opcode, x: Self::Reg, from: DType, to: DType) -> Result<Self::Reg>;

    /// A 16- or 8-bit float (or f32, returned as is) widened to f32.
    fn widen_to_f32(e: &mut Self, r: Self::Reg, d: DType) -> Result<Self::Reg>;

    /// An f32 rounded to nearest even into a 16- or 8-bit float of `d`.
    fn narrow_from_f32(e: &mut Self, f: Self::Reg, d: DType) -> Result<Self::Reg>;
}

/// The type a float of `d` computes in: f64 for f64, f32 for every narrower float.
pub fn wide(d: DType) -> DType {
    if d == DType::F64 {
        DType::F64
    } else {
        DType::F32
    }
}

/// One elementwise op, as its elements see it.
struct Elementwise<'s> {
    opcode: Opcode,
    /// The operands' element types.
    in_types: Vec<DType>,
    /// The result's element type.
    out: DType,
    /// `arith.cmpi` / `arith.cmpf`'s predicate (empty for other ops).
    predicate: &'s str,
    /// `tt.clampf`'s `propagate_nan`.
    propagate_nan: bool,
}

/// Lowers one elementwise op.
pub fn lower<'a, B: LowerElementwise<'a>>(e: &mut B, op: Op) -> Result<()> {
    let data = e.func.body.op(op);
    let operands: Vec<Vec<B::Reg>> = data.operands.iter().map(|&v| e.get(v)).collect::<Result<_>>()?;
    let result = data.results[0];
    let ew = Elementwise {
        opcode: data.opcode,
        in_types: data.operands.iter().map(|&v| e.ty(v).dtype()).collect(),
        out: e.ty(result).dtype(),
        predicate: data.attrs.str("predicate").unwrap_or(""),
        propagate_nan: data.attrs.bool("propagate_nan").unwrap_or(false),
    };
    B::check_result(e, ew.out)?;
    let n = operands.iter().map(|o| o.len()).max().unwrap_or(1);
    let mut cache: FxHashMap<Vec<B::Reg>, B::Reg> = FxHashMap::default();
    let mut regs = Vec::with_capacity(n);
    for i in 0..n {
        let args: Vec<B::Reg> = operands.iter().map(|o| if o.len() == 1 { o[0] } else { o[i] }).collect();
        if let Some(&r) = cache.get(&args) {
            regs.push(r);
            continue;
        }
        let r = scalar(e, &ew, &args)?;
        cache.insert(args, r);
        regs.push(r);
    }
    e.set(result, regs);
    Ok(())
}

/// Which rule of [`LowerElementwise`] computes an opcode's elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    IntBinary,
    IntAbs,
    IntCompare,
    FloatCompare,
    Select,
    FloatBinary,
    FloatUnary,
    Fma,
    Clamp,
    Cast,
}

impl Kind {
    /// The kind of an elementwise opcode; `None` for every other opcode.
    pub fn of(opcode: Opcode) -> Option<Kind> {
        use Opcode::*;
        Some(match opcode {
            AddI | SubI | MulI | DivSI | DivUI | RemSI | RemUI | AndI | OrI | XOrI | ShLI | ShRSI | ShRUI
            | MaxSI | MinSI | MaxUI | MinUI | MulHiUI => Kind::IntBinary,
            AbsI => Kind::IntAbs,
            CmpI => Kind::IntCompare,
            CmpF => Kind::FloatCompare,
            Select => Kind::Select,
            AddF | SubF | MulF | DivF | RemF | MaxNumF | MinNumF | MaximumF | MinimumF | PreciseDivF => {
                Kind::FloatBinary
            }
            NegF | AbsF | Exp | Exp2 | Log | Log2 | Sqrt | Rsqrt | Sin | Cos | Tanh | Floor | Ceil | Erf
            | PreciseSqrt => Kind::FloatUnary,
            Fma => Kind::Fma,
            ClampF => Kind::Clamp,
            ExtSI | ExtUI | TruncI | ExtF | TruncF | FpToFp | SIToFP | UIToFP | FPToSI | FPToUI | Bitcast
            | IntToPtr | PtrToInt => Kind::Cast,
            _ => return None,
        })
    }
}

/// One element: the rule of the op's kind, float operands widened and results rounded back.
fn scalar<'a, B: LowerElementwise<'a>>(e: &mut B, op: &Elementwise, a: &[B::Reg]) -> Result<B::Reg> {
    let (d, opcode) = (op.in_types[0], op.opcode);
    let Some(kind) = Kind::of(opcode) else {
        return e.unsupported(&format!("{} on {}", opcode.name(), B::NAME));
    };
    match kind {
        Kind::IntBinary => B::int_binary(e, opcode, a[0], a[1], d),
        Kind::IntAbs => B::int_abs(e, a[0], d),
        Kind::IntCompare => B::int_compare(e, op.predicate, a[0], a[1], d),
        Kind::FloatCompare => {
            let (x, y) = (widen(e, a[0], d)?, widen(e, a[1], d)?);
            B::float_compare(e, op.predicate, x, y, wide(d))
        }
        Kind::Select => B::select(e, a[0], a[1], a[2]),
        Kind::FloatBinary => {
            let (x, y) = (widen(e, a[0], d)?, widen(e, a[1], d)?);
            let r = B::float_binary(e, opcode, x, y, wide(d))?;
            narrow(e, r, d)
        }
        Kind::FloatUnary => {
            let x = widen(e, a[0], d)?;
            let r = B::float_unary(e, opcode, x, wide(d))?;
            narrow(e, r, d)
        }
        Kind::Fma | Kind::Clamp => {
            let x = widen(e, a[0], d)?;
            let y = widen(e, a[1], d)?;
            let z = widen(e, a[2], d)?;
            let r = if kind == Kind::Fma {
                B::fma(e, x, y, z, wide(d))?
            } else {
                B::clamp(e, x, y, z, wide(d), op.propagate_nan)?
            };
            narrow(e, r, d)
        }
        Kind::Cast => B::cast(e, opcode, a[0], d, op.out),
    }
}

/// A float operand in the type it computes in.
pub fn widen<'a, B: LowerElementwise<'a>>(e: &mut B, r: B::Reg, d: DType) -> Result<B::Reg> {
    match d {
        DType::F32 | DType::F64 => Ok(r),
        _ => B::widen_to_f32(e, r, d),
    }
}

/// A float result rounded back to `d`.
pub fn narrow<'a, B: LowerElementwise<'a>>(e: &mut B, r: B::Reg, d: DType) -> Result<B::Reg> {
    match d {
        DType::F32 | DType::F64 => Ok(r),
        _ => B::narrow_from_f32(e, r, d),
    }
}
