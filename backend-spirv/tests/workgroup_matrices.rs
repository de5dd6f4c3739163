//! GEMM loops on workgroup-scope cooperative matrices (`Options::workgroup_matrices`,
//! `VK_NV_cooperative_matrix2`): the accumulator is one matrix of the whole tile from the loop's
//! entry to the store, A and B are loaded straight from their buffers each iteration (a strided
//! load where the tile is whole and aligned, a tensor-layout slice where the mask cuts it: a
//! survey loop decides before the loop whether every tile is whole, and a loop of strided loads
//! only runs then), the parameters that are row strides are specialization constants, and the
//! result is stored as a matrix the same two ways. Every module also goes through `spirv-val`
//! where it is installed (one that knows `SPV_NV_cooperative_matrix2`).
//!
//! The kernels are the corpus' `tutorial/matmul` as TTIR (`trident compile ... --emit ttir`):
//! `matmul_loop.ttir` at 64x64x32 on four warps with an f32 C, `gemm_loop.ttir` at 128x256x64 on
//! eight warps with an f16 C (the perf case's shape), and `gemm_constant_sizes.ttir`, the same
//! kernel with `M`, `N`, `K` and the strides `tl.constexpr` (4096, row-major), and
//! `gemm_128x128.ttir` at 128x128x64 on eight warps. `gemm_storing_rows.ttir` is a GEMM of
//! 128x128x64 tiles on eight warps that also stores its row indices, which the layout lowers:
//!
//! ```python
//! @triton.jit
//! def matmul_rows_kernel(a_ptr, b_ptr, c_ptr, rows_ptr, K, stride_am, stride_bk, stride_cm,
//!                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
//!     rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
//!     rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
//!     rk = tl.arange(0, BLOCK_K)
//!     a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :]
//!     b_tile = b_ptr + rk[:, None] * stride_bk + rn[None, :]
//!     acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
//!     for k0 in range(0, K, BLOCK_K):
//!         acc = tl.dot(tl.load(a_tile), tl.load(b_tile), acc)
//!         a_tile += BLOCK_K
//!         b_tile += BLOCK_K * stride_bk
//!     tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16))
//!     tl.store(rows_ptr + rm, rm)
//! ```

mod common;

use common::{constant, count, loop_bodies, spirv_val, WorkgroupScope};
use trident_backend_spirv::Options;

const MATMUL_LOOP: &str = include_str!("matmul_loop.ttir");
const GEMM_LOOP: &str = include_str!("gemm_loop.ttir");

/// A device like the H100 (`common::nvidia_like`), with (`workgroup`) or without its
/// workgroup-scope matrices.
fn options(num_warps: u32, workgroup: bool) -> Options {
    let scope = if workgroup { WorkgroupScope::Matrices } else { WorkgroupScope::None };
    common::nvidia_like(num_warps, scope)
}

