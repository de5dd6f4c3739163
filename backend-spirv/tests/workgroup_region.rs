//! Kernels whose every float tensor lives in workgroup-scope matrices
//! (`cooperative/workgroup_region.rs`): where the device offers reductions, conversions and
//! per-element operations on them (`WorkgroupMatrices::element_operations`), flash attention's
//! loop runs its two dots, its softmax and its row statistics on matrices: no barrier and no
//! workgroup array in the loop, the row maximum and sum reduced along rows, `exp2` and the
//! maximum as per-element functions, `p` converted straight into an operand, the causal mask a
//! per-element function of the row and column.
//!
//! The kernels are the corpus' `tutorial/flash_attn` perf cases as TTIR (`trident compile
//! ../shared/corpus/kernels/flash_attn.py --kernel flash_attn_fwd_kernel --emit ttir
//! --const HEAD_DIM=.. --const BLOCK_M=128 --const BLOCK_N=64 --const CAUSAL=..`): d64 on four
//! warps, d128 on eight, d64 causal on four.

mod common;

use common::{constant, count, id_of, loop_bodies as loops, spirv_val, WorkgroupScope};
use trident_backend_spirv::Options;

const D64: &str = include_str!("flash_attention_d64.ttir");
const D128: &str = include_str!("flash_attention_d128.ttir");
const D64_CAUSAL: &str = include_str!("flash_attention_d64_causal.ttir");
const GEMM_LOOP: &str = include_str!("gemm_loop.ttir");

/// A device like the H100 (`common::nvidia_like`), with (`element_operations`) or without the
/// reductions and conversions.
fn options(num_warps: u32, element_operations: bool) -> Options {
    let scope = if element_operations { WorkgroupScope::ElementOperations } else { WorkgroupScope::Matrices };
    common::nvidia_like(num_warps, scope)
}

/// The id of workgroup-scope matrix type `rows x cols` of component `component` and `usage`.
fn matrix_type(text: &str, component: &str, rows: u32, cols: u32, usage: u32) -> String {
    let constant = |v: u32| constant(text, v);
    let (scope, rows, cols, usage) = (constant(2), constant(rows), constant(cols), constant(usage));
    id_of(text, &format!("OpTypeCooperativeMatrixKHR {component} {scope} {rows} {cols} {usage}"))
}

#[test]
fn flash_attention_runs_its_softmax_on_workgroup_matrices() {
    let (artifact, text) = common::lower(D64, &options(4, true));
    spirv_val("workgroup attention", &artifact.words);
    for wanted in [
        "OpCapability CooperativeMatrixReductionsNV",
        "OpCapability CooperativeMatrixConversionsNV",
        "OpCapability CooperativeMatrixPerElementOperationsNV",
    ] {
        assert!(text.contains(wanted), "no `{wanted}`");
    }
    // The survey, the loop of whole tiles, the checked loop.
    let loops = loops(&text);
    assert_eq!(loops.len(), 3, "{text}");
    let (survey, whole, checked) = (loops[0], loops[1], loops[2]);
    assert!(!survey.contains("OpCooperativeMatrix"), "the survey loads or computes a matrix:\n{survey}");
    for body in [whole, checked] {
        assert_eq!(count(body, "OpCooperativeMatrixMulAddKHR"), 2, "{body}");
        // The row maximum and the row sum; the new maximum and the correction spread over the
        // scores' and the accumulator's 64 columns.
        assert_eq!(count(body, "OpCooperativeMatrixReduceNV"), 4, "{body}");
        // The running maximum, `exp2` of the scores, `exp2` of the correction.
        assert_eq!(count(body, "OpCooperativeMatrixPerElementOpNV"), 3, "{body}");
        // The scale of the scores; `p` into an operand.
        assert_eq!(count(body, "OpMatrixTimesScalar"), 1, "{body}");
        assert_eq!(count(body, "OpFConvert"), 1, "{body}");
        for absent in ["OpControlBarrier", "Workgroup"] {
            assert!(!body.contains(absent), "`{absent}` in the loop:\n{body}");
        }
    }
    // K (64 x 64, B) column-major, V row-major: strided loads in the loop of whole tiles,
    // a transposing view in the checked loop.
    assert_eq!(count(whole, "OpCooperativeMatrixLoadKHR"), 2, "{whole}");
    assert!(checked.contains("TensorAddressingOperands(TENSOR_VIEW)"), "{checked}");
    // The row statistics are 128 x 16 (the granule's width on four warps), the scores 128 x 64.
    let (f32t, f16t) = (id_of(&text, "OpTypeFloat 32"), id_of(&text, "OpTypeFloat 16"));
    let rows = matrix_type(&text, &f32t, 128, 16, 2);
    let scores = matrix_type(&text, &f32t, 128, 64, 2);
    let p = matrix_type(&text, &f16t, 128, 64, 0);
    assert_eq!(count(whole, &format!("OpCooperativeMatrixReduceNV  {rows} ")), 2, "{whole}");
    assert_eq!(count(whole, &format!("OpCooperativeMatrixReduceNV  {scores} ")), 2, "{whole}");
    assert!(whole.contains(&format!("OpFConvert  {p} ")), "{whole}");
    assert!(whole.contains(&format!("OpCooperativeMatrixMulAddKHR  {scores} ")), "{whole}");
    // After the loop: the output stored as a matrix, the log-sum-exp as the first column of the
    // row statistics (a tensor slice: one column kept).
    let after = &text[text.rfind("OpLoopMerge").unwrap()..];
    assert!(after.contains("OpCooperativeMatrixStoreKHR"), "{after}");
    assert!(count(after, "OpCooperativeMatrixStoreTensorNV") >= 2, "{after}");
}

