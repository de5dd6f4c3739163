//! The specialization key of a launch: what decides which compiled kernel a launch runs.
//!
//! A kernel object keeps one loaded kernel per key ([`crate::kernel`]), so the key holds
//! everything the compilation depends on, and nothing more (more would compile again for no
//! reason, less would run a wrong kernel):
//! - the backend asked for (`auto` is resolved once, on the miss), `num_warps`, `num_stages`;
//! - per parameter: its constexpr value; or the argument's dtype, with Triton's specializations:
//!   a pointer's 16-byte alignment, and an integer's class (equal to 1, divisible by 16, other),
//!   or its value when the kernel's `@triton.autotune` key or `@triton.heuristics` may read it;
//!   where a pointer's data lies (host memory, copied; or a CUDA device, used in place).
//!
//! Floats are never specialized by value, as in Triton.

use smallvec::SmallVec;
use trident::ConstValue;
use trident_midend::ir::DType;

/// The key of one launch.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    pub backend: Backend,
    pub num_warps: u32,
    pub num_stages: u32,
    /// One entry per kernel parameter, in the kernel's order.
    pub args: PerParam<ArgKey>,
}

/// Kernels with up to this many parameters launch without a heap allocation for their lists
/// (key, values, arguments): a repeat launch's budget is a few microseconds.
pub const INLINE_PARAMS: usize = 12;

/// A list of one entry per kernel parameter.
pub type PerParam<T> = SmallVec<[T; INLINE_PARAMS]>;

/// The backend a launch asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    Auto,
    Nvptx,
    Spirv,
    Interp,
}

impl Backend {
    const ALL: [Backend; 4] = [Backend::Auto, Backend::Nvptx, Backend::Spirv, Backend::Interp];

    pub fn parse(name: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Nvptx => "nvptx",
            Backend::Spirv => "spirv",
            Backend::Interp => "interp",
        }
    }

    /// A nonzero code per backend (for an atomic), and back.
    pub fn code(self) -> u8 {
        Backend::ALL.iter().position(|&b| b == self).map_or(0, |i| i as u8 + 1)
    }

    pub fn from_code(code: u8) -> Option<Backend> {
        Backend::ALL.get(usize::from(code.checked_sub(1)?)).copied()
    }

    /// The command line's backend.
    pub fn cli(self) -> trident::cli::Backend {
        match self {
            Backend::Auto => trident::cli::Backend::Auto,
            Backend::Nvptx => trident::cli::Backend::Nvptx,
            Backend::Spirv => trident::cli::Backend::Spirv,
            Backend::Interp => trident::cli::Backend::Interp,
        }
    }
}

/// One parameter's part of the key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ArgKey {
    /// Not given: its default, the autotune configs or the heuristics give it.
    Missing,
    Const(ConstKey),
    Pointer {
        dtype: DType,
        aligned16: bool,
        place: Place,
    },
    Int {
        dtype: DType,
        class: IntClass,
    },
    /// An f32 scalar.
    Float,
    /// A host-side tensor descriptor: its base's key, whether its strides (but the last) are
    /// multiples of 16 elements, its block shape and padding.
    Descriptor {
        base: Box<ArgKey>,
        strides16: bool,
        block_shape: Vec<i64>,
        padding_nan: bool,
    },
}

/// Where a pointer argument's data lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// Host memory (numpy arrays, CPU tensors, anything with a buffer): copied to the device
    /// and back.
    Host,
    /// A CUDA device, by ordinal (a CUDA tensor): used in place on nvptx, copied elsewhere.
    Cuda(i64),
}

/// An integer argument's specialization class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntClass {
    /// Equal to 1: compiled as the constant 1.
    One,
    /// Divisible by 16 (`tt.divisibility = 16`).
    Divisible16,
    Other,
    /// The value itself, for kernels whose decorators read argument values.
    Exact(i64),
}

/// A constexpr value, hashable (floats by their bits).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstKey {
    Int(i64),
    Float(u64),
    Bool(bool),
    DType(DType),
    Str(String),
    None,
}

impl ConstKey {
    pub fn of(value: &ConstValue) -> ConstKey {
        match value {
            ConstValue::Int(v) => ConstKey::Int(*v),
            ConstValue::Float(v) => ConstKey::Float(v.to_bits()),
            ConstValue::Bool(v) => ConstKey::Bool(*v),
            ConstValue::DType(d) => ConstKey::DType(*d),
            ConstValue::Str(s) => ConstKey::Str(s.clone()),
            ConstValue::None => ConstKey::None,
        }
    }
}
