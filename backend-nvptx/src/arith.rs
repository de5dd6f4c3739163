//! Elementwise ops: integer and float arithmetic, comparisons, select, casts and math, one
//! element at a time. The midend walks the registers (each distinct tuple of operand registers
//! once) and picks the rule of each opcode's kind ([`trident_midend::codegen::elementwise`]);
//! this file spells each kind.
//!
//! Numeric choices, following Triton on NVIDIA:
//! - 8- and 16-bit integers live in 32-bit registers, sign- or zero-extended; results are
//!   re-extended after every op so they wrap at their own width.
//! - f16 and bf16 arithmetic is done in f32 and rounded back (round-to-nearest-even): for +, -, *
//!   and / this equals the correctly rounded half-precision result.
//! - `/` and `tl.fdiv` are `div.full.f32` (approximate, as in Triton); `div_rn` is `div.rn`.
//! - `exp` is `ex2.approx.f32` of x·log2(e), `log` is `lg2.approx.f32` times ln 2, `exp2` is
//!   `ex2.approx.ftz.f32` (as Triton's libdevice call: subnormal results flush to zero),
//!   `log2` / `rsqrt` / `sin` / `cos` / `tanh` are the `.approx` instructions, `sqrt` is
//!   `sqrt.approx.f32` and `sqrt_rn` is `sqrt.rn.f32`; `erf` is a polynomial (Abramowitz and
//!   Stegun 7.1.26, absolute error below 1.5e-7).
//! - float -> int conversions truncate and saturate (`cvt.rzi`), NaN gives 0.

use trident_midend::codegen::elementwise::wide;
use trident_midend::codegen::LowerElementwise;
use trident_midend::ir::{DType, Opcode};

use crate::emit::{class_of, EResult, Emitter};
use crate::ptx::{f32_lit, Class, Reg};

/// PTX type suffix of an integer dtype in its register (32-bit for narrow types).
fn int_suffix(d: DType) -> &'static str {
    match d {
        DType::I64 => "s64",
        DType::U64 => "u64",
        DType::I1 => "u32",
        d if d.is_unsigned_int() => "u32",
        _ => "s32",
    }
}

fn bits_suffix(d: DType) -> &'static str {
    if d.bits() == 64 {
        "b64"
    } else {
        "b32"
    }
}

fn float_suffix(d: DType) -> &'static str {
    if d == DType::F64 {
        "f64"
    } else {
        "f32"
    }
}

impl Emitter<'_> {
    /// Re-extends a narrow integer held in a 32-bit register so it wraps at its width.
    pub fn normalize_int(&mut self, r: Reg, d: DType) -> Reg {
        match d {
            DType::I8 => {
                self.ins(format!("cvt.s32.s8 {r}, {r}"));
            }
            DType::I16 => {
                self.ins(format!("cvt.s32.s16 {r}, {r}"));
            }
            DType::U8 => {
                self.ins(format!("and.b32 {r}, {r}, 255"));
            }
            DType::U16 => {
                self.ins(format!("and.b32 {r}, {r}, 65535"));
            }
            _ => {}
        }
        r
    }

    /// A 16-bit float (f16 / bf16 / fp8 bits) widened to f32.
    pub fn widen_to_f32(&mut self, r: Reg, d: DType) -> EResult<Reg> {
        let f = self.reg(Class::F32);
        match d {
            DType::F16 => self.ins(format!("cvt.f32.f16 {f}, {r}")),
            DType::BF16 => {
                let w = self.reg(Class::B32);
                self.ins(format!("cvt.u32.u16 {w}, {r}"));
                self.ins(format!("shl.b32 {w}, {w}, 16"));
                self.ins(format!("mov.b32 {f}, {w}"));
            }
            DType::F8E4M3 | DType::F8E5M2 => {
                if self.options.sm < 89 {
                    return Ok(self.fp8_to_f32_soft(r, d));
                }
                let kind = if d == DType::F8E4M3 { "e4m3x2" } else { "e5m2x2" };
                let pair = self.reg(Class::B32);
                self.ins(format!("cvt.rn.f16x2.{kind} {pair}, {r}"));
                let (lo, hi) = (self.reg(Class::B16), self.reg(Class::B16));
                self.ins(format!("mov.b32 {{{lo}, {hi}}}, {pair}"));
                self.ins(format!("cvt.f32.f16 {f}, {lo}"));
            }
            DType::F32 => return Ok(r),
            _ => return self.invalid(format!("widen_to_f32 of {d}")),
        }
        Ok(f)
    }

    /// An f32 rounded (to nearest even, saturating for fp8) into a 16-bit float register.
    pub fn narrow_from_f32(&mut self, f: Reg, d: DType) -> EResult<Reg> {
        let r = self.reg(Class::B16);
        match d {
            DType::F16 => self.ins(format!("cvt.rn.f16.f32 {r}, {f}")),
            DType::BF16 => self.ins(format!("cvt.rn.bf16.f32 {r}, {f}")),
            DType::F8E4M3 | DType::F8E5M2 => {
                if self.options.sm < 89 {
                    return Ok(self.f32_to_fp8_soft(f, d));
                }
                let kind = if d == DType::F8E4M3 { "e4m3x2" } else { "e5m2x2" };
                let zero = self.reg(Class::F32);
                self.ins(format!("mov.f32 {zero}, 0f00000000"));
                let packed = self.reg(Class::B16);
                self.ins(format!("cvt.rn.satfinite.{kind}.f32 {packed}, {zero}, {f}"));
                self.ins(format!("and.b16 {r}, {packed}, 255"));
            }
            _ => return self.invalid(format!("narrow_from_f32 to {d}")),
        }
        Ok(r)
    }
}