#[test]
fn a_wide_accumulator_takes_the_row_factors_spread_over_its_columns() {
    // d128 on eight warps: the accumulator is 128 x 128, the row statistics 128 x 32 (the granule
    // of 256 invocations), so the correction is spread by a reduction of a row to each column.
    let (artifact, text) = common::lower(D128, &options(8, true));
    spirv_val("workgroup attention d128", &artifact.words);
    let whole = loops(&text)[1];
    let f32t = id_of(&text, "OpTypeFloat 32");
    let accumulator = matrix_type(&text, &f32t, 128, 128, 2);
    let rows = matrix_type(&text, &f32t, 128, 32, 2);
    assert!(whole.contains(&format!("OpCooperativeMatrixReduceNV  {accumulator} ")), "{whole}");
    assert_eq!(count(whole, &format!("OpCooperativeMatrixReduceNV  {rows} ")), 2, "{whole}");
}

#[test]
fn a_causal_mask_is_a_function_of_the_row_and_column() {
    let (artifact, text) = common::lower(D64_CAUSAL, &options(4, true));
    spirv_val("workgroup attention causal", &artifact.words);
    // Two loops (off the diagonal, then on it), each emitted three times.
    let loops = loops(&text);
    assert_eq!(loops.len(), 6);
    // The diagonal block's loop selects with a per-element function: four of them.
    assert_eq!(count(loops[4], "OpCooperativeMatrixPerElementOpNV"), 4, "{}", loops[4]);
    assert_eq!(count(loops[1], "OpCooperativeMatrixPerElementOpNV"), 3, "{}", loops[1]);
    // The function compares the query row (its origin plus the row) with the key column.
    let helpers = &text[text.rfind("OpReturn\n").unwrap()..];
    assert!(helpers.contains("OpSGreaterThanEqual"), "{helpers}");
    // The mask's i1 tensor is not computed.
    assert!(!loops[4].contains("OpSelect"), "{}", loops[4]);
}

#[test]
fn without_reductions_attention_keeps_the_subgroup_path() {
    let (_, text) = common::lower(D64, &options(4, false));
    assert!(!text.contains("OpCooperativeMatrixReduceNV"));
    assert!(text.contains("OpControlBarrier"));
}

#[test]
fn a_gemm_is_planned_as_before() {
    let with = common::lower(GEMM_LOOP, &options(8, true)).0.words;
    let without = common::lower(GEMM_LOOP, &options(8, false)).0.words;
    assert_eq!(with, without);
}

#[test]
fn masked_tiles_with_a_zero_other_are_planned() {
    // An attention whose Q, K, V loads and output store are masked by the sequence length (with
    // `other=0.0`, an f16 constant the loads alone read): the loads read the kept rows and
    // columns as tensor slices where the tile is cut.
    let (artifact, text) = common::lower(include_str!("attention_masked.ttir"), &options(4, true));
    spirv_val("workgroup attention masked", &artifact.words);
    let checked = loops(&text)[2];
    assert_eq!(count(checked, "OpCooperativeMatrixReduceNV"), 4, "{checked}");
    assert_eq!(count(checked, "OpCooperativeMatrixLoadTensorNV"), 2, "{checked}");
}

#[test]
fn a_kernel_that_stores_a_constant_keeps_the_subgroup_path() {
    // The masked attention that also stores `tl.zeros(...)`: a constant is no matrix, so the
    // kernel is not planned (and compiles).
    let (artifact, text) = common::lower(include_str!("attention_stores_zeros.ttir"), &options(4, true));
    spirv_val("attention storing zeros", &artifact.words);
    assert!(!text.contains("OpCooperativeMatrixReduceNV"));
}

#[test]
fn a_descriptor_attention_loads_k_transposed() {
    // The corpus' `flash_attn_desc` at d128 on eight warps: its tiles come from tensor
    // descriptors (64-bit offsets, masks with lower bounds), and `k.T` of the K tile is that
    // tile loaded column-major.
    let (artifact, text) = common::lower(include_str!("flash_attention_desc_d128.ttir"), &options(8, true));
    spirv_val("workgroup attention descriptors", &artifact.words);
    let loops = loops(&text);
    let (whole, checked) = (loops[1], loops[2]);
    assert_eq!(count(whole, "OpCooperativeMatrixMulAddKHR"), 2, "{whole}");
    let column_major = constant(&text, 1);
    let k_load = whole.lines().find(|l| l.contains("OpCooperativeMatrixLoadKHR")).expect("the K load");
    assert_eq!(k_load.split_whitespace().nth(5), Some(column_major.as_str()), "{k_load}");
    assert!(checked.contains("TensorAddressingOperands(TENSOR_VIEW)"), "{checked}");
}

#[test]
fn without_a_granule_for_the_workgroup_attention_keeps_the_subgroup_path() {
    // Four warps are 128 invocations; a device that lists no granule for them.
    let mut no_granule = options(4, true);
    let offered = no_granule.workgroup_matrices.as_mut().expect("workgroup matrices");
    offered.granules.retain(|g| g.invocations != 128);
    let (_, text) = common::lower(D64, &no_granule);
    assert!(!text.contains("OpCooperativeMatrixReduceNV"));
    // A granule of 32 x 32 for them: the 64-wide scores fit, and the row statistics are 32 wide.
    let mut coarse = options(4, true);
    let offered = coarse.workgroup_matrices.as_mut().expect("workgroup matrices");
    for g in offered.granules.iter_mut().filter(|g| g.invocations == 128) {
        g.n = 32;
    }
    let (_, text) = common::lower(D64, &coarse);
    let f32t = id_of(&text, "OpTypeFloat 32");
    let rows = matrix_type(&text, &f32t, 128, 32, 2);
    assert_eq!(count(loops(&text)[1], &format!("OpCooperativeMatrixReduceNV  {rows} ")), 2);
}
