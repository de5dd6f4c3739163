//! `#ttg.nvidia_mma`: the accumulator layouts of the tensor cores, version 2 (`mma.sync.m16n8k*`,
//! Ampere and later) and version 3 (`wgmma.mma_async.m64nNk*`, Hopper).
//!
//! # Version 2
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
//!
//! # Version 3
//!
//! A warpgroup (4 consecutive warps, the first a multiple of 4) computes a `64 x N` tile with
//! one `wgmma.mma_async.m64nNk{16,8,32}`; warp `w % 4` of the group holds rows `16 (w % 4) ..
//! 16 (w % 4) + 15`, and within a warp the fragment is the version-2 one repeated along N:
//! register `i` of lane `l` holds row `l / 4 + 8 ((i / 2) % 2)`, column `8 (i / 4) + 2 (l % 4) +
//! i % 2` (PTX ISA, "Register fragments for wgmma .m64nNk16"). So the version-3 layout is:
//!
//! - register: `[0, 1]`, `[8, 0]`, then `[0, 8 * 2^t]` up to the instruction's N, then the
//!   column repetitions `[0, N wn 2^t]`, then the row repetitions `[16 wm 2^t, 0]`;
//! - lane: as version 2;
//! - warp: `[16, 0]`, `[32, 0]` (inside the warpgroup), then the warpgroups along M
//!   `[64 * 2^t, 0]` for `t < log2(wm / 4)`, then along N `[0, N * 2^t]`.
//!
//! `instrShape = [16, N, K]` as Triton prints it: `N` from 8 to 256, `K` the instruction's K (16
//! for 16-bit inputs). With one warpgroup along M and `N` the tile's width this equals the
//! version-2 layout with warps `[wm, 1]`, which is why the epilogue code of both is shared.

use std::fmt;

use super::linear::{InDim, LayoutError, LinearLayout};

/// Which tensor-core instruction family an MMA encoding is the accumulator of.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum MmaVersion {
    /// `mma.sync.m16n8k*`: one warp per 16x8 tile.
    V2,
    /// `wgmma.mma_async.m64nNkK`: one warpgroup per `64 x instr_n` tile, `instr_k` per step.
    V3 { instr_n: u32, instr_k: u32 },
}

/// The parameters of an MMA encoding.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Mma {
    /// Warps along (M, N). Version 3 puts a multiple of 4 along M.
    pub warps_per_cta: [u32; 2],
    pub version: MmaVersion,
}

impl Mma {
    /// A version-2 encoding with these warps.
    pub fn v2(warps_per_cta: [u32; 2]) -> Mma {
        Mma { warps_per_cta, version: MmaVersion::V2 }
    }

    /// The per-warp tile `[16, n]`: `n` is 8 for version 2, the instruction's N for version 3.
    fn warp_tile_n(&self) -> u32 {
        match self.version {
            MmaVersion::V2 => 8,
            MmaVersion::V3 { instr_n, .. } => instr_n,
        }
    }