impl Emitter<'_> {
    /// f32 -> fp8 in integer arithmetic (GPUs before sm_89 have no fp8 conversions): round to
    /// nearest even, saturate finite overflow to the largest finite value, NaN to NaN.
    fn f32_to_fp8_soft(&mut self, f: Reg, d: DType) -> Reg {
        let (mbits, bias, max) = d.fp8_format().expect("an fp8 type");
        let shift = 23 - mbits;
        let min_normal = 2f64.powi(1 - bias);
        let sub_scale = 2f64.powi(bias - 1 + mbits as i32);
        let (a, bits, lsb, sub, code, sign) = (
            self.reg(Class::F32),
            self.reg(Class::B32),
            self.reg(Class::B32),
            self.reg(Class::F32),
            self.reg(Class::B32),
            self.reg(Class::B32),
        );
        let (is_sub, is_nan) = (self.reg(Class::Pred), self.reg(Class::Pred));
        self.ins(format!("abs.f32 {a}, {f}"));
        self.ins(format!("setp.nan.f32 {is_nan}, {f}, {f}"));
        self.ins(format!("min.f32 {a}, {a}, {}", f32_lit(max)));
        // Normal numbers: round the f32 mantissa to `mbits` bits, then rebias the exponent.
        self.ins(format!("mov.b32 {bits}, {a}"));
        self.ins(format!("bfe.u32 {lsb}, {bits}, {shift}, 1"));
        self.ins(format!("add.s32 {bits}, {bits}, {}", (1u32 << (shift - 1)) - 1));
        self.ins(format!("add.s32 {bits}, {bits}, {lsb}"));
        self.ins(format!("shr.u32 {code}, {bits}, {shift}"));
        self.ins(format!("sub.s32 {code}, {code}, {}", (127 - bias) << mbits));
        // Subnormals: multiples of the smallest subnormal, rounded to nearest even.
        self.ins(format!("setp.lt.f32 {is_sub}, {a}, {}", f32_lit(min_normal)));
        self.ins(format!("mul.f32 {sub}, {a}, {}", f32_lit(sub_scale)));
        self.ins(format!("cvt.rni.f32.f32 {sub}, {sub}"));
        let sub_code = self.reg(Class::B32);
        self.ins(format!("cvt.rzi.u32.f32 {sub_code}, {sub}"));
        self.ins(format!("selp.b32 {code}, {sub_code}, {code}, {is_sub}"));
        self.ins(format!("selp.b32 {code}, 127, {code}, {is_nan}"));
        self.ins(format!("mov.b32 {bits}, {f}"));
        self.ins(format!("shr.u32 {sign}, {bits}, 31"));
        self.ins(format!("shl.b32 {sign}, {sign}, 7"));
        self.ins(format!("or.b32 {code}, {code}, {sign}"));
        let r = self.reg(Class::B16);
        self.ins(format!("cvt.u16.u32 {r}, {code}"));
        r
    }

    /// fp8 -> f32 exactly, in integer arithmetic.
    fn fp8_to_f32_soft(&mut self, h: Reg, d: DType) -> Reg {
        let (mbits, bias, _) = d.fp8_format().expect("an fp8 type");
        let ebits = 7 - mbits;
        let (c, e, m, bits, sign) = (
            self.reg(Class::B32),
            self.reg(Class::B32),
            self.reg(Class::B32),
            self.reg(Class::B32),
            self.reg(Class::B32),
        );
        self.ins(format!("cvt.u32.u16 {c}, {h}"));
        self.ins(format!("bfe.u32 {e}, {c}, {mbits}, {ebits}"));
        self.ins(format!("bfe.u32 {m}, {c}, 0, {mbits}"));
        // Normal: exponent rebiased into f32, mantissa moved to the top.
        self.ins(format!("add.s32 {bits}, {e}, {}", 127 - bias));
        self.ins(format!("shl.b32 {bits}, {bits}, 23"));
        let mt = self.reg(Class::B32);
        self.ins(format!("shl.b32 {mt}, {m}, {}", 23 - mbits));
        self.ins(format!("or.b32 {bits}, {bits}, {mt}"));
        let f = self.reg(Class::F32);
        self.ins(format!("mov.b32 {f}, {bits}"));
        // Subnormal: m times the smallest subnormal.
        let (zero_e, sub) = (self.reg(Class::Pred), self.reg(Class::F32));
        self.ins(format!("setp.eq.u32 {zero_e}, {e}, 0"));
        self.ins(format!("cvt.rn.f32.u32 {sub}, {m}"));
        self.ins(format!("mul.f32 {sub}, {sub}, {}", f32_lit(2f64.powi(1 - bias - mbits as i32))));
        self.ins(format!("selp.f32 {f}, {sub}, {f}, {zero_e}"));
        // Specials: e4m3fn has one NaN (all ones); e5m2 has IEEE infinities and NaNs.
        let special = self.reg(Class::Pred);
        if d == DType::F8E4M3 {
            let low7 = self.reg(Class::B32);
            self.ins(format!("and.b32 {low7}, {c}, 127"));
            self.ins(format!("setp.eq.u32 {special}, {low7}, 127"));
            self.ins(format!("selp.f32 {f}, 0f7FC00000, {f}, {special}"));
        } else {
            let inf = self.reg(Class::Pred);
            self.ins(format!("setp.eq.u32 {special}, {e}, 31"));
            self.ins(format!("setp.eq.u32 {inf}, {m}, 0"));
            let sv = self.reg(Class::F32);
            self.ins(format!("selp.f32 {sv}, 0f7F800000, 0f7FC00000, {inf}"));
            self.ins(format!("selp.f32 {f}, {sv}, {f}, {special}"));
        }
        self.ins(format!("shr.u32 {sign}, {c}, 7"));
        let neg = self.reg(Class::Pred);
        self.ins(format!("setp.ne.u32 {neg}, {sign}, 0"));
        let nf = self.reg(Class::F32);
        self.ins(format!("neg.f32 {nf}, {f}"));
        self.ins(format!("selp.f32 {f}, {nf}, {f}, {neg}"));
        f
    }
}

