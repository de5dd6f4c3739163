//! Linear-layout tests: blocked, slice and swizzled-shared constructors, and the GF(2) algebra.
//!
//! Most tests check a layout against brute force: they enumerate every hardware index, apply the
//! layout, and compare with what Triton's encoding means in words (thread `t` owns elements
//! `4t..4t+3`, every element is owned `n` times, ...). Property loops run over several shapes,
//! warp counts and warp sizes; tables give the expected values for the hand-checked cases.

use std::collections::{BTreeMap, BTreeSet};

use trident_midend::layout::{
    project_out, slice, Blocked, Encoding, InDim, LinearLayout, Mma, MmaVersion, Slice, SwizzledShared,
};

/// Every hardware index of a distributed layout, as `apply` inputs.
fn all_inputs(layout: &LinearLayout) -> Vec<Vec<(InDim, u32)>> {
    let mut inputs = vec![vec![]];
    for dim in InDim::HARDWARE {
        let mut next = Vec::new();
        for prefix in &inputs {
            for value in 0..layout.in_size(dim) {
                let mut index = prefix.clone();
                index.push((dim, value));
                next.push(index);
            }
        }
        inputs = next;
    }
    inputs
}

/// The elements thread `thread` owns, register by register.
fn owned(layout: &LinearLayout, warp_size: u32, thread: u32) -> Vec<Vec<u32>> {
    (0..layout.num_registers())
        .map(|r| {
            layout.apply(&[
                (InDim::Register, r),
                (InDim::Lane, thread % warp_size),
                (InDim::Warp, thread / warp_size),
            ])
        })
        .collect()
}

/// How many hardware indices own each element.
fn owner_counts(layout: &LinearLayout) -> BTreeMap<Vec<u32>, u64> {
    let mut counts = BTreeMap::new();
    for input in all_inputs(layout) {
        *counts.entry(layout.apply(&input)).or_insert(0) += 1;
    }
    counts
}

fn numel(shape: &[u32]) -> u64 {
    shape.iter().map(|&s| s as u64).product()
}

/// The 1-D blocked layouts of 128 elements on 4 warps of 32 lanes, and of larger tensors.
#[test]
fn blocked_1d_thread_elements() {
    // (shape, sizePerThread, thread, elements it owns in register order)
    let cases: &[(u32, u32, u32, &[u32])] = &[
        (128, 1, 0, &[0]),
        (128, 1, 37, &[37]),
        (128, 1, 127, &[127]),
        (512, 4, 0, &[0, 1, 2, 3]),
        (512, 4, 33, &[132, 133, 134, 135]),
        // Twice the CTA tile: the tile repeats in registers 4..8.
        (1024, 4, 1, &[4, 5, 6, 7, 516, 517, 518, 519]),
        // Size 1 per thread, 256 elements: registers stride by the 128-thread tile.
        (256, 1, 5, &[5, 133]),
    ];
    for &(shape, spt, thread, expected) in cases {
        let layout = Blocked::default_for_shape(&[shape], Some(&[spt]), 32, 4).to_linear(&[shape]).unwrap();
        let got: Vec<u32> = owned(&layout, 32, thread).into_iter().map(|c| c[0]).collect();
        assert_eq!(got, expected, "shape {shape}, sizePerThread {spt}, thread {thread}");
        assert!(layout.is_injective() && layout.is_surjective(), "shape {shape} should be a bijection");
    }
}

/// `Blocked::permuted` (a transpose's layout): every thread holds the transposed elements it held
/// before, register by register, and the fastest dimension follows its elements.
#[test]
fn a_permuted_blocked_layout_holds_the_transposed_elements() {
    let loaded = Blocked {
        size_per_thread: vec![1, 8],
        threads_per_warp: vec![2, 16],
        warps_per_cta: vec![2, 2],
        order: vec![1, 0],
    };
    let transposed = loaded.permuted(&[1, 0]);
    assert_eq!(transposed.size_per_thread, [8, 1]);
    assert_eq!(transposed.threads_per_warp, [16, 2]);
    assert_eq!(transposed.warps_per_cta, [2, 2]);
    assert_eq!(transposed.order, [0, 1], "dimension 1 was fastest; it is dimension 0 now");
    let before = loaded.to_linear(&[32, 256]).unwrap();
    let after = transposed.to_linear(&[256, 32]).unwrap();
    for thread in 0..128 {
        let flipped: Vec<Vec<u32>> =
            owned(&before, 32, thread).into_iter().map(|c| vec![c[1], c[0]]).collect();
        assert_eq!(owned(&after, 32, thread), flipped, "thread {thread}");
    }
}

