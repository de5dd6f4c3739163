//! `#ttg.nvmma_shared`: the swizzled shared-memory tiles that Hopper's `wgmma` (and TMA) read.
//!
//! `wgmma` reads its shared-memory operands through a 64-bit matrix descriptor that names one of
//! a few canonical layouts, and the hardware applies the swizzle to the *absolute* shared
//! address. A tile of `rows x cols` elements (`cols` the contiguous dim, `elem_bytes` each) with
//! a swizzle width of `S` bytes (32, 64 or 128) is stored as:
//!
//! - column blocks of `S / elem_bytes` columns (one *swizzle row* of `S` bytes each), block `j`
//!   at byte `j * rows * S`;
//! - inside a block, row `r` at `r * S`, cut into 16-byte chunks;
//! - chunk `c` of row `r` stored at chunk `c ^ phase(r)`, with
//!   `phase(r) = (r / (128 / S)) % (S / 16)`: the rows of one 1024-byte (for 128 B; 512 and 256
//!   bytes for the others) atom each put their chunks in a different order, so that 8 rows read
//!   at one column hit 8 different bank groups.
//!
//! This is the CUTLASS `Swizzle<log2(S/16), 4, 3>` pattern: bits 4.. of the byte address XORed
//! with bits 7.. . It matches the hardware only where the tile starts on an atom boundary, so
//! rings holding such tiles are aligned to 1024 bytes. `S` is, as in Triton's
//! `NVMMASharedEncodingAttr`, the largest of 128, 64, 32 dividing the byte length of a row.
//!
//! Every size is a power of two and the pieces of the offset occupy disjoint bits, so the map
//! from `(row, col)` to byte offset is linear over GF(2) ([`NvmmaShared::to_linear`] is its
//! inverse, from element offset to coordinate): a backend computes a thread's part once and
//! XORs in each register's constant part.

use std::fmt;

use super::linear::{log2_exact, InDim, LayoutError, LinearLayout};

/// The parameters of `#ttg.nvmma_shared<{swizzlingByteWidth, transposed, elementBitWidth}>` for
/// a 2-D tile stored with its second dim contiguous (`transposed = false`; a tile stored the
/// other way round is described on its transpose).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvmmaShared {
    /// 32, 64 or 128.
    pub swizzle_bytes: u32,
    /// 2 for f16 / bf16, 1 for fp8, 4 for tf32.
    pub elem_bytes: u32,
}

impl NvmmaShared {
    /// Triton's choice for a tile whose rows hold `cols` elements of `elem_bytes`: the widest
    /// swizzle dividing the row's bytes; `None` for rows under 32 bytes (the unswizzled
    /// interleaved layout, which trident does not use).
    pub fn for_row(cols: u32, elem_bytes: u32) -> Option<NvmmaShared> {
        let row_bytes = cols * elem_bytes;
        [128, 64, 32]
            .into_iter()
            .find(|&s| row_bytes.is_multiple_of(s))
            .map(|swizzle_bytes| NvmmaShared { swizzle_bytes, elem_bytes })
    }

    /// Columns per swizzle row (one column block).
    pub fn block_cols(&self) -> u32 {
        self.swizzle_bytes / self.elem_bytes
    }

    /// The shared-memory atom the swizzle repeats over: 8 rows of `swizzle_bytes`. Tiles must
    /// start on a multiple of it.
    pub fn atom_bytes(&self) -> u32 {
        8 * self.swizzle_bytes
    }

    /// The chunk XOR of row `row`: `(row / (128 / S)) % (S / 16)`.
    fn phase(&self, row: u32) -> u32 {
        let s = self.swizzle_bytes;
        (row / (128 / s)) % (s / 16)
    }

    /// The byte offset of element `(row, col)` in a tile of `shape = [rows, cols]`.
    pub fn byte_offset(&self, shape: [u32; 2], row: u32, col: u32) -> u32 {
        let s = self.swizzle_bytes;
        let block = col / self.block_cols();
        let in_row = (col % self.block_cols()) * self.elem_bytes;
        let chunk = (in_row / 16) ^ self.phase(row);
        block * shape[0] * s + row * s + chunk * 16 + in_row % 16
    }

    /// The tile's size in bytes.
    pub fn tile_bytes(&self, shape: [u32; 2]) -> u32 {
        shape[0] * shape[1] * self.elem_bytes
    }

