//! Tensors in registers: which elements a thread holds, and how values move between layouts.
//!
//! A tensor value lowers to one virtual register per register index of its linear layout; thread
//! `(lane, warp)` holds, in register `i`, the element at coordinate `C_reg(i) ⊕ C_thread`, where
//! `C_reg(i)` is a compile-time constant (the XOR of register bases) and `C_thread` the XOR of the
//! lane and warp bases selected by the thread's id bits, computed once in the prologue. For
//! blocked and slice layouts the register bits and the thread bits of a coordinate never
//! overlap, so the XOR is a sum: an affine function of the coordinate (a shared-memory address)
//! is a per-layout runtime base plus a per-register constant. [`LayoutInfo::additive`] records
//! that property; the emitter refuses layouts without it.
//!
//! Moving a value to another layout (or another shape: broadcast, expand_dims, reshape, trans,
//! reductions) is either a pure register renaming, when every destination register's element
//! sits in the same thread's source registers ([`register_map`]), or a round trip through shared
//! memory: every thread writes its elements at an affine index, a barrier, every thread reads the
//! elements it needs.

use trident_midend::layout::{InDim, LinearLayout};

/// A layout specialized to one shape, with what the emitter needs precomputed.
#[derive(Debug)]
pub struct LayoutInfo {
    pub shape: Vec<u32>,
    pub linear: LinearLayout,
    /// The constant coordinate of each register index.
    pub reg_coords: Vec<Vec<u32>>,
    pub lane_bases: Vec<Vec<u32>>,
    pub warp_bases: Vec<Vec<u32>>,
    /// Thread and register bits never overlap within a dim (coordinates are sums).
    pub additive: bool,
}

impl LayoutInfo {
    pub fn new(linear: LinearLayout) -> LayoutInfo {
        let shape = linear.out_shape().to_vec();
        let rank = shape.len();
        let reg_bases = linear.bases(InDim::Register).to_vec();
        let lane_bases = linear.bases(InDim::Lane).to_vec();
        let warp_bases = linear.bases(InDim::Warp).to_vec();
        let n = 1usize << reg_bases.len();
        let mut reg_coords = Vec::with_capacity(n);
        for i in 0..n {
            let mut c = vec![0u32; rank];
            for (b, basis) in reg_bases.iter().enumerate() {
                if i >> b & 1 == 1 {
                    for d in 0..rank {
                        c[d] ^= basis[d];
                    }
                }
            }
            reg_coords.push(c);
        }
        let mut additive = true;
        for d in 0..rank {
            let reg_bits = reg_bases.iter().fold(0u32, |a, v| a | v[d]);
            let mut thread_bits = 0u32;
            for v in lane_bases.iter().chain(&warp_bases) {
                if thread_bits & v[d] != 0 {
                    additive = false;
                }
                thread_bits |= v[d];
            }
            if reg_bits & thread_bits != 0 {
                additive = false;
            }
        }
        LayoutInfo { shape, linear, reg_coords, lane_bases, warp_bases, additive }
    }

    pub fn num_regs(&self) -> usize {
        self.reg_coords.len()
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Lane and warp bits whose bases are zero or repeat: those threads hold copies.
    pub fn replica_masks(&self) -> (u32, u32) {
        let mut lane = 0;
        let mut warp = 0;
        for (dim, mask) in self.linear.free_variable_masks() {
            match dim {
                InDim::Lane => lane |= mask,
                InDim::Warp => warp |= mask,
                _ => {}
            }
        }
        (lane, warp)
    }

    /// Register indices that hold the first copy of their element (later registers with the same
    /// constant coordinate are duplicates).
    pub fn unique_registers(&self) -> Vec<bool> {
        let mut seen = std::collections::HashSet::new();
        self.reg_coords.iter().map(|c| seen.insert(c.clone())).collect()
    }
}

pub fn row_major_strides(shape: &[u32]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1] as i64;
    }
    strides
}

/// An affine function of a coordinate: `Σ coeffs[d] * c[d] + offset`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Affine {
    pub coeffs: Vec<i64>,
    pub offset: i64,
}

impl Affine {
    pub fn row_major(shape: &[u32]) -> Affine {
        Affine { coeffs: row_major_strides(shape), offset: 0 }
    }

    pub fn eval(&self, c: &[u32]) -> i64 {
        self.coeffs.iter().zip(c).map(|(k, &x)| k * x as i64).sum::<i64>() + self.offset
    }
}