#[test]
fn blocked_2d_contiguous_registers() {
    let blocked = Blocked {
        size_per_thread: vec![1, 4],
        threads_per_warp: vec![8, 4],
        warps_per_cta: vec![4, 1],
        order: vec![1, 0],
    };
    let layout = blocked.to_linear(&[32, 16]).unwrap();
    assert_eq!(layout.register_contiguity(1), 4);
    assert_eq!(layout.register_contiguity(0), 1);
    // (thread, first element; the other three follow along dim 1)
    for (thread, row, col) in
        [(0, 0, 0), (1, 0, 4), (3, 0, 12), (4, 1, 0), (31, 7, 12), (32, 8, 0), (127, 31, 12)]
    {
        let expected: Vec<Vec<u32>> = (0..4).map(|r| vec![row, col + r]).collect();
        assert_eq!(owned(&layout, 32, thread), expected, "thread {thread}");
    }
    assert_eq!(
        layout.to_string(),
        "#ttg.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], \
         warp = [[8, 0], [16, 0]], block = []}>"
    );
    assert_eq!(
        blocked.to_string(),
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"
    );
}

/// One case of the shape-aware builder: its inputs and Triton's choice.
struct BuilderCase {
    shape: &'static [u32],
    size_per_thread: &'static [u32],
    warp_size: u32,
    warps: u32,
    threads_per_warp: &'static [u32],
    warps_per_cta: &'static [u32],
}

/// The shape-aware builder against Triton's choices.
#[test]
fn blocked_default_builder() {
    let case = |shape, size_per_thread, warp_size, warps, threads_per_warp, warps_per_cta| BuilderCase {
        shape,
        size_per_thread,
        warp_size,
        warps,
        threads_per_warp,
        warps_per_cta,
    };
    let cases = [
        case(&[128], &[1], 32, 4, &[32], &[4]),
        case(&[64, 64], &[1, 4], 32, 4, &[2, 16], &[4, 1]),
        case(&[64, 64], &[1, 1], 32, 4, &[1, 32], &[2, 2]),
        case(&[16, 8], &[1, 1], 32, 4, &[4, 8], &[4, 1]),
        case(&[2, 4], &[1, 1], 32, 8, &[8, 4], &[8, 1]),
        case(&[128, 16], &[1, 8], 64, 4, &[32, 2], &[4, 1]),
        case(&[32, 32], &[1, 1], 16, 2, &[1, 16], &[1, 2]),
        case(&[4, 8, 16], &[1, 1, 4], 32, 4, &[1, 8, 4], &[4, 1, 1]),
    ];
    for case in cases {
        let blocked =
            Blocked::default_for_shape(case.shape, Some(case.size_per_thread), case.warp_size, case.warps);
        assert_eq!(blocked.threads_per_warp, case.threads_per_warp, "{:?}: {blocked}", case.shape);
        assert_eq!(blocked.warps_per_cta, case.warps_per_cta, "{:?}: {blocked}", case.shape);
    }
}

/// Tensors smaller than the CTA tile: free (zero) bases and the right number of owners.
#[test]
fn blocked_broadcast_small_tensor() {
    let layout = Blocked::default_for_shape(&[16], None, 32, 4).to_linear(&[16]).unwrap();
    assert_eq!(layout.zero_bases_mask(InDim::Lane), 0b10000);
    assert_eq!(layout.zero_bases_mask(InDim::Warp), 0b11);
    assert_eq!(layout.num_replicas(), 8);
    assert!(layout.is_surjective() && !layout.is_injective());
    // Element 5 is held by lanes 5 and 21 of each of the 4 warps.
    let owners: BTreeSet<u32> = (0..128).filter(|&t| owned(&layout, 32, t)[0] == [5]).collect();
    assert_eq!(owners, BTreeSet::from([5, 21, 37, 53, 69, 85, 101, 117]));
    assert!(layout.invert().is_err(), "a broadcast layout has no inverse");
}