/// The PTX spelling of each kind of element; the midend widens 16- and 8-bit float operands
/// to f32 before and rounds results back after ([`trident_midend::codegen::elementwise`]).
impl<'a> LowerElementwise<'a> for Emitter<'a> {
    fn int_binary(e: &mut Self, opcode: Opcode, x: Reg, y: Reg, d: DType) -> EResult<Reg> {
        use Opcode::*;
        if d == DType::I1 {
            let r = e.reg(Class::Pred);
            let op = match opcode {
                AndI | MinUI | MinSI | MulI => "and",
                OrI | MaxUI | MaxSI => "or",
                XOrI | AddI | SubI => "xor",
                _ => return e.unsupported(&format!("{} on booleans", opcode.name())),
            };
            e.ins(format!("{op}.pred {r}, {x}, {y}"));
            return Ok(r);
        }
        let s = int_suffix(d);
        let b = bits_suffix(d);
        let r = e.reg(class_of(d));
        let text = match opcode {
            AddI => format!("add.{s} {r}, {x}, {y}"),
            SubI => format!("sub.{s} {r}, {x}, {y}"),
            MulI => format!("mul.lo.{s} {r}, {x}, {y}"),
            DivSI | DivUI => format!("div.{s} {r}, {x}, {y}"),
            RemSI | RemUI => format!("rem.{s} {r}, {x}, {y}"),
            AndI => format!("and.{b} {r}, {x}, {y}"),
            OrI => format!("or.{b} {r}, {x}, {y}"),
            XOrI => format!("xor.{b} {r}, {x}, {y}"),
            ShLI | ShRSI | ShRUI => {
                // PTX shift amounts are 32-bit and clamp at the register width; narrow types and
                // 64-bit amounts need care.
                let amount = if d.bits() == 64 {
                    let t = e.reg(Class::B32);
                    let big = e.reg(Class::Pred);
                    e.ins(format!("setp.gt.u64 {big}, {y}, 64"));
                    e.ins(format!("cvt.u32.u64 {t}, {y}"));
                    e.ins(format!("@{big} mov.u32 {t}, 64"));
                    t
                } else {
                    y
                };
                let kind = match opcode {
                    ShLI => format!("shl.{b}"),
                    ShRSI => format!("shr.{}", if d.bits() == 64 { "s64" } else { "s32" }),
                    _ => format!("shr.{}", if d.bits() == 64 { "u64" } else { "u32" }),
                };
                format!("{kind} {r}, {x}, {amount}")
            }
            MaxSI | MaxUI => format!("max.{s} {r}, {x}, {y}"),
            MinSI | MinUI => format!("min.{s} {r}, {x}, {y}"),
            MulHiUI => format!("mul.hi.{} {r}, {x}, {y}", if d.bits() == 64 { "u64" } else { "u32" }),
            _ => unreachable!(),
        };
        e.ins(text);
        Ok(e.normalize_int(r, d))
    }

    fn int_abs(e: &mut Self, x: Reg, d: DType) -> EResult<Reg> {
        let r = e.reg(class_of(d));
        e.ins(format!("abs.{} {r}, {x}", int_suffix(d)));
        Ok(e.normalize_int(r, d))
    }

    fn int_compare(e: &mut Self, predicate: &str, x: Reg, y: Reg, d: DType) -> EResult<Reg> {
        let r = e.reg(Class::Pred);
        if d == DType::I1 {
            let p = match predicate {
                "eq" => format!("xor.pred {r}, {x}, {y};\n\tnot.pred {r}, {r}"),
                "ne" => format!("xor.pred {r}, {x}, {y}"),
                _ => return e.unsupported(&format!("ordered comparison `{predicate}` of booleans")),
            };
            e.ins(p);
            return Ok(r);
        }
        let cmp = match predicate {
            "eq" => "eq",
            "ne" => "ne",
            "slt" | "ult" => "lt",
            "sle" | "ule" => "le",
            "sgt" | "ugt" => "gt",
            "sge" | "uge" => "ge",
            other => return e.invalid(format!("cmpi predicate {other}")),
        };
        let ty = if predicate.starts_with('u') || d.is_unsigned_int() {
            if d.bits() == 64 {
                "u64"
            } else {
                "u32"
            }
        } else if e
            .func
            .body
            .op(e.current.unwrap())
            .operands
            .first()
            .map(|&v| e.ty(v).is_ptr())
            .unwrap_or(false)
        {
            "u64"
        } else {
            int_suffix(d)
        };
        e.ins(format!("setp.{cmp}.{ty} {r}, {x}, {y}"));
        Ok(r)
    }

    fn float_compare(e: &mut Self, predicate: &str, x: Reg, y: Reg, w: DType) -> EResult<Reg> {
        let cmp = match predicate {
            "oeq" => "eq",
            "one" => "ne",
            "olt" => "lt",
            "ole" => "le",
            "ogt" => "gt",
            "oge" => "ge",
            "ueq" => "equ",
            "une" => "neu",
            "ult" => "ltu",
            "ule" => "leu",
            "ugt" => "gtu",
            "uge" => "geu",
            "ord" => "num",
            "uno" => "nan",
            other => return e.invalid(format!("cmpf predicate {other}")),
        };
        let r = e.reg(Class::Pred);
        e.ins(format!("setp.{cmp}.{} {r}, {x}, {y}", float_suffix(w)));
        Ok(r)
    }

    fn select(e: &mut Self, cond: Reg, a: Reg, b: Reg) -> EResult<Reg> {
        let class = a.class;
        let r = e.reg(class);
        if class == Class::Pred {
            e.ins(format!("mov.pred {r}, {b}"));
            e.ins(format!("@{cond} mov.pred {r}, {a}"));
        } else {
            let ty = match class {
                Class::B16 => "b16",
                Class::B32 => "b32",
                Class::B64 => "b64",
                Class::F32 => "f32",
                _ => "f64",
            };
            e.ins(format!("selp.{ty} {r}, {a}, {b}, {cond}"));
        }
        Ok(r)
    }

    fn float_binary(e: &mut Self, opcode: Opcode, x: Reg, y: Reg, w: DType) -> EResult<Reg> {
        use Opcode::*;
        let s = float_suffix(w);
        let r = e.reg(class_of(w));
        match opcode {
            AddF => e.ins(format!("add.{s} {r}, {x}, {y}")),
            SubF => e.ins(format!("sub.{s} {r}, {x}, {y}")),
            MulF => e.ins(format!("mul.{s} {r}, {x}, {y}")),
            DivF if w == DType::F32 => e.ins(format!("div.full.f32 {r}, {x}, {y}")),
            DivF | PreciseDivF => e.ins(format!("div.rn.{s} {r}, {x}, {y}")),
            MaxNumF => e.ins(format!("max.{s} {r}, {x}, {y}")),
            MinNumF => e.ins(format!("min.{s} {r}, {x}, {y}")),
            MaximumF => e.ins(format!("max.NaN.{s} {r}, {x}, {y}")),
            MinimumF => e.ins(format!("min.NaN.{s} {r}, {x}, {y}")),
            RemF => fmod(e, r, x, y, w),
            _ => unreachable!(),
        }
        Ok(r)
    }

    fn float_unary(e: &mut Self, opcode: Opcode, x: Reg, w: DType) -> EResult<Reg> {
        use Opcode::*;
        let s = float_suffix(w);
        let approx_only = matches!(opcode, Exp | Exp2 | Log | Log2 | Rsqrt | Sin | Cos | Tanh | Erf);
        if approx_only && w == DType::F64 {
            return e.unsupported("float64 transcendental math");
        }
        let r = e.reg(class_of(w));
        match opcode {
            NegF => e.ins(format!("neg.{s} {r}, {x}")),
            AbsF => e.ins(format!("abs.{s} {r}, {x}")),
            Exp => {
                let t = e.reg(Class::F32);
                e.ins(format!("mul.f32 {t}, {x}, 0f3FB8AA3B"));
                e.ins(format!("ex2.approx.f32 {r}, {t}"));
            }
            // As Triton's `tl.math.exp2` (libdevice with flush-to-zero): one MUFU.EX2,
            // results below 2^-126 flushed to zero.
            Exp2 => e.ins(format!("ex2.approx.ftz.f32 {r}, {x}")),
            Log => {
                let t = e.reg(Class::F32);
                e.ins(format!("lg2.approx.f32 {t}, {x}"));
                e.ins(format!("mul.f32 {r}, {t}, 0f3F317218"));
            }
            Log2 => e.ins(format!("lg2.approx.f32 {r}, {x}")),
            Sqrt if w == DType::F32 => e.ins(format!("sqrt.approx.f32 {r}, {x}")),
            Sqrt | PreciseSqrt => e.ins(format!("sqrt.rn.{s} {r}, {x}")),
            Rsqrt => e.ins(format!("rsqrt.approx.f32 {r}, {x}")),
            Sin => e.ins(format!("sin.approx.f32 {r}, {x}")),
            Cos => e.ins(format!("cos.approx.f32 {r}, {x}")),
            Tanh => e.ins(format!("tanh.approx.f32 {r}, {x}")),
            Floor => e.ins(format!("cvt.rmi.{s}.{s} {r}, {x}")),
            Ceil => e.ins(format!("cvt.rpi.{s}.{s} {r}, {x}")),
            Erf => erf(e, r, x),
            _ => unreachable!(),
        }
        Ok(r)
    }

    fn fma(e: &mut Self, x: Reg, y: Reg, z: Reg, w: DType) -> EResult<Reg> {
        let s = float_suffix(w);
        let r = e.reg(class_of(w));
        e.ins(format!("fma.rn.{s} {r}, {x}, {y}, {z}"));
        Ok(r)
    }

    fn clamp(e: &mut Self, x: Reg, lo: Reg, hi: Reg, w: DType, propagate_nan: bool) -> EResult<Reg> {
        let s = float_suffix(w);
        let r = e.reg(class_of(w));
        let nan = if propagate_nan { ".NaN" } else { "" };
        e.ins(format!("max{nan}.{s} {r}, {x}, {lo}"));
        e.ins(format!("min{nan}.{s} {r}, {r}, {hi}"));
        Ok(r)
    }

    fn widen_to_f32(e: &mut Self, r: Reg, d: DType) -> EResult<Reg> {
        e.widen_to_f32(r, d)
    }

    fn narrow_from_f32(e: &mut Self, f: Reg, d: DType) -> EResult<Reg> {
        e.narrow_from_f32(f, d)
    }

    fn cast(e: &mut Self, opcode: Opcode, x: Reg, from: DType, to: DType) -> EResult<Reg> {
        use Opcode::*;
        let op = e.current.unwrap();
        let src_ty = e.ty(e.func.body.op(op).operands[0]).clone();
        let dst_ty = e.ty(e.func.body.op(op).results[0]).clone();
        match opcode {
            Bitcast if src_ty.is_ptr() || dst_ty.is_ptr() => Ok(x),
            IntToPtr | PtrToInt => Ok(x),
            Bitcast => {
                let (fc, tc) = (class_of(from), class_of(to));
                if fc == tc {
                    let r = e.reg(tc);
                    let b = match tc {
                        Class::B16 => "b16",
                        Class::B64 | Class::F64 => "b64",
                        _ => "b32",
                    };
                    e.ins(format!("mov.{b} {r}, {x}"));
                    return Ok(if to.is_int() { e.normalize_int(r, to) } else { r });
                }
                let r = e.reg(tc);
                match (fc, tc) {
                    (Class::B32, Class::F32) | (Class::F32, Class::B32) => {
                        e.ins(format!("mov.b32 {r}, {x}"));
                        Ok(r)
                    }
                    (Class::B64, Class::F64) | (Class::F64, Class::B64) => {
                        e.ins(format!("mov.b64 {r}, {x}"));
                        Ok(r)
                    }
                    (Class::B16, Class::B32) => {
                        let ext = if to.is_signed_int() { "s32.s16" } else { "u32.u16" };
                        e.ins(format!("cvt.{ext} {r}, {x}"));
                        Ok(r)
                    }
                    (Class::B32, Class::B16) => {
                        e.ins(format!("cvt.u16.u32 {r}, {x}"));
                        Ok(r)
                    }
                    _ => e.unsupported(&format!("bitcast from {from} to {to}")),
                }
            }
            ExtSI | ExtUI | TruncI => {
                if to == DType::I1 {
                    let r = e.reg(Class::Pred);
                    e.ins(format!("setp.ne.{} {r}, {x}, 0", if from.bits() == 64 { "b64" } else { "b32" }));
                    return Ok(r);
                }
                if from == DType::I1 {
                    let r = e.reg(class_of(to));
                    e.ins(format!("selp.{} {r}, 1, 0, {x}", if to.bits() == 64 { "b64" } else { "b32" }));
                    return Ok(r);
                }
                let r = e.reg(class_of(to));
                match (from.bits() == 64, to.bits() == 64) {
                    (false, true) => {
                        let kind = if opcode == ExtSI { "s64.s32" } else { "u64.u32" };
                        e.ins(format!("cvt.{kind} {r}, {x}"));
                    }
                    (true, false) => {
                        e.ins(format!("cvt.u32.u64 {r}, {x}"));
                    }
                    _ => {
                        let b = if to.bits() == 64 { "b64" } else { "b32" };
                        e.ins(format!("mov.{b} {r}, {x}"));
                    }
                }
                // A narrow source was kept extended by its own signedness; an extension to a wider
                // type must use the op's signedness instead.
                if opcode == ExtUI && from.bits() < 32 && to.bits() <= 32 {
                    let mask = (1u64 << from.bits()) - 1;
                    e.ins(format!("and.b32 {r}, {r}, {mask}"));
                }
                Ok(e.normalize_int(r, to))
            }
            ExtF | TruncF | FpToFp => {
                if from == to {
                    return Ok(x);
                }
                match (from, to) {
                    (DType::F32, DType::F64) => {
                        let r = e.reg(Class::F64);
                        e.ins(format!("cvt.f64.f32 {r}, {x}"));
                        Ok(r)
                    }
                    (DType::F64, DType::F32) => {
                        let r = e.reg(Class::F32);
                        e.ins(format!("cvt.rn.f32.f64 {r}, {x}"));
                        Ok(r)
                    }
                    (DType::F64, _) => {
                        let r = e.reg(Class::B16);
                        match to {
                            DType::F16 => e.ins(format!("cvt.rn.f16.f64 {r}, {x}")),
                            _ => return e.unsupported(&format!("conversion from f64 to {to}")),
                        }
                        Ok(r)
                    }
                    (_, DType::F64) => {
                        let f = e.widen_to_f32(x, from)?;
                        let r = e.reg(Class::F64);
                        e.ins(format!("cvt.f64.f32 {r}, {f}"));
                        Ok(r)
                    }
                    (_, DType::F32) => e.widen_to_f32(x, from),
                    (DType::F32, _) => e.narrow_from_f32(x, to),
                    _ => {
                        let f = e.widen_to_f32(x, from)?;
                        e.narrow_from_f32(f, to)
                    }
                }
            }
            SIToFP | UIToFP => {
                let src = if from == DType::I1 {
                    let t = e.reg(Class::B32);
                    e.ins(format!("selp.u32 {t}, 1, 0, {x}"));
                    (t, "u32")
                } else {
                    (
                        x,
                        if opcode == SIToFP {
                            int_suffix(from)
                        } else if from.bits() == 64 {
                            "u64"
                        } else {
                            "u32"
                        },
                    )
                };
                match to {
                    DType::F32 | DType::F64 => {
                        let r = e.reg(class_of(to));
                        e.ins(format!("cvt.rn.{}.{} {r}, {}", float_suffix(to), src.1, src.0));
                        Ok(r)
                    }
                    DType::F16 | DType::BF16 => {
                        let r = e.reg(Class::B16);
                        e.ins(format!(
                            "cvt.rn.{}.{} {r}, {}",
                            if to == DType::F16 { "f16" } else { "bf16" },
                            src.1,
                            src.0
                        ));
                        Ok(r)
                    }
                    _ => {
                        let f = e.reg(Class::F32);
                        e.ins(format!("cvt.rn.f32.{} {f}, {}", src.1, src.0));
                        e.narrow_from_f32(f, to)
                    }
                }
            }
            FPToSI | FPToUI => {
                let f = match from {
                    DType::F32 | DType::F64 => x,
                    _ => e.widen_to_f32(x, from)?,
                };
                let fs = float_suffix(wide(from));
                let r = e.reg(class_of(to));
                let signed = opcode == FPToSI;
                let ity = match (to.bits() == 64, signed) {
                    (true, true) => "s64",
                    (true, false) => "u64",
                    (false, true) => "s32",
                    (false, false) => "u32",
                };
                e.ins(format!("cvt.rzi.{ity}.{fs} {r}, {f}"));
                // Saturate to the narrow type's range, as the interpreter does.
                if to.bits() < 32 {
                    let (lo, hi) = match to {
                        DType::I8 => (-128i64, 127i64),
                        DType::I16 => (-32768, 32767),
                        DType::U8 => (0, 255),
                        _ => (0, 65535),
                    };
                    e.ins(format!("max.{ity} {r}, {r}, {lo}"));
                    e.ins(format!("min.{ity} {r}, {r}, {hi}"));
                }
                Ok(r)
            }
            _ => e.unsupported(&format!("{} on nvptx", opcode.name())),
        }
    }
}

