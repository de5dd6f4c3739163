//! `#ttg.blocked`: Triton's workhorse register layout, as a constructor of [`LinearLayout`].
//!
//! A blocked layout tiles the tensor hierarchically: each thread owns a `size_per_thread` tile,
//! `threads_per_warp` lanes tile the warp, `warps_per_cta` warps tile the CTA, and `order` lists
//! the dims from fastest-varying to slowest. In linear-layout terms every level is an identity
//! along each dim, taken in `order`, so the bases are single powers of two:
//!
//! - register bases: the `size_per_thread` bits of each dim (fastest dim first), then, when the
//!   tensor is larger than the CTA tile, the *repeat* bits above the tile (fastest dim first);
//! - lane bases: the `threads_per_warp` bits of each dim, just above the register bits;
//! - warp bases: the `warps_per_cta` bits, above the lane bits.
//!
//! When the tensor is smaller than the tile along a dim, the bases whose coordinate would fall
//! outside the tensor become zero: those registers, lanes or warps hold copies (broadcast), which
//! is exactly Triton's replication rule. One CTA per program is assumed (`block = []`); CGA
//! layouts for clusters are not modelled yet.
//!
//! [`Blocked::default_for_shape`] is the shape-aware builder that TTIR -> TTGIR conversion and the
//! coalesce pass use: fill lanes, then warps, from the fastest dim up to `shape / size_per_thread`,
//! and give whatever is left over to the slowest dim.

use std::fmt;

use super::linear::{log2_exact, InDim, LayoutError, LinearLayout};

/// The parameters of `#ttg.blocked<{sizePerThread, threadsPerWarp, warpsPerCTA, order}>`.
///
/// Invariants (checked by [`Blocked::to_linear`]): all vectors have the tensor's rank, every
/// entry is a power of two, and `order` is a permutation of `0..rank`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Blocked {
    pub size_per_thread: Vec<u32>,
    pub threads_per_warp: Vec<u32>,
    pub warps_per_cta: Vec<u32>,
    /// Dims from fastest-varying (contiguous in a thread's registers) to slowest.
    pub order: Vec<u32>,
}

impl Blocked {
    /// Triton's default blocked encoding for a tensor shape: `order` is `[rank-1, ..., 0]`
    /// (row-major) and `size_per_thread` is all ones unless given.
    ///
    /// `threads_per_warp` is the hardware warp or subgroup size (32 on NVIDIA; 8 to 64 on Vulkan
    /// subgroups) and `num_warps` the warps per CTA; both must be powers of two, as must `shape`.
    pub fn default_for_shape(
        shape: &[u32],
        size_per_thread: Option<&[u32]>,
        threads_per_warp: u32,
        num_warps: u32,
    ) -> Blocked {
        let rank = shape.len();
        let order: Vec<u32> = (0..rank as u32).rev().collect();
        let size_per_thread = size_per_thread.map(<[u32]>::to_vec).unwrap_or_else(|| vec![1; rank]);
        Blocked::for_shape(shape, size_per_thread, order, threads_per_warp, num_warps)
    }

    /// The shape-aware builder with an explicit `order` and `size_per_thread` (what coalesce
    /// calls after picking the vector width): for each dim, fastest first, give it as many
    /// threads as it has `shape / size_per_thread` slots, lanes first, then warps; the slowest dim
    /// takes whatever lanes and warps remain, even if that means broadcast.
    pub fn for_shape(
        shape: &[u32],
        size_per_thread: Vec<u32>,
        order: Vec<u32>,
        threads_per_warp: u32,
        num_warps: u32,
    ) -> Blocked {
        let rank = shape.len();
        let mut lanes = vec![1; rank];
        let mut warps = vec![1; rank];
        let mut remaining_lanes = threads_per_warp;
        let mut remaining_warps = num_warps;
        let mut remaining_threads = threads_per_warp * num_warps;
        let mut used_lanes = 1;
        let mut used_warps = 1;
        for &dim in order.iter().take(rank.saturating_sub(1)) {
            let dim = dim as usize;
            let slots = (shape[dim] / size_per_thread[dim]).max(1);
            let threads = remaining_threads.clamp(1, slots);
            lanes[dim] = threads.clamp(1, remaining_lanes);
            warps[dim] = (threads / lanes[dim]).clamp(1, remaining_warps);
            remaining_lanes /= lanes[dim];
            remaining_warps /= warps[dim];
            remaining_threads /= threads;
            used_lanes *= lanes[dim];
            used_warps *= warps[dim];
        }
        // The slowest dim absorbs every lane and warp not yet placed, so the product of
        // `threads_per_warp` is always the warp size and that of `warps_per_cta` is `num_warps`.
        if let Some(&slowest) = order.last() {
            lanes[slowest as usize] = threads_per_warp / used_lanes;
            warps[slowest as usize] = num_warps / used_warps;
        }
        Blocked { size_per_thread, threads_per_warp: lanes, warps_per_cta: warps, order }
    }