/// Property loop: every blocked layout built by the default builder covers the tensor, and each
/// element has exactly `threads * registers / numel` owners.
#[test]
fn blocked_owner_counts_property() {
    let shapes: &[&[u32]] = &[&[1], &[8], &[64], &[1024], &[4, 4], &[16, 64], &[128, 2], &[2, 8, 32]];
    for &shape in shapes {
        for warp_size in [8, 16, 32, 64] {
            for warps in [1, 2, 4, 8] {
                let blocked = Blocked::default_for_shape(shape, None, warp_size, warps);
                let layout = blocked.to_linear(shape).unwrap();
                let counts = owner_counts(&layout);
                let threads = (warp_size * warps) as u64;
                let inputs = threads * layout.num_registers() as u64;
                let context = format!("{shape:?} {blocked}");
                assert_eq!(counts.len() as u64, numel(shape), "every element owned: {context}");
                let replicas = inputs / numel(shape);
                assert!(counts.values().all(|&c| c == replicas), "{context}: {counts:?}");
                assert_eq!(layout.num_replicas(), replicas, "{context}");
                // With sizePerThread 1, a thread holds one register per CTA tile repeat.
                assert_eq!(layout.num_registers() as u64, (numel(shape) / threads).max(1), "{context}");
            }
        }
    }
}

/// Slices are projections of the parent, own every element, and drop duplicate registers.
#[test]
fn slice_consistent_with_parent() {
    let shapes: &[&[u32]] = &[&[32, 64], &[4, 128], &[64, 4], &[8, 8, 8], &[256, 1]];
    for &shape in shapes {
        for warps in [1, 4, 8] {
            let parent = Blocked::default_for_shape(shape, None, 32, warps).to_linear(shape).unwrap();
            for dim in 0..shape.len() {
                let projected = project_out(&parent, dim).unwrap();
                let sliced = slice(&parent, dim).unwrap();
                let mut sliced_shape = shape.to_vec();
                sliced_shape.remove(dim);
                let context = format!("{shape:?} warps {warps} slice {dim}: {sliced}");
                assert_eq!(sliced.out_shape(), &sliced_shape[..], "{context}");
                assert!(sliced.is_surjective(), "every element of the slice is owned: {context}");
                assert_eq!(sliced.zero_bases_mask(InDim::Register), 0, "{context}");
                for input in all_inputs(&parent) {
                    let mut expected = parent.apply(&input);
                    expected.remove(dim);
                    assert_eq!(projected.apply(&input), expected, "{context}");
                }
                for thread in 0..32 * warps {
                    let from_parent: BTreeSet<Vec<u32>> = owned(&projected, 32, thread).into_iter().collect();
                    let from_slice: BTreeSet<Vec<u32>> = owned(&sliced, 32, thread).into_iter().collect();
                    assert_eq!(from_slice, from_parent, "thread {thread}: {context}");
                }
            }
        }
    }
}

#[test]
fn slice_row_reduction_layout() {
    // A [32, 16] tensor on one warp with 4 lanes along dim 1: reducing dim 1 leaves each row
    // held by 4 lanes (broadcast) in one register.
    let blocked = Blocked {
        size_per_thread: vec![1, 4],
        threads_per_warp: vec![8, 4],
        warps_per_cta: vec![1, 1],
        order: vec![1, 0],
    };
    let parent = blocked.to_linear(&[32, 16]).unwrap();
    let sliced = slice(&parent, 1).unwrap();
    assert_eq!(
        sliced.to_string(),
        "#ttg.linear<{register = [[8], [16]], lane = [[0], [0], [1], [2], [4]], warp = [], block = []}>"
    );
    assert_eq!(sliced.num_replicas(), 4);
}

