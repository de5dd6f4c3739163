//! Element types and value types of the IR.
//!
//! Unlike MLIR's signless integers, trident keeps Triton's signedness in the type (`i32` vs
//! `u32`): the frontend's promotion rules, the interpreter and both backends read it from there.
//! Ops still carry MLIR's signed/unsigned names (`arith.divsi` / `arith.divui`) so the text reads
//! like Triton's TTIR. A [`Type`] is a scalar (empty shape) or a ranked tensor of scalars or
//! pointers; a tensor descriptor is a type of its own. In TTGIR every tensor type also carries its
//! layout ([`Encoding`]); in TTIR the encoding is absent. Changing a value's layout is always an
//! explicit `ttg.convert_layout`.

use std::fmt;

use crate::layout::Encoding;

/// A scalar element type.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum DType {
    I1,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    /// `tl.float8e4nv`: e4m3 with no infinities, one NaN pattern per sign (MLIR `f8E4M3FN`).
    F8E4M3,
    /// `tl.float8e5`: e5m2 with IEEE infinities and NaNs (MLIR `f8E5M2`).
    F8E5M2,
    F16,
    BF16,
    F32,
    F64,
}

impl DType {
    pub const ALL: [DType; 15] = [
        DType::I1,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F8E4M3,
        DType::F8E5M2,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ];

    /// The name used in the IR text (MLIR spelling, `u` for unsigned).
    pub fn ir_name(self) -> &'static str {
        match self {
            DType::I1 => "i1",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::F8E4M3 => "f8E4M3FN",
            DType::F8E5M2 => "f8E5M2",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }

    /// The name Triton's Python API prints (`tl.float16` is `fp16`).
    pub fn triton_name(self) -> &'static str {
        match self {
            DType::I1 => "int1",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::U8 => "uint8",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
            DType::F8E4M3 => "fp8e4nv",
            DType::F8E5M2 => "fp8e5",
            DType::F16 => "fp16",
            DType::BF16 => "bf16",
            DType::F32 => "fp32",
            DType::F64 => "fp64",
        }
    }

    pub fn from_ir_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.ir_name() == name)
    }

    /// Parses the short names of the command line and of Triton (`fp16`, `i32`, `u8`, `fp8e4nv`,
    /// `float16`, `int32`, ...).
    pub fn from_user_name(name: &str) -> Option<DType> {
        let d = match name {
            "i1" | "int1" | "bool" => DType::I1,
            "i8" | "int8" => DType::I8,
            "i16" | "int16" => DType::I16,
            "i32" | "int32" => DType::I32,
            "i64" | "int64" => DType::I64,
            "u8" | "uint8" => DType::U8,
            "u16" | "uint16" => DType::U16,
            "u32" | "uint32" => DType::U32,
            "u64" | "uint64" => DType::U64,
            "fp8e4nv" | "float8e4nv" | "float8_e4m3fn" => DType::F8E4M3,
            "fp8e5" | "float8e5" | "float8_e5m2" => DType::F8E5M2,
            "fp16" | "f16" | "float16" | "half" => DType::F16,
            "bf16" | "bfloat16" => DType::BF16,
            "fp32" | "f32" | "float32" | "float" => DType::F32,
            "fp64" | "f64" | "float64" | "double" => DType::F64,
            _ => return DType::from_ir_name(name),
        };
        Some(d)
    }

    pub fn bits(self) -> u32 {
        match self {
            DType::I1 => 1,
            DType::I8 | DType::U8 | DType::F8E4M3 | DType::F8E5M2 => 8,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 16,
            DType::I32 | DType::U32 | DType::F32 => 32,
            DType::I64 | DType::U64 | DType::F64 => 64,
        }
    }

    /// Bytes one element takes in memory (`i1` is stored as a byte).
    pub fn size_bytes(self) -> usize {
        (self.bits().max(8) / 8) as usize
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::F8E4M3 | DType::F8E5M2 | DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    pub fn is_fp8(self) -> bool {
        matches!(self, DType::F8E4M3 | DType::F8E5M2)
    }

    /// Integers, `i1` included.
    pub fn is_int(self) -> bool {
        !self.is_float()
    }

    pub fn is_bool(self) -> bool {
        self == DType::I1
    }

    pub fn is_signed_int(self) -> bool {
        matches!(self, DType::I1 | DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }

    pub fn is_unsigned_int(self) -> bool {
        matches!(self, DType::U8 | DType::U16 | DType::U32 | DType::U64)
    }

    /// An 8-bit float format: mantissa bits, exponent bias, largest finite value.
    pub fn fp8_format(self) -> Option<(u32, i32, f64)> {
        match self {
            DType::F8E4M3 => Some((3, 7, 448.0)),
            DType::F8E5M2 => Some((2, 15, 57344.0)),
            _ => None,
        }
    }

    /// The bit pattern of the constant `v` of a 16- or 8-bit float type (0 for other types), as
    /// the devices round: to nearest even, fp8 magnitudes saturated to the largest finite value,
    /// NaN to the all-ones code.
    pub fn small_float_bits(self, v: f64) -> u32 {
        match self {
            DType::F16 => half::f16::from_f64(v).to_bits() as u32,
            DType::BF16 => half::bf16::from_f64(v).to_bits() as u32,
            DType::F8E4M3 | DType::F8E5M2 => {
                let Some((mbits, bias, max)) = self.fp8_format() else { return 0 };
                let sign = if v.is_sign_negative() { 0x80 } else { 0 };
                if v.is_nan() {
                    return 0x7f;
                }
                let a = (v.abs() as f32).min(max as f32);
                let min_normal = 2f32.powi(1 - bias);
                let code = if a < min_normal {
                    (a * 2f32.powi(bias - 1 + mbits as i32)).round_ties_even() as u32
                } else {
                    let shift = 23 - mbits;
                    let bits = a.to_bits();
                    let rounded = bits + (1 << (shift - 1)) - 1 + ((bits >> shift) & 1);
                    (rounded >> shift) - (((127 - bias) as u32) << mbits)
                };
                code | sign
            }
            _ => 0,
        }
    }

    /// Mantissa bits (without the implicit one) of a float type; used by Triton's promotion of
    /// float division operands.
    pub fn mantissa_bits(self) -> u32 {
        match self {
            DType::F8E4M3 => 3,
            DType::F8E5M2 => 2,
            DType::F16 => 10,
            DType::BF16 => 7,
            DType::F32 => 23,
            DType::F64 => 52,
            _ => 0,
        }
    }

    /// The integer type of the same width and the given signedness.
    pub fn int_of_width(bits: u32, signed: bool) -> Option<DType> {
        Some(match (bits, signed) {
            (1, _) => DType::I1,
            (8, true) => DType::I8,
            (16, true) => DType::I16,
            (32, true) => DType::I32,
            (64, true) => DType::I64,
            (8, false) => DType::U8,
            (16, false) => DType::U16,
            (32, false) => DType::U32,
            (64, false) => DType::U64,
            _ => return None,
        })
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.ir_name())
    }
}

