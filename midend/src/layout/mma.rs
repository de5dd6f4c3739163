//! `#ttg.nvidia_mma` version 2: the accumulator layout of `mma.sync.m16n8k*` (Ampere and later).
//!
//! One warp computes a 16x8 tile; lane `l` holds the accumulator elements at rows `l / 4` and
//! `l / 4 + 8`, columns `2 * (l % 4)` and `2 * (l % 4) + 1` (PTX ISA, "Matrix fragments for
//! mma.m16n8k16"). Warps tile the CTA as `warps_per_cta = [wm, wn]` (warp id `w`: column block
//! `w % wn`, row block `w / wn`), and a tensor larger than the CTA tile repeats it in registers,
//! columns first. As a linear layout, with the register bits in exactly this order (the nvptx
//! backend relies on it to find the four accumulators of each instruction):
//!
//! - register: `[0, 1]` (the second column), `[8, 0]` (the row 8 below), then the column
//!   repetitions `[0, 8 wn 2^t]`, then the row repetitions `[16 wm 2^t, 0]`;
//! - lane: `[0, 2]`, `[0, 4]`, `[1, 0]`, `[2, 0]`, `[4, 0]`;
//! - warp: the column bits `[0, 8 * 2^t]` for `t < log2 wn`, then the row bits `[16 * 2^t, 0]`.
//!
//! A dot's result covers whole CTA tiles (`16 wm x 8 wn`; the accelerate-matmul pass only
//! chooses the layout then); tensors derived from it (a row reduction expanded back to
//! `[M, 1]`) may be smaller along a dim, which then gets zero bases.

use std::fmt;

use super::linear::{InDim, LayoutError, LinearLayout};

/// The parameters of an MMA v2 encoding.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Mma {
    /// Warps along (M, N).
    pub warps_per_cta: [u32; 2],
}

impl Mma {
    /// The CTA tile this encoding covers once: `[16 wm, 8 wn]`.
    pub fn cta_tile(&self) -> [u32; 2] {
        [16 * self.warps_per_cta[0], 8 * self.warps_per_cta[1]]
    }

    /// The linear layout on a 2-D tensor of `shape`. A dim smaller than the CTA tile (the
    /// `[128, 1]` result of `expand_dims` on a reduced MMA tensor, say) gets zero bases where the
    /// tile goes past it, so its lanes and warps hold copies, as with blocked layouts.
    pub fn to_linear(&self, shape: &[u32]) -> Result<LinearLayout, LayoutError> {
        if shape.len() != 2 {
            return Err(LayoutError::Mismatch(format!("an MMA v2 layout on a rank-{} tensor", shape.len())));
        }
        let [wm, wn] = self.warps_per_cta;
        let [tm, tn] = self.cta_tile();
        let fits = |size: u32, tile: u32| size < tile || size.is_multiple_of(tile);
        if !wm.is_power_of_two() || !wn.is_power_of_two() || !fits(shape[0], tm) || !fits(shape[1], tn) {
            return Err(LayoutError::Mismatch(format!(
                "an MMA v2 layout with warps {:?} (tile {tm}x{tn}) on a {}x{} tensor",
                self.warps_per_cta, shape[0], shape[1]
            )));
        }
        // A basis pointing past the tensor (along a dim smaller than the tile) is zero.
        let basis = |row: u32, col: u32| {
            vec![if row < shape[0] { row } else { 0 }, if col < shape[1] { col } else { 0 }]
        };
        let mut registers = vec![basis(0, 1), basis(8, 0)];
        let mut col = tn;
        while col < shape[1] {
            registers.push(vec![0, col]);
            col *= 2;
        }
        let mut row = tm;
        while row < shape[0] {
            registers.push(vec![row, 0]);
            row *= 2;
        }
        let lanes = vec![basis(0, 2), basis(0, 4), basis(1, 0), basis(2, 0), basis(4, 0)];
        let mut warps = Vec::new();
        for t in 0..wn.trailing_zeros() {
            warps.push(basis(0, 8 << t));
        }
        for t in 0..wm.trailing_zeros() {
            warps.push(basis(16 << t, 0));
        }
        LinearLayout::new(
            vec![
                (InDim::Register, registers),
                (InDim::Lane, lanes),
                (InDim::Warp, warps),
                (InDim::Block, vec![]),
            ],
            shape.to_vec(),
        )
    }

    /// Triton's `warpsPerTileV2`: double the warps along M while the per-warp share of M is at
    /// least that of N (and M has tiles left), else along N, until all `num_warps` are placed.
    pub fn choose_warps(shape: [u32; 2], num_warps: u32) -> [u32; 2] {
        let mut ret = [1u32, 1u32];
        while ret[0] * ret[1] < num_warps {
            let m_share = shape[0] / 16 / ret[0];
            let n_share = shape[1] / (8 * ret[1]);
            if m_share >= n_share && ret[0] < shape[0] / 16 {
                ret[0] *= 2;
            } else if ret[1] < shape[1] / 8 {
                ret[1] *= 2;
            } else {
                ret[0] *= 2;
            }
        }
        ret
    }
}

impl fmt::Display for Mma {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = [{}, {}], instrShape = [16, 8]}}>",
            self.warps_per_cta[0], self.warps_per_cta[1]
        )
    }
}