/// The `#ttg.slice` attribute builds its parent on a size-1 dim; any parent size gives the
/// same layout, because the bases along the sliced dim are dropped either way.
#[test]
fn slice_attribute_matches_any_parent_size() {
    let shapes: &[&[u32]] = &[&[64], &[16, 8], &[2, 256]];
    for &shape in shapes {
        for dim in 0..=shape.len() {
            for warps in [1, 4] {
                let mut parent_shape = shape.to_vec();
                parent_shape.insert(dim, 8);
                let parent = Blocked::default_for_shape(&parent_shape, None, 32, warps);
                let attribute = Slice { dim: dim as u32, parent: parent.clone() };
                let from_attribute = attribute.to_linear(shape).unwrap();
                for parent_size in [1, 2, 8, 512] {
                    parent_shape[dim] = parent_size;
                    let expected = slice(&parent.to_linear(&parent_shape).unwrap(), dim).unwrap();
                    assert_eq!(
                        from_attribute, expected,
                        "{attribute} on {shape:?}, parent size {parent_size}"
                    );
                }
            }
        }
    }
    let parent = Blocked::default_for_shape(&[4, 4], None, 32, 1);
    assert_eq!(
        Slice { dim: 1, parent }.to_string(),
        "#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], \
         warpsPerCTA = [1, 1], order = [1, 0]}>}>"
    );
}

/// A layout whose bases are a permutation of the coordinate bits.
fn permutation_layout() -> LinearLayout {
    LinearLayout::new(
        vec![
            (InDim::Register, vec![vec![0, 4], vec![2, 0]]),
            (InDim::Lane, vec![vec![0, 1], vec![1, 0], vec![0, 2]]),
            (InDim::Warp, vec![vec![0, 8]]),
            (InDim::Block, vec![]),
        ],
        vec![4, 16],
    )
    .unwrap()
}

#[test]
fn invert_and_compose_round_trip() {
    let layout = permutation_layout();
    let inverse = layout.invert().unwrap();
    assert_eq!(inverse.out_shape(), &[4, 8, 2, 1]);
    // inverse ∘ layout is the identity on (register, lane, warp, block).
    let round_trip = layout.compose(&inverse).unwrap();
    for input in all_inputs(&layout) {
        let values: Vec<u32> = input.iter().map(|&(_, v)| v).collect();
        assert_eq!(round_trip.apply(&input), values);
    }
    // layout ∘ inverse is the identity on coordinates.
    for row in 0..4 {
        for col in 0..16 {
            let hw = inverse.apply(&[(InDim::Dim(0), row), (InDim::Dim(1), col)]);
            let hw_input: Vec<(InDim, u32)> = InDim::HARDWARE.into_iter().zip(hw).collect();
            assert_eq!(layout.apply(&hw_input), [row, col]);
        }
    }
}

/// `conv = dst⁻¹ ∘ src` finds, for every source index, a destination index holding the same
/// element, even when the source broadcasts.
#[test]
fn conversion_map_between_blocked_layouts() {
    let shape = [32, 32];
    let src = Blocked::default_for_shape(&shape, Some(&[1, 4]), 32, 4).to_linear(&shape).unwrap();
    let dst = Blocked::for_shape(&shape, vec![4, 1], vec![0, 1], 32, 4).to_linear(&shape).unwrap();
    let small = [8, 4];
    let broadcasting = Blocked::default_for_shape(&small, None, 32, 4).to_linear(&small).unwrap();
    let transposed = Blocked::for_shape(&small, vec![1, 1], vec![0, 1], 16, 2).to_linear(&small).unwrap();
    for (src, dst) in [(&src, &dst), (&dst, &src), (&broadcasting, &transposed)] {
        let conv = src.compose(&dst.pseudo_invert().unwrap()).unwrap();
        for input in all_inputs(src) {
            let target = conv.apply(&input);
            let target_input: Vec<(InDim, u32)> = InDim::HARDWARE.into_iter().zip(target).collect();
            assert_eq!(dst.apply(&target_input), src.apply(&input), "{src} -> {dst}");
        }
    }
}

