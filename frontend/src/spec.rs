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