/// For every register of `dst`, the register of `src` in the same thread holding the element
/// `map(dst coordinate)`; `None` when some element lives in another thread. `map` must be linear
/// over GF(2) (a projection, a permutation, zeroing a dim, inserting a zero dim).
pub fn register_map(
    dst: &LayoutInfo,
    src: &LayoutInfo,
    map: &dyn Fn(&[u32]) -> Vec<u32>,
) -> Option<Vec<usize>> {
    let same_threads = |d: &[Vec<u32>], s: &[Vec<u32>]| {
        let n = d.len().max(s.len());
        (0..n).all(|b| {
            let mapped = d.get(b).map(|v| map(v)).unwrap_or_else(|| vec![0; src.rank()]);
            let expected = s.get(b).cloned().unwrap_or_else(|| vec![0; src.rank()]);
            mapped == expected
        })
    };
    if !same_threads(&dst.lane_bases, &src.lane_bases) || !same_threads(&dst.warp_bases, &src.warp_bases) {
        return None;
    }
    let mut out = Vec::with_capacity(dst.num_regs());
    for c in &dst.reg_coords {
        let want = map(c);
        out.push(src.reg_coords.iter().position(|s| *s == want)?);
    }
    Some(out)
}

/// The widest shared-memory access, in bytes (`ld/st.shared.v4.b32`).
pub const MAX_VECTOR_BYTES: i64 = 16;

/// A power of two that always divides `smem + f(thread coordinate) * elem_bytes`, capped at
/// [`MAX_VECTOR_BYTES`]: the alignment of the runtime part of a shared-memory address (the
/// per-register part is a known constant).
///
/// The `smem` array is declared `.align 16`. A thread's coordinate along dim `d` is the XOR of
/// some of the lane and warp basis values of `d`; every such value is a multiple of the lowest
/// set bit of their OR, and so is any XOR of them. So `coeffs[d] * coordinate[d]` is a multiple
/// of `coeffs[d] * lowbit(OR of the bases of d)`, and the sum of those terms a multiple of their
/// gcd. Dims no thread basis touches contribute nothing (the coordinate is 0 there).
pub fn base_alignment(l: &LayoutInfo, f: &Affine, elem_bytes: i64) -> i64 {
    let mut align = MAX_VECTOR_BYTES;
    for (d, &k) in f.coeffs.iter().enumerate() {
        let thread_bits = l.lane_bases.iter().chain(&l.warp_bases).fold(0u32, |a, v| a | v[d]);
        if k == 0 || thread_bits == 0 {
            continue;
        }
        let lowbit = (thread_bits & thread_bits.wrapping_neg()) as i64;
        align = gcd(align, (k * lowbit * elem_bytes).abs());
    }
    align
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Groups the byte offsets one thread accesses (relative to a base aligned to `align` bytes) into
/// vector accesses: returns `(first offset, elements)` runs covering every offset once, where a
/// run of `w > 1` elements is `w` consecutive elements of `elem_bytes` each, `w * elem_bytes` is a
/// power of two of at most [`MAX_VECTOR_BYTES`] dividing both `align` and the first offset (what
/// `ld/st.shared.vN` require). Runs are returned in increasing offset order; an offset that
/// starts no aligned run is accessed alone.
pub fn vector_runs(offsets: &[i64], elem_bytes: i64, align: i64) -> Vec<(i64, usize)> {
    let present: std::collections::HashSet<i64> = offsets.iter().copied().collect();
    let mut sorted: Vec<i64> = present.iter().copied().collect();
    sorted.sort_unstable();
    let mut taken = std::collections::HashSet::new();
    let mut runs = Vec::new();
    for &off in &sorted {
        if taken.contains(&off) {
            continue;
        }
        let mut width = (MAX_VECTOR_BYTES / elem_bytes).max(1) as usize;
        while width > 1 {
            let vb = width as i64 * elem_bytes;
            let fits = align % vb == 0
                && off.rem_euclid(vb) == 0
                && (0..width as i64).all(|j| {
                    let o = off + j * elem_bytes;
                    present.contains(&o) && !taken.contains(&o)
                });
            if fits {
                break;
            }
            width /= 2;
        }
        for j in 0..width as i64 {
            taken.insert(off + j * elem_bytes);
        }
        runs.push((off, width));
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::vector_runs;

    #[test]
    fn vector_runs_need_alignment_and_consecutive_offsets() {
        // 8 halves from byte 32 on a 16-byte aligned base: one 16-byte access.
        let halves: Vec<i64> = (0..8).map(|j| 32 + 2 * j).collect();
        assert_eq!(vector_runs(&halves, 2, 16), vec![(32, 8)]);
        // The same from byte 36: 4-byte pair, 8-byte quad, 4-byte pair.
        let shifted: Vec<i64> = (0..8).map(|j| 36 + 2 * j).collect();
        assert_eq!(vector_runs(&shifted, 2, 16), vec![(36, 2), (40, 4), (48, 2)]);
        // A base only known to be 4-byte aligned caps the width at 4 bytes.
        assert_eq!(vector_runs(&halves, 2, 4), vec![(32, 2), (36, 2), (40, 2), (44, 2)]);
        // Gaps split runs; a 2-byte aligned base allows nothing wider than one element.
        assert_eq!(vector_runs(&[0, 4, 8, 12, 20], 4, 16), vec![(0, 4), (20, 1)]);
        assert_eq!(vector_runs(&[0, 2], 2, 2), vec![(0, 1), (2, 1)]);
    }
}
