//! Vectorized shared-memory accesses: how wide a `ld/st.shared.vN` a thread's elements allow.
//!
//! The register model itself (which elements a thread holds, renaming between layouts) is
//! shared with the SPIR-V backend: [`trident_midend::layout::registers`].

use trident_midend::layout::registers::{Affine, LayoutInfo};

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
