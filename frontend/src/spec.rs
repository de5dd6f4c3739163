//! What one launch fixes at compile time: constexpr values and argument types.
//!
//! Like Triton, trident specializes each kernel per launch: constexpr parameters by value,
//! pointer arguments by element type and 16-byte alignment, integer arguments by type, by
//! divisibility by 16 and by being equal to 1 (an argument equal to 1 becomes a constant and
//! leaves the signature). The specialization is part of the cache key.

use trident_midend::ir::DType;

/// A runtime argument as the specializer sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgSpec {
    /// A buffer; `dtype` is the pointee type, `aligned16` whether its address is 16-byte aligned.
    Pointer { dtype: DType, aligned16: bool },
    /// An integer scalar with its value (the value drives the ==1 and %16 specializations).
    Int { value: i64, dtype: DType },
    /// A float scalar (never specialized by value).
    Float { value: f64, dtype: DType },
    /// A host-side tensor descriptor (Triton's `TensorDescriptor`): specialized on its element
    /// type, its base's 16-byte alignment, whether every stride but the last is a multiple of 16
    /// elements (as integer arguments are: TMA needs 16-byte strides), its block shape and its
    /// padding (`nan`, else zeros). The kernel takes it as [`descriptor_fields`]: the base
    /// pointer, the shape and the strides but the last (which must be 1), and makes the
    /// descriptor from them on entry.
    TensorDesc { dtype: DType, aligned16: bool, strides16: bool, block_shape: Vec<i64>, padding_nan: bool },
}

/// One compiled parameter of a descriptor argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescriptorField {
    Base,
    Shape(usize),
    /// The stride of dimension `i` (every dimension but the last, whose stride is 1).
    Stride(usize),
}

impl DescriptorField {
    /// This field's value in a descriptor of `shape` and `strides` (`None` for the base, which is
    /// a pointer, and for a dimension the descriptor does not have).
    pub fn value(self, shape: &[i64], strides: &[i64]) -> Option<i64> {
        match self {
            DescriptorField::Base => None,
            DescriptorField::Shape(i) => shape.get(i).copied(),
            DescriptorField::Stride(i) => strides.get(i).copied(),
        }
    }
}

/// The compiled parameters of the descriptor argument `param` of rank `rank`, with their names:
/// `param` (the base pointer), `param.shape0`..., `param.stride0`... .
pub fn descriptor_fields(param: &str, rank: usize) -> Vec<(String, DescriptorField)> {
    let mut fields = vec![(param.to_string(), DescriptorField::Base)];
    fields.extend((0..rank).map(|i| (format!("{param}.shape{i}"), DescriptorField::Shape(i))));
    fields.extend(
        (0..rank.saturating_sub(1)).map(|i| (format!("{param}.stride{i}"), DescriptorField::Stride(i))),
    );
    fields
}

/// The argument a compiled parameter named `name` comes from, and which part of it: a field of a
/// descriptor argument ([`descriptor_fields`]), else the argument `name` itself (`Base`: a
/// descriptor's base is named as its argument, and so is every other parameter).
pub fn descriptor_field(name: &str) -> (&str, DescriptorField) {
    let Some((param, field)) = name.rsplit_once('.') else { return (name, DescriptorField::Base) };
    let index = |prefix: &str| field.strip_prefix(prefix)?.parse::<usize>().ok();
    match (index("shape"), index("stride")) {
        (Some(i), _) => (param, DescriptorField::Shape(i)),
        (_, Some(i)) => (param, DescriptorField::Stride(i)),
        _ => (name, DescriptorField::Base),
    }
}

/// A constexpr value given on the command line or through the API.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    DType(DType),
    Str(String),
    None,
}

/// Everything one compilation is specialized on.
#[derive(Clone, Debug, PartialEq)]
pub struct Specialization {
    /// Runtime arguments by parameter name.
    pub args: Vec<(String, ArgSpec)>,
    /// Constexpr arguments by parameter name.
    pub constexprs: Vec<(String, ConstValue)>,
    pub num_warps: u32,
    pub num_stages: u32,
}

impl Default for Specialization {
    fn default() -> Self {
        Specialization { args: Vec::new(), constexprs: Vec::new(), num_warps: 4, num_stages: 3 }
    }
}