#[test]
fn a_gemm_loop_loads_and_multiplies_whole_tiles() {
    let (artifact, text) = common::lower(GEMM_LOOP, &options(8, true));
    spirv_val("workgroup gemm", &artifact.words);
    for wanted in [
        "OpExtension \"SPV_NV_cooperative_matrix2\"",
        "OpExtension \"SPV_NV_tensor_addressing\"",
        "OpCapability TensorAddressingNV",
        "OpCapability CooperativeMatrixTensorAddressingNV",
        "OpTypeTensorLayoutNV",
    ] {
        assert!(text.contains(wanted), "no `{wanted}` in:\n{text}");
    }
    // Workgroup scope (2), the whole tiles: A 128x64, B 64x256, the accumulator 128x256 in f32
    // and, converted for C, in f16.
    let matrices: Vec<String> = text
        .lines()
        .filter(|l| l.contains("OpTypeCooperativeMatrixKHR"))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let workgroup = constant(&text, 2);
    for (rows, cols) in [(128, 64), (64, 256), (128, 256)] {
        let (rows, cols) = (constant(&text, rows), constant(&text, cols));
        assert!(
            matrices.iter().any(|l| l.contains(&format!("{workgroup} {rows} {cols}"))),
            "no workgroup matrix {rows} x {cols} in {matrices:?}"
        );
    }
    // Three loops: the survey loads nothing and multiplies nothing; the loop of whole tiles
    // loads each operand with a strided load and tests nothing, counted and free to unroll;
    // the checked loop loads each operand strided or as a slice of a tensor layout.
    let [survey, whole, checked] = loop_bodies(&text)[..] else { panic!("not three loops: {text}") };
    assert_eq!(count(survey, "OpCooperativeMatrix"), 0, "{survey}");
    assert!(survey.contains("DontUnroll"), "{survey}");
    assert_eq!(count(whole, "OpCooperativeMatrixLoadKHR"), 2, "{whole}");
    assert_eq!(count(whole, "OpCooperativeMatrixLoadTensorNV"), 0, "{whole}");
    assert_eq!(count(whole, "OpSelectionMerge"), 0, "{whole}");
    assert!(!whole.contains("DontUnroll"), "{whole}");
    assert_eq!(count(whole, "OpCooperativeMatrixMulAddKHR"), 1, "{whole}");
    assert_eq!(count(checked, "OpCooperativeMatrixLoadKHR"), 2, "{checked}");
    assert_eq!(count(checked, "OpCooperativeMatrixLoadTensorNV"), 2, "{checked}");
    assert_eq!(count(checked, "OpCooperativeMatrixMulAddKHR"), 1, "{checked}");
    // The row strides of A, B and C (parameters) are specialization constants, their uniform
    // words the `SpecId`s the artifact lists.
    assert_eq!(count(&text, "OpSpecConstant "), 3, "{text}");
    let mut words = artifact.specialized_words.clone();
    words.sort();
    assert_eq!(words, [9, 10, 11], "stride_am, stride_bk and stride_cm");
    for word in words {
        assert!(text.contains(&format!("SpecId {word}")), "{text}");
    }
    // No staging: nothing of the dot goes through workgroup memory, and no barrier (the masks'
    // layout conversions are not lowered: the loads and stores take their extents instead).
    assert_eq!(count(&text, "OpControlBarrier"), 0, "{text}");
    assert!(!text.contains("cooperative_a") && !text.contains("\"smem\""), "{text}");
    // The exit: converted to f16 once, stored whole or through the tensor layout's bounds.
    let after = &text[text.rfind(checked).unwrap() + checked.len()..];
    assert_eq!(count(after, "OpFConvert"), 1, "{after}");
    assert_eq!(count(after, "OpCooperativeMatrixStoreKHR"), 1, "{after}");
    assert_eq!(count(after, "OpCooperativeMatrixStoreTensorNV"), 1, "{after}");
}

/// The workgroup of a kernel that is only its GEMM is the backend's to size: 128x128 tiles on
/// eight warps run on four (128 accumulator elements an invocation, as 128x256 tiles on eight
/// have: those keep their 256), and never on fewer than four.
#[test]
fn a_gemm_alone_runs_on_128_accumulator_elements_an_invocation() {
    for (name, ttir, num_warps, invocations) in [
        ("128x128 on eight warps", include_str!("gemm_128x128.ttir"), 8, 128),
        ("128x256 on eight warps", GEMM_LOOP, 8, 256),
        ("64x64 on four warps", MATMUL_LOOP, 4, 128),
    ] {
        let (artifact, text) = common::lower(ttir, &options(num_warps, true));
        spirv_val(name, &artifact.words);
        assert!(text.contains("SPV_NV_cooperative_matrix2"), "{name}: {text}");
        assert_eq!(artifact.workgroup_size, [invocations, 1, 1], "{name}");
        assert!(text.contains(&format!(" LocalSize {invocations} 1 1")), "{name}: {text}");
    }
}

