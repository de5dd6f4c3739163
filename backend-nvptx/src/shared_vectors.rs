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

/// The scratch layout of a layout conversion through shared memory, in elements: row-major,
/// each row of the innermost dim padded by the longer of the two layouts' per-thread vectors
/// along it (as Triton pads a conversion's scratch). Without padding, rows whose length is a
/// multiple of 128 bytes all start in bank 0, and a layout whose lanes run down the rows (the
/// MMA accumulators: 8 rows of 4 lanes per store) hits one bank from 8 lanes at once; the pad
/// shifts each row by a whole vector, which keeps both sides' vectors aligned.
pub fn padded_rows(src: &LayoutInfo, dst: &LayoutInfo) -> Affine {
    let shape = &src.shape;
    let mut scratch = Affine::row_major(shape);
    let Some(last) = shape.len().checked_sub(1).filter(|&last| last > 0 && shape[last] > 1) else {
        return scratch;
    };
    let vector = |l: &LayoutInfo| l.linear.register_contiguity(last).max(1) as i64;
    let pad = vector(src).max(vector(dst));
    let row = shape[last] as i64 + pad;
    let mut stride = row;
    for d in (0..last).rev() {
        scratch.coeffs[d] = stride;
        stride *= shape[d] as i64;
    }
    scratch
}

pub fn gcd(a: i64, b: i64) -> i64 {
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
    use super::{base_alignment, padded_rows, vector_runs};
    use trident_midend::layout::registers::{Affine, LayoutInfo};
    use trident_midend::layout::{Blocked, Encoding, Mma, MmaVersion};

    fn info(encoding: Encoding, shape: &[u32]) -> LayoutInfo {
        LayoutInfo::new(encoding.to_linear(shape).unwrap())
    }

    /// Shared-memory wavefronts warp 0 needs for all its accesses of `l` through `scratch`
    /// (vectorized as the backend does), and the fewest possible: a vector access of `w` words
    /// runs in `w` phases of `32 / w` lanes; a phase takes as many wavefronts as the most
    /// distinct words any one bank holds.
    fn wavefronts(l: &LayoutInfo, scratch: &Affine, elem_bytes: i64) -> (usize, usize) {
        let thread = |lane: usize| -> Vec<u32> {
            let mut c = vec![0u32; l.rank()];
            for (bit, basis) in l.lane_bases.iter().enumerate() {
                if lane >> bit & 1 == 1 {
                    c.iter_mut().zip(basis).for_each(|(x, b)| *x += b);
                }
            }
            c
        };
        let offsets: Vec<i64> = l.reg_coords.iter().map(|c| scratch.eval(c) * elem_bytes).collect();
        let align = base_alignment(l, scratch, elem_bytes);
        let (mut taken, mut ideal) = (0, 0);
        for (first, width) in vector_runs(&offsets, elem_bytes, align) {
            let words = ((width as i64 * elem_bytes) / 4).max(1) as usize;
            let reg = offsets.iter().position(|&o| o == first).unwrap();
            let lanes_per_phase = 32 / words;
            for phase in 0..words {
                let mut per_bank = vec![std::collections::HashSet::new(); 32];
                for lane in phase * lanes_per_phase..(phase + 1) * lanes_per_phase {
                    let c: Vec<u32> =
                        thread(lane).iter().zip(&l.reg_coords[reg]).map(|(a, b)| a + b).collect();
                    let byte = scratch.eval(&c) * elem_bytes;
                    for w in 0..words as i64 {
                        let word = byte / 4 + w;
                        per_bank[(word % 32) as usize].insert(word);
                    }
                }
                taken += per_bank.iter().map(|b| b.len()).max().unwrap();
                ideal += 1;
            }
        }
        (taken, ideal)
    }

    /// The matmul epilogue's conversion (the 128x256 MMA v3 accumulator, as f16, to 16-byte row
    /// vectors): row-major scratch makes every store an 8-way bank conflict; the padded rows
    /// take none, and the reads stay 16 bytes wide and conflict-free.
    #[test]
    fn padded_rows_keep_the_accumulator_conversion_free_of_bank_conflicts() {
        let shape = [128u32, 256];
        let mma = Mma { warps_per_cta: [8, 1], version: MmaVersion::V3 { instr_n: 256, instr_k: 16 } };
        let src = info(Encoding::Mma(mma), &shape);
        let blocked = Blocked {
            size_per_thread: vec![1, 8],
            threads_per_warp: vec![1, 32],
            warps_per_cta: vec![8, 1],
            order: vec![1, 0],
        };
        let dst = info(Encoding::Blocked(blocked), &shape);
        let plain = Affine::row_major(&shape);
        let (taken, ideal) = wavefronts(&src, &plain, 2);
        assert_eq!(taken, 8 * ideal, "row-major scratch: 8 lanes on one bank per store");
        let padded = padded_rows(&src, &dst);
        assert_eq!(padded.coeffs, vec![264, 1]);
        let (taken, ideal) = wavefronts(&src, &padded, 2);
        assert_eq!(taken, ideal, "padded stores");
        let (taken, ideal) = wavefronts(&dst, &padded, 2);
        assert_eq!(taken, ideal, "padded loads");
        assert_eq!(ideal, 4 * 16, "16 loads of 16 bytes, 4 phases each");
    }

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