/// C fmod for f32 through f64: `x - y * trunc(x / y)`, exact for the quotients kernels use.
fn fmod(e: &mut Emitter, r: Reg, x: Reg, y: Reg, w: DType) {
    if w == DType::F64 {
        let q = e.reg(Class::F64);
        e.ins(format!("div.rn.f64 {q}, {x}, {y}"));
        e.ins(format!("cvt.rzi.f64.f64 {q}, {q}"));
        e.ins(format!("neg.f64 {q}, {q}"));
        e.ins(format!("fma.rn.f64 {r}, {q}, {y}, {x}"));
        return;
    }
    let (xd, yd, q, rd) = (e.reg(Class::F64), e.reg(Class::F64), e.reg(Class::F64), e.reg(Class::F64));
    e.ins(format!("cvt.f64.f32 {xd}, {x}"));
    e.ins(format!("cvt.f64.f32 {yd}, {y}"));
    e.ins(format!("div.rn.f64 {q}, {xd}, {yd}"));
    e.ins(format!("cvt.rzi.f64.f64 {q}, {q}"));
    e.ins(format!("neg.f64 {q}, {q}"));
    e.ins(format!("fma.rn.f64 {rd}, {q}, {yd}, {xd}"));
    e.ins(format!("cvt.rn.f32.f64 {r}, {rd}"));
}