    /// The map from element offset to `(row, col)`, as a linear layout with one `offset` input
    /// (plus an empty `block`), like [`super::SwizzledShared::to_linear`]. The offset's bits are,
    /// from the lowest: the columns of one swizzle row (row 0 has phase 0, so they are the
    /// columns themselves), the rows (a row bit lands on chunk 0 of that row, which holds the
    /// logical chunk `phase(row)`), then the column blocks.
    pub fn to_linear(&self, shape: [u32; 2]) -> Result<LinearLayout, LayoutError> {
        log2_exact("rows", shape[0])?;
        log2_exact("cols", shape[1])?;
        log2_exact("swizzlingByteWidth", self.swizzle_bytes)?;
        let block_cols = self.block_cols();
        if !shape[1].is_multiple_of(block_cols) || shape[0] < 8 {
            return Err(LayoutError::Mismatch(format!("{self} on a {}x{} tile", shape[0], shape[1])));
        }
        let chunk_cols = 16 / self.elem_bytes;
        let mut bases = Vec::new();
        for bit in 0..block_cols.trailing_zeros() {
            bases.push(vec![0, 1 << bit]);
        }
        for bit in 0..shape[0].trailing_zeros() {
            let row = 1 << bit;
            bases.push(vec![row, self.phase(row) * chunk_cols]);
        }
        for bit in 0..(shape[1] / block_cols).trailing_zeros() {
            bases.push(vec![0, block_cols << bit]);
        }
        LinearLayout::new(vec![(InDim::Offset, bases), (InDim::Block, vec![])], shape.to_vec())
    }
}

impl fmt::Display for NvmmaShared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#ttg.nvmma_shared<{{swizzlingByteWidth = {}, transposed = false, elementBitWidth = {}}}>",
            self.swizzle_bytes,
            8 * self.elem_bytes
        )
    }
}

#[cfg(test)]
mod tests {
    use super::NvmmaShared;

    /// Every element of the tile gets its own 16-byte-chunk-preserving slot, inside the tile.
    #[test]
    fn offsets_are_a_bijection_that_keeps_chunks_whole() {
        for (rows, cols, elem_bytes) in
            [(128u32, 64u32, 2u32), (64, 256, 2), (64, 32, 2), (32, 16, 2), (64, 128, 1)]
        {
            let layout = NvmmaShared::for_row(cols, elem_bytes).unwrap();
            let mut seen = std::collections::HashSet::new();
            for r in 0..rows {
                for c in 0..cols {
                    let o = layout.byte_offset([rows, cols], r, c);
                    assert!(o < layout.tile_bytes([rows, cols]));
                    assert!(seen.insert(o), "{rows}x{cols}: ({r}, {c}) collides");
                    // The 16 bytes of one chunk stay together and in order.
                    let first = c - c % (16 / elem_bytes);
                    assert_eq!(o, layout.byte_offset([rows, cols], r, first) + (c - first) * elem_bytes);
                }
            }
        }
    }

    /// The 128-byte swizzle: row 1 swaps chunks 0 and 1, row 7 reverses them; columns past 64
    /// halves go to the next block.
    #[test]
    fn swizzle_128_matches_the_hardware_pattern() {
        let l = NvmmaShared::for_row(64, 2).unwrap();
        assert_eq!(l.swizzle_bytes, 128);
        assert_eq!(l.byte_offset([128, 64], 1, 0), 128 + 16);
        assert_eq!(l.byte_offset([128, 64], 1, 8), 128);
        assert_eq!(l.byte_offset([128, 64], 7, 0), 7 * 128 + 7 * 16);
        assert_eq!(l.byte_offset([128, 64], 8, 0), 8 * 128);
        let wide = NvmmaShared::for_row(256, 2).unwrap();
        assert_eq!(wide.byte_offset([64, 256], 0, 64), 64 * 128);
        // The CUTLASS form: the byte address XORed with its bits 7..9 moved to 4..6.
        for r in 0..64 {
            for c in (0..64).step_by(8) {
                let plain = r * 128 + c * 2;
                assert_eq!(l.byte_offset([64, 64], r, c), plain ^ ((plain >> 7) & 7) << 4);
            }
        }
        let l64 = NvmmaShared::for_row(32, 2).unwrap();
        assert_eq!(l64.swizzle_bytes, 64);
        for r in 0..64 {
            for c in (0..32).step_by(8) {
                let plain = r * 64 + c * 2;
                assert_eq!(l64.byte_offset([64, 32], r, c), plain ^ ((plain >> 7) & 3) << 4);
            }
        }
    }

    #[test]
    fn linear_layout_inverts_the_offsets() {
        for (rows, cols) in [(128u32, 64u32), (64, 256), (64, 32), (16, 16)] {
            let layout = NvmmaShared::for_row(cols, 2).unwrap();
            let linear = layout.to_linear([rows, cols]).unwrap();
            for r in 0..rows {
                for c in 0..cols {
                    let offset = layout.byte_offset([rows, cols], r, c) / 2;
                    let back = linear.apply(&[(super::InDim::Offset, offset), (super::InDim::Block, 0)]);
                    assert_eq!(back, vec![r, c], "{rows}x{cols}");
                }
            }
        }
    }
}