    /// The CTA tile this encoding covers once: `[16 wm, n wn]` (`n` of [`Self::warp_tile_n`]).
    pub fn cta_tile(&self) -> [u32; 2] {
        [16 * self.warps_per_cta[0], self.warp_tile_n() * self.warps_per_cta[1]]
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
        let v3 = matches!(self.version, MmaVersion::V3 { .. });
        let shape_ok = wm.is_power_of_two()
            && wn.is_power_of_two()
            && self.warp_tile_n().is_power_of_two()
            && (!v3 || wm >= 4);
        if !shape_ok || !fits(shape[0], tm) || !fits(shape[1], tn) {
            return Err(LayoutError::Mismatch(format!(
                "{self} (tile {tm}x{tn}) on a {}x{} tensor",
                shape[0], shape[1]
            )));
        }
        // A basis pointing past the tensor (along a dim smaller than the tile) is zero.
        let basis = |row: u32, col: u32| {
            vec![if row < shape[0] { row } else { 0 }, if col < shape[1] { col } else { 0 }]
        };
        let mut registers = vec![basis(0, 1), basis(8, 0)];
        // Version 3: the 8-column blocks of one instruction's N.
        let mut col = 8;
        while col < self.warp_tile_n() {
            registers.push(basis(0, col));
            col *= 2;
        }
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
        if v3 {
            // Rows inside the warpgroup and warpgroups along M first, then along N.
            for t in 0..wm.trailing_zeros() {
                warps.push(basis(16 << t, 0));
            }
            for t in 0..wn.trailing_zeros() {
                warps.push(basis(0, self.warp_tile_n() << t));
            }
        } else {
            for t in 0..wn.trailing_zeros() {
                warps.push(basis(0, 8 << t));
            }
            for t in 0..wm.trailing_zeros() {
                warps.push(basis(16 << t, 0));
            }
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

    /// The layout in which a warpgroup MMA reads its A operand (an `[M, k]` tile of 16-bit
    /// elements) from registers: the accumulator layout of an `m64nkk16` instruction with this
    /// encoding's warps along M. The PTX ISA's A fragment ("Register fragments for wgmma
    /// .m64nNk16": per 16-column K step, `a0..a7` of lane `l` at row `l / 4 + 8 ((i / 2) % 2)`,
    /// column `8 (i / 4) + 2 (l % 4) + i % 2`) is that accumulator's fragment for 16 columns, so
    /// attention's `P`, computed in the layout of the `QK^T` accumulator, feeds the next dot
    /// without moving. `None` unless `k` is a power of two from 16 to 256 and every warp lies
    /// along M.
    pub fn v3_register_operand(&self, k: u32) -> Option<Mma> {
        let MmaVersion::V3 { instr_k, .. } = self.version else { return None };
        let fits = self.warps_per_cta[1] == 1 && k.is_power_of_two() && (16..=256).contains(&k);
        fits.then_some(Mma {
            warps_per_cta: self.warps_per_cta,
            version: MmaVersion::V3 { instr_n: k, instr_k },
        })
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

impl Mma {
    /// Triton's `mmaVersionToInstrShape` for version 3: the largest N (a multiple of 8 up to
    /// 256) dividing the tile's N and at most its share per warp column (`numWarps / mWarps`,
    /// with `mWarps = M / 16`); `None` when no N fits. Only powers of two are taken, since the
    /// layout's N bits are GF(2) bases.
    pub fn v3_instr_n(shape: [u32; 2], num_warps: u32) -> Option<u32> {
        let m_warps = (shape[0] / 16).max(1);
        let n_warps = (num_warps / m_warps).max(1);
        let max_n = (shape[1] / n_warps).max(8);
        [256, 128, 64, 32, 16, 8].into_iter().find(|&n| shape[1].is_multiple_of(n) && n <= max_n)
    }

    /// Triton's `warpsPerTileV3`: start from one warpgroup along M, then double the warps along
    /// M while M has rows left for them, else along N.
    pub fn choose_warps_v3(shape: [u32; 2], num_warps: u32) -> [u32; 2] {
        let mut ret = [4u32, 1u32];
        while ret[0] * ret[1] < num_warps {
            if shape[0] > 16 * ret[0] {
                ret[0] *= 2;
            } else {
                ret[1] *= 2;
            }
        }
        ret
    }
}

impl fmt::Display for Mma {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [wm, wn] = self.warps_per_cta;
        match self.version {
            MmaVersion::V2 => write!(
                f,
                "#ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = [{wm}, {wn}], instrShape = [16, 8]}}>"
            ),
            MmaVersion::V3 { instr_n, instr_k } => write!(
                f,
                "#ttg.nvidia_mma<{{versionMajor = 3, versionMinor = 0, warpsPerCTA = [{wm}, {wn}], instrShape = [16, {instr_n}, {instr_k}]}}>"
            ),
        }
    }
}