/// erf(x) = sign(x) (1 - (a1 t + ... + a5 t^5) e^{-x^2}), t = 1 / (1 + p|x|).
fn erf(e: &mut Emitter, r: Reg, x: Reg) {
    let regs: Vec<Reg> = (0..6).map(|_| e.reg(Class::F32)).collect();
    let (ax, t, poly, ex, one, tmp) = (regs[0], regs[1], regs[2], regs[3], regs[4], regs[5]);
    e.ins(format!("abs.f32 {ax}, {x}"));
    e.ins(format!("mov.f32 {one}, 0f3F800000"));
    e.ins(format!("fma.rn.f32 {t}, {ax}, {}, {one}", f32_lit(0.3275911)));
    e.ins(format!("div.rn.f32 {t}, {one}, {t}"));
    e.ins(format!("mov.f32 {poly}, {}", f32_lit(1.061405429)));
    for c in [-1.453152027, 1.421413741, -0.284496736, 0.254829592] {
        e.ins(format!("fma.rn.f32 {poly}, {poly}, {t}, {}", f32_lit(c)));
    }
    e.ins(format!("mul.f32 {poly}, {poly}, {t}"));
    e.ins(format!("mul.f32 {tmp}, {ax}, {ax}"));
    e.ins(format!("mul.f32 {tmp}, {tmp}, 0fBFB8AA3B"));
    e.ins(format!("ex2.approx.f32 {ex}, {tmp}"));
    e.ins(format!("mul.f32 {poly}, {poly}, {ex}"));
    e.ins(format!("sub.f32 {tmp}, {one}, {poly}"));
    e.ins(format!("copysign.f32 {r}, {x}, {tmp}"));
}