#[test]
fn free_variables_and_errors() {
    // Lane 2 lands where lane 1 does: a dependent (free) bit that is not a zero basis.
    let layout = LinearLayout::new(
        vec![(InDim::Register, vec![vec![1]]), (InDim::Lane, vec![vec![2], vec![2], vec![0]])],
        vec![4],
    )
    .unwrap();
    assert_eq!(layout.free_variable_masks(), vec![(InDim::Register, 0), (InDim::Lane, 0b110)]);
    assert_eq!(layout.zero_bases_mask(InDim::Lane), 0b100);
    assert_eq!(layout.num_replicas(), 4);
    // Not surjective: element bits 2 and 3 are never reached.
    let partial = LinearLayout::identity_1d(4, InDim::Lane, 0, &[16]).unwrap();
    assert!(partial.is_injective() && !partial.is_surjective());
    assert!(partial.pseudo_invert().is_err());
    // Bad constructions are rejected.
    assert!(LinearLayout::new(vec![(InDim::Lane, vec![vec![4]])], vec![4]).is_err());
    assert!(LinearLayout::new(vec![], vec![6]).is_err());
    assert!(Blocked::default_for_shape(&[48], None, 32, 4).to_linear(&[48]).is_err());
}

/// Vector widths: the run of registers along a dim, cut short when another basis would
/// reorder it.
#[test]
fn register_contiguity_cases() {
    // (register bases, lane bases, shape, dim, expected width)
    type Case = (&'static [[u32; 2]], &'static [[u32; 2]], [u32; 2], usize, u32);
    let cases: &[Case] = &[
        (&[[0, 1], [0, 2], [0, 4]], &[[0, 8], [1, 0]], [2, 16], 1, 8),
        (&[[0, 1], [0, 2], [0, 4]], &[[0, 8], [1, 0]], [2, 16], 0, 1),
        // Register 2 jumps to the next row: the run stops at 2.
        (&[[0, 1], [0, 2], [1, 0]], &[[0, 4], [0, 8]], [2, 16], 1, 4),
        // A lane basis of 1 reverses the pair held by odd lanes: no vectorization.
        (&[[0, 1], [0, 2]], &[[0, 1], [0, 4]], [1, 8], 1, 1),
        // A lane basis of 2 keeps pairs in order but breaks the run of 4 into halves.
        (&[[0, 1], [0, 2]], &[[0, 2], [0, 4]], [1, 8], 1, 2),
        (&[[0, 2], [0, 1]], &[[0, 4]], [1, 8], 1, 1),
    ];
    for &(registers, lanes, shape, dim, expected) in cases {
        let to_bases = |bases: &[[u32; 2]]| bases.iter().map(|b| b.to_vec()).collect::<Vec<_>>();
        let layout = LinearLayout::new(
            vec![(InDim::Register, to_bases(registers)), (InDim::Lane, to_bases(lanes))],
            shape.to_vec(),
        )
        .unwrap();
        assert_eq!(layout.register_contiguity(dim), expected, "{layout} along {dim}");
        // Brute force: every aligned group of `expected` registers is increasing along `dim`.
        for lane in 0..layout.in_size(InDim::Lane) {
            for register in 0..layout.num_registers() {
                let at = |r| layout.apply(&[(InDim::Register, r), (InDim::Lane, lane)]);
                let first = at(register - register % expected);
                let here = at(register);
                assert_eq!(here[dim], first[dim] + register % expected, "{layout}, lane {lane}");
            }
        }
    }
}

/// Every offset of a swizzled tile holds a distinct element, and the closed-form address agrees.
#[test]
fn swizzle_is_a_bijection() {
    let shapes: &[[u32; 2]] = &[[16, 64], [32, 32], [8, 128], [64, 16], [4, 8]];
    for shape in shapes {
        for order in [vec![1, 0], vec![0, 1]] {
            for vec in [1, 2, 4, 8] {
                for per_phase in [1, 2, 4] {
                    for max_phase in [1, 2, 4, 8] {
                        let shared = SwizzledShared { vec, per_phase, max_phase, order: order.clone() };
                        let layout = shared.to_linear(shape).unwrap();
                        let context = format!("{shared} on {shape:?}");
                        assert!(layout.is_injective() && layout.is_surjective(), "{context}");
                        let mut seen = BTreeSet::new();
                        for offset in 0..shape[0] * shape[1] {
                            let coords = layout.apply(&[(InDim::Offset, offset)]);
                            assert_eq!(shared.offset_of(shape, &coords), offset, "{context} at {coords:?}");
                            seen.insert(coords);
                        }
                        assert_eq!(seen.len() as u32, shape[0] * shape[1], "{context}");
                    }
                }
            }
        }
    }
}