/// What one element of a value is.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Elem {
    Scalar(DType),
    /// `!tt.ptr<T>`: a global-memory pointer to `T`.
    Ptr(DType),
}

impl Elem {
    pub fn dtype(&self) -> DType {
        match self {
            Elem::Scalar(d) | Elem::Ptr(d) => *d,
        }
    }

    pub fn is_ptr(&self) -> bool {
        matches!(self, Elem::Ptr(_))
    }
}

impl fmt::Display for Elem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Elem::Scalar(d) => write!(f, "{d}"),
            Elem::Ptr(d) => write!(f, "!tt.ptr<{d}>"),
        }
    }
}

/// The type of an SSA value.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    /// A scalar (`i32`, `!tt.ptr<f16>`).
    Scalar(Elem),
    /// A ranked tensor; every dimension is a power of two in kernels the frontend accepts.
    /// `encoding` is the TTGIR layout (absent in TTIR).
    Tensor { elem: Elem, shape: Vec<u32>, encoding: Option<Encoding> },
    /// `!tt.tensordesc<tensor<BxT>>`: a TMA-style tensor descriptor with its block shape.
    Desc { dtype: DType, block: Vec<u32> },
}

impl Type {
    pub fn scalar(d: DType) -> Type {
        Type::Scalar(Elem::Scalar(d))
    }

    pub fn ptr(d: DType) -> Type {
        Type::Scalar(Elem::Ptr(d))
    }

    /// A tensor of `elem` with `shape`; an empty shape gives the scalar type.
    pub fn tensor(elem: Elem, shape: &[u32]) -> Type {
        if shape.is_empty() {
            Type::Scalar(elem)
        } else {
            Type::Tensor { elem, shape: shape.to_vec(), encoding: None }
        }
    }