    /// Rank of the layout.
    pub fn rank(&self) -> usize {
        self.order.len()
    }

    /// This layout with its dimensions permuted as `tt.trans` permutes a tensor's (result
    /// dimension `i` is dimension `order[i]`): every thread holds the same elements.
    pub fn permuted(&self, order: &[usize]) -> Blocked {
        let pick = |v: &[u32]| order.iter().map(|&d| v[d]).collect::<Vec<u32>>();
        // Dimension `d` is dimension `i` of the result where `order[i] == d`.
        let position = |d: u32| order.iter().position(|&o| o == d as usize).expect("a permutation") as u32;
        Blocked {
            size_per_thread: pick(&self.size_per_thread),
            threads_per_warp: pick(&self.threads_per_warp),
            warps_per_cta: pick(&self.warps_per_cta),
            order: self.order.iter().map(|&d| position(d)).collect(),
        }
    }

    /// Checks the invariants against a tensor shape.
    fn validate(&self, shape: &[u32]) -> Result<(), LayoutError> {
        let rank = shape.len();
        let lengths = [self.size_per_thread.len(), self.threads_per_warp.len(), self.warps_per_cta.len()];
        if lengths.iter().any(|&len| len != rank) || self.order.len() != rank {
            return Err(LayoutError::Mismatch(format!("blocked layout {self} used on a rank-{rank} tensor")));
        }
        let mut seen = vec![false; rank];
        for &dim in &self.order {
            if dim as usize >= rank || std::mem::replace(&mut seen[dim as usize], true) {
                return Err(LayoutError::Mismatch(format!("order {:?} is not a permutation", self.order)));
            }
        }
        let checks = [
            ("shape", shape),
            ("sizePerThread", &self.size_per_thread[..]),
            ("threadsPerWarp", &self.threads_per_warp[..]),
            ("warpsPerCTA", &self.warps_per_cta[..]),
        ];
        for (what, sizes) in checks {
            for &size in sizes {
                log2_exact(what, size)?;
            }
        }
        Ok(())
    }

    /// The linear layout of this encoding on a tensor of `shape`.
    pub fn to_linear(&self, shape: &[u32]) -> Result<LinearLayout, LayoutError> {
        self.validate(shape)?;
        let rank = shape.len();
        // `next_bit[d]` is the next coordinate bit of dim `d` to hand out; each level continues
        // where the previous one stopped, which is what makes the tiling hierarchical.
        let mut next_bit = vec![0u32; rank];
        // A basis along `dim` at coordinate bit `bit`, or the zero vector (broadcast) if that
        // bit lies outside the tensor.
        let basis = |dim: usize, bit: u32| {
            let mut vector = vec![0; rank];
            if 1u64 << bit < shape[dim] as u64 {
                vector[dim] = 1 << bit;
            }
            vector
        };
        let level = |sizes: &[u32], next_bit: &mut [u32]| {
            let mut bases = Vec::new();
            for &dim in &self.order {
                let dim = dim as usize;
                for _ in 0..sizes[dim].trailing_zeros() {
                    bases.push(basis(dim, next_bit[dim]));
                    next_bit[dim] += 1;
                }
            }
            bases
        };
        let mut registers = level(&self.size_per_thread, &mut next_bit);
        let lanes = level(&self.threads_per_warp, &mut next_bit);
        let warps = level(&self.warps_per_cta, &mut next_bit);
        // Tile repeats: the coordinate bits above the CTA tile go to registers, fastest dim
        // first, so a thread's second tile follows its first along the contiguous dim.
        for &dim in &self.order {
            let dim = dim as usize;
            while next_bit[dim] < shape[dim].trailing_zeros() {
                registers.push(basis(dim, next_bit[dim]));
                next_bit[dim] += 1;
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
}

impl fmt::Display for Blocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#ttg.blocked<{{sizePerThread = {:?}, threadsPerWarp = {:?}, warpsPerCTA = {:?}, order = {:?}}}>",
            self.size_per_thread, self.threads_per_warp, self.warps_per_cta, self.order
        )
    }
}