#[test]
fn swizzle_spreads_a_column_over_banks() {
    // With 8 phases of 1 row and vec 1, column 0 of rows 0..8 lands in 8 distinct columns.
    let shared = SwizzledShared { vec: 1, per_phase: 1, max_phase: 8, order: vec![1, 0] };
    let columns: BTreeSet<u32> = (0..8).map(|row| shared.offset_of(&[8, 8], &[row, 0]) % 8).collect();
    assert_eq!(columns.len(), 8);
    let unswizzled = SwizzledShared::unswizzled(vec![1, 0]);
    assert_eq!(unswizzled.offset_of(&[8, 8], &[3, 5]), 29);
    let small = SwizzledShared { vec: 2, per_phase: 1, max_phase: 4, order: vec![1, 0] };
    assert_eq!(
        small.to_linear(&[4, 8]).unwrap().to_string(),
        "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [0, 4], [1, 2], [2, 4]], block = []}>"
    );
}

/// Triton's MMAv2 operand swizzle parameters.
#[test]
fn swizzle_mma_v2_operand_parameters() {
    // (opIdx, kWidth, shape, order, bits, needTrans, expected [vec, perPhase, maxPhase])
    type Case = (u32, u32, [u32; 2], [u32; 2], u32, bool, [u32; 3]);
    let cases: &[Case] = &[
        (0, 2, [128, 64], [1, 0], 16, false, [8, 1, 8]),
        (0, 2, [128, 32], [1, 0], 16, false, [8, 2, 4]),
        (1, 2, [64, 128], [1, 0], 16, false, [8, 1, 8]),
        (0, 4, [128, 64], [1, 0], 8, false, [16, 2, 4]),
        (0, 1, [128, 32], [1, 0], 32, false, [4, 1, 8]),
        // A with M contiguous: vec and the MMA stride swap.
        (0, 1, [64, 32], [0, 1], 32, false, [8, 1, 4]),
        // A transposed: the same swap, from needTrans.
        (0, 1, [128, 32], [1, 0], 32, true, [8, 1, 4]),
    ];
    for &(op_idx, k_width, shape, order, bits, need_trans, expected) in cases {
        let got = SwizzledShared::for_mma_v2_operand(op_idx, k_width, &shape, &order, bits, need_trans);
        assert_eq!([got.vec, got.per_phase, got.max_phase], expected, "{got}");
    }
}

/// MMA v3 (wgmma): every register of every lane of every warp holds the element the PTX ISA's
/// m64nNk16 accumulator fragment puts there (warpgroup `w / 4` along M, then N).
#[test]
fn mma_v3_matches_the_wgmma_fragment() {
    for (shape, warps, instr_n) in [
        ([128u32, 256u32], [8u32, 1u32], 256u32),
        ([64, 64], [4, 1], 64),
        ([128, 128], [4, 2], 64),
        ([256, 64], [4, 1], 64),
    ] {
        let mma = Mma { warps_per_cta: warps, version: MmaVersion::V3 { instr_n, instr_k: 16 } };
        let layout = mma.to_linear(&shape).unwrap();
        let m_groups = warps[0] / 4;
        let regs_per_instr = instr_n / 2;
        let n_reps = shape[1] / (instr_n * warps[1]);
        let mut seen = BTreeSet::new();
        for warp in 0..warps[0] * warps[1] {
            let group = warp / 4;
            let (mg, ng) = (group % m_groups, group / m_groups);
            for lane in 0..32 {
                for reg in 0..layout.num_registers() {
                    let i = reg % regs_per_instr;
                    let rep = reg / regs_per_instr;
                    let (ni, mi) = (rep % n_reps, rep / n_reps);
                    let row = mi * 16 * warps[0] + mg * 64 + 16 * (warp % 4) + lane / 4 + 8 * ((i / 2) % 2);
                    let col = ni * instr_n * warps[1] + ng * instr_n + 8 * (i / 4) + 2 * (lane % 4) + i % 2;
                    let got = layout.apply(&[
                        (InDim::Register, reg),
                        (InDim::Lane, lane),
                        (InDim::Warp, warp),
                        (InDim::Block, 0),
                    ]);
                    assert_eq!(
                        got,
                        vec![row, col],
                        "{shape:?} warps {warps:?} warp {warp} lane {lane} reg {reg}"
                    );
                    assert!(seen.insert(got));
                }
            }
        }
        assert_eq!(seen.len() as u64, numel(&shape));
        assert!(mma.to_string().starts_with("#ttg.nvidia_mma<{versionMajor = 3"));
    }
}