/// A kernel with a tensor its GEMM does not hold (its row indices, stored through the layout)
/// keeps `num_warps` warps, which the layout spreads that tensor over; its GEMM still takes
/// the workgroup matrices.
#[test]
fn a_gemm_beside_a_layout_tensor_keeps_its_warps() {
    let (artifact, text) = common::lower(include_str!("gemm_storing_rows.ttir"), &options(8, true));
    spirv_val("gemm storing rows", &artifact.words);
    assert!(text.contains("SPV_NV_cooperative_matrix2"), "{text}");
    assert_eq!(count(&text, "OpCooperativeMatrixMulAddKHR"), 2, "{text}");
    assert_eq!(artifact.workgroup_size, [256, 1, 1]);
}

/// A GEMM of f32 operands at tf32 precision (`gemm_tf32.ttir`: the corpus matmul with f32
/// inputs, 128x128x32 on eight warps), where the device has bf16 workgroup matrices with
/// per-element operations: its tiles are loaded as f32 accumulator-use matrices, each rounded to
/// tf32 and split by two per-element functions into bf16 parts converted into operands, and
/// multiplied four times (`cooperative/tf32_split.rs`). Without the element operations, or asked
/// for `ieee` precision, the dot stays on FMA.
#[test]
fn a_tf32_gemm_multiplies_bf16_parts_four_times() {
    const TF32: &str = include_str!("gemm_tf32.ttir");
    let device = |scope| common::with_bf16(common::nvidia_like(8, scope));
    let (artifact, text) = common::lower(TF32, &device(WorkgroupScope::ElementOperations));
    spirv_val("tf32 gemm on bf16 parts", &artifact.words);
    let [_, whole, checked] = loop_bodies(&text)[..] else { panic!("not three loops: {text}") };
    for body in [whole, checked] {
        assert_eq!(count(body, "OpCooperativeMatrixMulAddKHR"), 4, "{body}");
        // hi and lo of A and B.
        assert_eq!(count(body, "OpCooperativeMatrixPerElementOpNV"), 4, "{body}");
        assert_eq!(count(body, "OpFConvert"), 4, "{body}");
    }
    assert!(text.contains("OpTypeFloat 16 BFloat16KHR"), "{text}");
    // The parts: rounded to tf32 (half of its last place added, the bits below it cleared),
    // truncated to bf16's mantissa, the rest, and the guards of the special values.
    for (what, constant) in
        [("tf32's half place", 0x1000u32), ("tf32's mask", 0xFFFF_E000), ("bf16's mask", 0xFFFF_0000)]
    {
        assert!(text.contains(&format!(" {constant}\n")), "no {what} ({constant:#x}): {text}");
    }
    assert!(text.contains("OpIsInf") && text.contains("OpIsNan"), "{text}");
    // The kernel is only its GEMM: four warps hold its 128x128 accumulator.
    assert_eq!(artifact.workgroup_size, [128, 1, 1]);

    let ieee = TF32.replace("input_precision = \"tf32\"", "input_precision = \"ieee\"");
    assert_ne!(ieee, TF32);
    for (name, ttir, scope) in [
        ("ieee", ieee.as_str(), WorkgroupScope::ElementOperations),
        ("no element operations", TF32, WorkgroupScope::Matrices),
    ] {
        let (_, text) = common::lower(ttir, &device(scope));
        assert!(!text.contains("OpCooperativeMatrixMulAddKHR"), "{name}: {text}");
    }
}

/// A loop that also writes memory is not planned: it would run three times.
#[test]
fn a_loop_that_writes_memory_takes_subgroup_matrices() {
    let load = "    %71 = tt.load %63, %70, %53 : tensor<64x32xf16>\n";
    assert!(MATMUL_LOOP.contains(load));
    let writes = MATMUL_LOOP.replace(load, &format!("{load}    tt.store %63, %71, %70\n"));
    let (artifact, text) = common::lower(&writes, &options(4, true));
    assert!(!text.contains("SPV_NV_cooperative_matrix2"), "{text}");
    assert!(text.contains("cooperative_a"), "{text}");
    assert!(artifact.specialized_words.is_empty());
}

