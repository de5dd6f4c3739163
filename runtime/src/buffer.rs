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
    /// The largest grid CUDA launches, which Triton enforces on every backend: x below 2^31, y
    /// and z at most 65535.
    pub const LIMITS: [u32; 3] = [i32::MAX as u32, 65535, 65535];

    /// The number of programs (at most 2^63 within [`Grid::LIMITS`]; saturating beyond).
    pub fn programs(self) -> u64 {
        self.0.iter().fold(1u64, |n, &g| n.saturating_mul(g as u64))
    }

    /// `Err` with the limit when a dimension is beyond [`Grid::LIMITS`]. Every backend checks it
    /// before a launch (interp would otherwise run for hours over a mistyped grid).
    pub fn within_limits(self) -> Result<(), String> {
        for (axis, (&size, &limit)) in ["x", "y", "z"].iter().zip(self.0.iter().zip(&Grid::LIMITS)) {
            if size > limit {
                return Err(format!(
                    "grid ({}, {}, {}): {axis} = {size} is beyond CUDA's limit of {limit} (Triton enforces \
                     x < 2^31, y and z <= 65535 on every backend)",
                    self.0[0], self.0[1], self.0[2]
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Grid;

    #[test]
    fn grids_within_and_beyond_the_launch_limits() {
        assert!(Grid(Grid::LIMITS).within_limits().is_ok());
        assert_eq!(Grid(Grid::LIMITS).programs(), (i32::MAX as u64) * 65535 * 65535);
        let message = Grid([1, 1, 65536]).within_limits().unwrap_err();
        assert!(message.contains("z = 65536 is beyond CUDA's limit of 65535"), "{message}");
        assert_eq!(Grid([u32::MAX; 3]).programs(), u64::MAX, "saturates");
    }
}