/// The register layout of a warpgroup dot's A operand holds, per row block `mi` and K step, the
/// PTX ISA's A fragment of `wgmma.m64nNk16` (16-bit types) in registers `8 (mi K / 16 + k0 / 16)
/// ..`: element `i` of lane `l` at row `l / 4 + 8 ((i / 2) % 2)`, column `2 (l % 4) + i % 2 + 8
/// (i / 4)` of the warp's 16 x 16 block, warp `w` on rows `16 w ..` (the nvptx backend packs
/// them in that order).
#[test]
fn mma_v3_register_operand_holds_the_a_fragments() {
    for (shape, warps) in [([64u32, 64u32], [4u32, 1u32]), ([128, 32], [4, 1]), ([128, 128], [8, 1])] {
        let acc = Mma { warps_per_cta: warps, version: MmaVersion::V3 { instr_n: 64, instr_k: 16 } };
        let operand = acc.v3_register_operand(shape[1]).unwrap();
        let layout = operand.to_linear(&shape).unwrap();
        let k_steps = shape[1] / 16;
        for warp in 0..warps[0] {
            for lane in 0..32 {
                for reg in 0..layout.num_registers() {
                    let (i, step) = (reg % 8, reg / 8);
                    let (mi, k0) = (step / k_steps, 16 * (step % k_steps));
                    let row = mi * 16 * warps[0] + 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
                    let col = k0 + 2 * (lane % 4) + i % 2 + 8 * (i / 4);
                    let got = layout.apply(&[
                        (InDim::Register, reg),
                        (InDim::Lane, lane),
                        (InDim::Warp, warp),
                        (InDim::Block, 0),
                    ]);
                    assert_eq!(got, vec![row, col], "{shape:?} warp {warp} lane {lane} reg {reg}");
                }
            }
        }
    }
    let split = Mma { warps_per_cta: [4, 2], version: MmaVersion::V3 { instr_n: 64, instr_k: 16 } };
    assert_eq!(split.v3_register_operand(64), None, "warps along N hold no whole A rows");
    let acc = Mma { warps_per_cta: [4, 1], version: MmaVersion::V3 { instr_n: 64, instr_k: 16 } };
    assert_eq!(acc.v3_register_operand(48), None, "K must be a power of two");
}

/// Attention's scores (instruction N 32) and accumulator (N 64) place a 64 x 64 tile on the
/// same threads in a different register order: converting between them renames registers. A
/// blocked layout does not.
#[test]
fn mma_v3_layouts_of_different_n_convert_in_registers() {
    let v3 = |instr_n| {
        Encoding::Mma(Mma { warps_per_cta: [4, 1], version: MmaVersion::V3 { instr_n, instr_k: 16 } })
    };
    assert!(v3(32).converts_in_registers(&v3(64), &[64, 64]));
    assert!(v3(64).converts_in_registers(&v3(32), &[64, 64]));
    let blocked = Encoding::Blocked(Blocked::for_shape(&[64, 64], vec![1, 4], vec![1, 0], 32, 4));
    assert!(!v3(64).converts_in_registers(&blocked, &[64, 64]));
}

/// Triton's instruction N and warps for version 3: the 128x256 fp16 tile of the matmul
/// tutorial over 8 warps is two warpgroups of m64n256k16.
#[test]
fn mma_v3_instruction_and_warps() {
    assert_eq!(Mma::v3_instr_n([128, 256], 8), Some(256));
    assert_eq!(Mma::choose_warps_v3([128, 256], 8), [8, 1]);
    assert_eq!(Mma::v3_instr_n([64, 64], 4), Some(64));
    assert_eq!(Mma::choose_warps_v3([64, 64], 4), [4, 1]);
    assert_eq!(Mma::v3_instr_n([64, 128], 8), Some(64));
    assert_eq!(Mma::choose_warps_v3([64, 128], 8), [4, 2]);
}
