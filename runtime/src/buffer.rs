//! Host buffers: the memory a kernel's pointer arguments point into.
//!
//! A [`Buffer`] is raw little-endian bytes plus the element type the kernel sees. Typed storage
//! that numpy lacks travels as integer bits (bf16 as u16, fp8 as u8), so `storage` may differ
//! from `dtype`: a `.npy` of uint16 read as `:bf16` has `dtype = BF16` and `storage = U16`, and is
//! written back as uint16. Every device reads and writes these bytes; none of them interprets
//! `shape`, which only shapes the `.npy` written after the launch.

use trident_midend::ir::DType;

#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    /// The kernel parameter this buffer is bound to (also the output file name).
    pub name: String,
    /// The element type the kernel's pointer points to.
    pub dtype: DType,
    /// The element type of the `.npy` the buffer came from (written back the same way).
    pub storage: DType,
    /// The `.npy` shape, for writing the buffer back.
    pub shape: Vec<usize>,
    /// Raw little-endian element bytes.
    pub bytes: Vec<u8>,
}

impl Buffer {
    /// A zero-filled buffer of `len` elements of `dtype`.
    pub fn zeros(name: &str, dtype: DType, len: usize) -> Buffer {
        Buffer {
            name: name.to_string(),
            dtype,
            storage: dtype,
            shape: vec![len],
            bytes: vec![0; len * dtype.size_bytes()],
        }
    }

    /// Number of elements of the kernel's dtype.
    pub fn len(&self) -> usize {
        self.bytes.len() / self.dtype.size_bytes()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// One kernel argument as the launcher binds it, in the order of the compiled kernel's
/// parameters (`Function::arg_names`).
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    /// A pointer to the start of `buffers[i]`.
    Buffer(usize),
    /// An integer scalar (its IR type says how wide and whether signed).
    Int(i64),
    /// A float scalar.
    Float(f64),
}

/// Launch geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid(pub [u32; 3]);

impl Grid {
    pub fn programs(self) -> u64 {
        self.0.iter().map(|&g| g as u64).product()
    }
}
