//! `#ttg.swizzled_shared`: the classic XOR-swizzled shared-memory layout.
//!
//! Shared memory has 32 banks of 4 bytes; threads of a warp that hit different addresses in the
//! same bank serialize. Storing a tile row-major makes a column access (which MMA operand loads
//! do) hit one bank over and over. The swizzle permutes the `vec`-element groups of each row by
//! XOR with a per-row *phase*: `phase(row) = (row / per_phase) % max_phase`, and element
//! `(row, col)` is stored at physical column `((col / vec) ^ phase(row)) * vec + col % vec`.
//! `vec`, `per_phase` and `max_phase` are powers of two, so this is linear over GF(2).
//!
//! As a linear layout, a shared encoding maps the `offset` input (the element offset inside the
//! buffer, `order[0]` fastest) to the logical tensor coordinate stored there. The map is a
//! bijection, so its inverse gives, for a coordinate, the offset a backend adds to the base
//! address; [`SwizzledShared::offset_of`] computes the same thing in closed form.
//!
//! Only the two fastest dims (`order[0]` columns, `order[1]` rows) are swizzled; slower dims are
//! stacked whole tiles, in `order`.

use std::fmt;

use super::linear::{log2_exact, InDim, LayoutError, LinearLayout};

/// The parameters of `#ttg.swizzled_shared<{vec, perPhase, maxPhase, order}>`.
///
/// `vec`, `per_phase` and `max_phase` are powers of two; `max_phase = 1` means no swizzle.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SwizzledShared {
    /// Elements moved together: the XOR permutes groups of `vec` consecutive columns.
    pub vec: u32,
    /// Consecutive rows sharing one phase (packs short rows so one phase spans all banks).
    pub per_phase: u32,
    /// Number of distinct phases before the pattern repeats.
    pub max_phase: u32,
    /// Dims from fastest (contiguous in memory) to slowest.
    pub order: Vec<u32>,
}

impl SwizzledShared {
    /// The unswizzled layout: plain strided storage in `order`.
    pub fn unswizzled(order: Vec<u32>) -> Self {
        SwizzledShared { vec: 1, per_phase: 1, max_phase: 1, order }
    }

    /// Triton's choice for an MMAv2 (`mma.sync`) operand staged in shared memory, as in its
    /// `SwizzledSharedEncodingAttr` builder for NVIDIA dot operands:
    ///
    /// - `K` is the tensor's extent along the contiguous dim `order[0]`;
    /// - `per_phase = max(1024 / (bits * K), 1)`: 1024 bits is one 128-byte row of all 32 banks,
    ///   so short rows are packed several per phase;
    /// - `vec = 4 * k_width` elements (the `ldmatrix` row width) and an MMA stride of 8 rows;
    ///   the two swap when the operand is transposed (`need_trans`) and again when the
    ///   contiguous dim is not the K dim (`rank-1` for A, `opIdx` 0; `rank-2` for B);
    /// - `max_phase = max(min(stride, 1024 / (vec * bits)) / per_phase, 1)`: enough phases that
    ///   the `vec` groups of one phase cover all banks, divided by the rows packed per phase.
    pub fn for_mma_v2_operand(
        op_idx: u32,
        k_width: u32,
        shape: &[u32],
        order: &[u32],
        bitwidth: u32,
        need_trans: bool,
    ) -> Self {
        let rank = order.len() as u32;
        let k = shape[order[0] as usize];
        let per_phase = (1024 / (bitwidth * k)).max(1);
        let mut mma_stride = 8;
        let mut vec = 4 * k_width;
        if need_trans {
            std::mem::swap(&mut vec, &mut mma_stride);
        }
        let k_dim = if op_idx == 0 { rank - 1 } else { rank - 2 };
        if order[0] != k_dim {
            std::mem::swap(&mut vec, &mut mma_stride);
        }
        let max_phase = mma_stride.min(1024 / (vec * bitwidth)).max(1);
        let max_phase = (max_phase / per_phase).max(1);
        SwizzledShared { vec, per_phase, max_phase, order: order.to_vec() }
    }

    fn validate(&self, shape: &[u32]) -> Result<(), LayoutError> {
        if self.order.len() != shape.len() {
            return Err(LayoutError::Mismatch(format!("{self} used on a rank-{} tensor", shape.len())));
        }
        log2_exact("vec", self.vec)?;
        log2_exact("perPhase", self.per_phase)?;
        log2_exact("maxPhase", self.max_phase)?;
        for &size in shape {
            log2_exact("shape", size)?;
        }
        Ok(())
    }

    /// The column XOR applied to row `row` of a tile with `num_cols` columns.
    fn column_xor(&self, row: u32, num_cols: u32) -> u32 {
        ((row / self.per_phase) % self.max_phase * self.vec) % num_cols
    }

    /// The map from element offset to logical coordinate, as a linear layout with one input
    /// dim, `offset`, plus an empty `block` dim (one CTA).
    pub fn to_linear(&self, shape: &[u32]) -> Result<LinearLayout, LayoutError> {
        self.validate(shape)?;
        let rank = shape.len();
        let unit = |dim: usize, value: u32| {
            let mut basis = vec![0; rank];
            basis[dim] = value;
            basis
        };
        let mut offset_bases = Vec::new();
        let col_dim = self.order[0] as usize;
        let num_cols = shape[col_dim];
        for bit in 0..num_cols.trailing_zeros() {
            offset_bases.push(unit(col_dim, 1 << bit));
        }
        if let Some(&row_dim) = self.order.get(1) {
            // A row bit moves one row down and shifts the column by that row's swizzle; since
            // the swizzle of a sum of rows is the XOR of their swizzles, this is one basis each.
            let row_dim = row_dim as usize;
            for bit in 0..shape[row_dim].trailing_zeros() {
                let mut basis = unit(row_dim, 1 << bit);
                basis[col_dim] = self.column_xor(1 << bit, num_cols);
                offset_bases.push(basis);
            }
        }
        for &dim in self.order.iter().skip(2) {
            for bit in 0..shape[dim as usize].trailing_zeros() {
                offset_bases.push(unit(dim as usize, 1 << bit));
            }
        }
        LinearLayout::new(vec![(InDim::Offset, offset_bases), (InDim::Block, vec![])], shape.to_vec())
    }

    /// The element offset where `coords` is stored, in closed form (the inverse of
    /// [`Self::to_linear`]); a backend emits this arithmetic for swizzled addresses.
    pub fn offset_of(&self, shape: &[u32], coords: &[u32]) -> u32 {
        let mut physical = coords.to_vec();
        if let [col_dim, row_dim, ..] = self.order[..] {
            let (col_dim, row_dim) = (col_dim as usize, row_dim as usize);
            physical[col_dim] ^= self.column_xor(coords[row_dim], shape[col_dim]);
        }
        let mut offset = 0;
        let mut stride = 1;
        for &dim in &self.order {
            offset += physical[dim as usize] * stride;
            stride *= shape[dim as usize];
        }
        offset
    }
}

impl fmt::Display for SwizzledShared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#ttg.swizzled_shared<{{vec = {}, perPhase = {}, maxPhase = {}, order = {:?}}}>",
            self.vec, self.per_phase, self.max_phase, self.order
        )
    }
}