    /// The layout of a TTGIR tensor type.
    pub fn encoding(&self) -> Option<&Encoding> {
        match self {
            Type::Tensor { encoding, .. } => encoding.as_ref(),
            _ => None,
        }
    }

    /// The same type with another layout (no-op on scalars and descriptors).
    pub fn with_encoding(&self, e: Option<Encoding>) -> Type {
        match self {
            Type::Tensor { elem, shape, .. } => {
                Type::Tensor { elem: elem.clone(), shape: shape.clone(), encoding: e }
            }
            other => other.clone(),
        }
    }

    /// The element of a scalar or tensor type (`None` for descriptors).
    pub fn elem(&self) -> Option<&Elem> {
        match self {
            Type::Scalar(e) | Type::Tensor { elem: e, .. } => Some(e),
            Type::Desc { .. } => None,
        }
    }

    /// The scalar dtype: the element's dtype, the pointee for pointers, the descriptor's dtype.
    pub fn dtype(&self) -> DType {
        match self {
            Type::Scalar(e) | Type::Tensor { elem: e, .. } => e.dtype(),
            Type::Desc { dtype, .. } => *dtype,
        }
    }

    /// The shape; empty for scalars and descriptors.
    pub fn shape(&self) -> &[u32] {
        match self {
            Type::Tensor { shape, .. } => shape,
            _ => &[],
        }
    }

    pub fn is_tensor(&self) -> bool {
        matches!(self, Type::Tensor { .. })
    }

    pub fn is_ptr(&self) -> bool {
        matches!(self.elem(), Some(Elem::Ptr(_)))
    }

    pub fn is_desc(&self) -> bool {
        matches!(self, Type::Desc { .. })
    }

    /// Number of elements (1 for scalars), saturating at `u64::MAX` (the frontend refuses shapes
    /// over 2^20 elements, so only unverified input gets there).
    pub fn numel(&self) -> u64 {
        self.shape().iter().fold(1u64, |n, &d| n.saturating_mul(d as u64))
    }

    /// The same shape (and layout) with another element.
    pub fn with_elem(&self, elem: Elem) -> Type {
        Type::tensor(elem, self.shape()).with_encoding(self.encoding().cloned())
    }

    /// The same shape with scalar elements of `d`.
    pub fn with_dtype(&self, d: DType) -> Type {
        self.with_elem(Elem::Scalar(d))
    }

    /// The same element with another shape (and no layout: a layout is per shape).
    pub fn with_shape(&self, shape: &[u32]) -> Type {
        match self.elem() {
            Some(e) => Type::tensor(e.clone(), shape),
            None => self.clone(),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Scalar(e) => write!(f, "{e}"),
            Type::Tensor { elem, shape, encoding } => {
                f.write_str("tensor<")?;
                for d in shape {
                    write!(f, "{d}x")?;
                }
                write!(f, "{elem}")?;
                if let Some(e) = encoding {
                    write!(f, ", {e}")?;
                }
                f.write_str(">")
            }
            Type::Desc { dtype, block } => {
                f.write_str("!tt.tensordesc<tensor<")?;
                for d in block {
                    write!(f, "{d}x")?;
                }
                write!(f, "{dtype}>>")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DType;

    /// Codes from the OCP 8-bit float specification (e4m3fn and e5m2 tables).
    #[test]
    fn fp8_constants_encode_as_the_formats_say() {
        let e4m3 = |v: f64| DType::F8E4M3.small_float_bits(v);
        let e5m2 = |v: f64| DType::F8E5M2.small_float_bits(v);
        assert_eq!(e4m3(1.0), 0x38);
        assert_eq!(e4m3(-2.0), 0xc0);
        assert_eq!(e4m3(448.0), 0x7e);
        assert_eq!(e4m3(1e6), 0x7e, "saturates");
        assert_eq!(e4m3(2f64.powi(-9)), 0x01, "smallest subnormal");
        assert_eq!(e4m3(1.0625), 0x38, "ties to even");
        assert_eq!(e4m3(1.1875), 0x3a, "ties to even, upward");
        assert_eq!(e5m2(1.0), 0x3c);
        assert_eq!(e5m2(57344.0), 0x7b);
        assert_eq!(e5m2(2f64.powi(-16)), 0x01);
        assert_eq!(DType::F16.small_float_bits(1.0), 0x3c00);
        assert_eq!(DType::BF16.small_float_bits(1.0), 0x3f80);
    }
}