/// With an f32 C the accumulator is stored as it is, and a 64x64 tile on four warps takes the
/// 32x16x16 granules of 128 invocations.
#[test]
fn an_f32_result_is_stored_without_a_conversion() {
    let (artifact, text) = common::lower(MATMUL_LOOP, &options(4, true));
    spirv_val("workgroup gemm f32", &artifact.words);
    assert_eq!(count(&text, "OpFConvert"), 0, "{text}");
    assert_eq!(count(&text, "OpCooperativeMatrixStoreKHR"), 1, "{text}");
    // One product in the loop of whole tiles, one in the checked loop.
    assert_eq!(count(&text, "OpCooperativeMatrixMulAddKHR"), 2, "{text}");
}

/// Without the matrices, or where the device lists no granule for the workgroup's size (here
/// only those of 256 invocations, for a kernel of four warps), the loop takes the subgroups'
/// matrices, staged through workgroup memory.
#[test]
fn without_a_fitting_granule_the_loop_takes_subgroup_matrices() {
    let mut other_size = options(4, true);
    if let Some(offered) = &mut other_size.workgroup_matrices {
        offered.granules.retain(|g| g.invocations == 256);
    }
    for (options, name) in [(options(4, false), "no workgroup matrices"), (other_size, "no granule for 128")]
    {
        let (_, text) = common::lower(MATMUL_LOOP, &options);
        assert!(!text.contains("SPV_NV_cooperative_matrix2"), "{name}: {text}");
        assert!(text.contains("OpCooperativeMatrixMulAddKHR"), "{name}: {text}");
        assert!(text.contains("cooperative_a"), "{name}: {text}");
    }
}

/// The same GEMM with every size and stride a `tl.constexpr` (`gemm_constant_sizes.ttir`): the
/// masks compare against constant tensors, which the loads and stores read as their bounds (the
/// comparisons themselves are not lowered), and the strides are constants.
#[test]
fn constant_sizes_and_strides_take_the_same_path() {
    let (artifact, text) = common::lower(include_str!("gemm_constant_sizes.ttir"), &options(8, true));
    spirv_val("workgroup gemm, constant sizes", &artifact.words);
    let [_, whole, checked] = loop_bodies(&text)[..] else { panic!("not three loops: {text}") };
    for body in [whole, checked] {
        assert_eq!(count(body, "OpCooperativeMatrixLoadKHR"), 2, "{body}");
        assert_eq!(count(body, "OpCooperativeMatrixMulAddKHR"), 1, "{body}");
    }
    assert_eq!(count(&text, "OpControlBarrier"), 0, "{text}");
    assert_eq!(count(&text, "OpCooperativeMatrixStoreKHR"), 1, "{text}");
    // Constant strides: nothing to specialize.
    assert!(artifact.specialized_words.is_empty());
    assert_eq!(count(&text, "OpSpecConstant"), 0, "{text}");
}

/// A GEMM whose A tiles come from a tensor descriptor at a row coordinate that may be negative
/// (`gemm_descriptor_shifted.ttir`: `desc_a.load([pid * 64 - SHIFT, k])`, 64x64x32 on four warps):
/// the offsets are 64-bit and the mask has lower bounds (`rows >= 0`). A tile with rows before
/// the tensor is not whole; as a slice, its layout starts at the first kept row, the slice
/// before it (a negative offset: `0 - skipped`).
#[test]
fn a_descriptor_tile_before_its_tensor_starts_at_its_first_row() {
    let (artifact, text) = common::lower(include_str!("gemm_descriptor_shifted.ttir"), &options(4, true));
    spirv_val("workgroup gemm descriptor", &artifact.words);
    let checked = loop_bodies(&text)[2];
    assert_eq!(count(checked, "OpCooperativeMatrixMulAddKHR"), 1, "{checked}");
    let zero = constant(&text, 0);
    let slice = checked.lines().find(|l| l.contains("OpTensorLayoutSliceNV")).expect("a slice");
    let before_rows = slice.split_whitespace().nth(5).expect("the first offset");
    let definition = checked
        .lines()
        .find(|l| l.starts_with(&format!("{before_rows} = ")))
        .expect("the offset computed in the loop");
    assert!(definition.contains(&format!("OpISub  %4  {zero} ")), "{definition}");
}
