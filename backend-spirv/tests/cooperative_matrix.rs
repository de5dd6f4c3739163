//! f16 `tl.dot` on cooperative matrices in the SPIR-V, where the device has them
//! (`Options::cooperative_matrix_f16`; bf16 likewise with `Options::cooperative_matrix_bf16`): the module declares the Vulkan memory model and the
//! cooperative-matrix capability, stages A and B as f16 in workgroup arrays, and multiplies with
//! `OpCooperativeMatrixMulAddKHR`; without the option the same dot is FMA in a GLSL450 module.
//!
//! The kernel is the TTIR of `tests/kernels/single_dot.py` (`trident compile --emit ttir`, a
//! 64x32 by 32x64 f16 product into f32), on four warps of 32. The cases about how much the dots
//! stage take it as TTGIR (`single_dot.ttgir`, `dot_trans.ttgir`: the TTIR files after the TTGIR
//! pipeline for four warps of 32 and 48 KiB), so that their workgroup memory figures depend on the
//! backend alone, not on the layouts the passes choose. Every module also goes through `spirv-val`
//! where it is installed.

mod common;

use common::{id_of, loop_body, spirv_val};
use trident_backend_spirv::{Mode, Options};

/// `c = tl.dot(a, b)` over 64x32 and 32x64 f16 tiles, stored as f32.
const SINGLE_DOT: &str = include_str!("single_dot.ttir");

/// [`SINGLE_DOT`] after the TTGIR pipeline for four warps of 32 (the dot's result in a 2x4-block
/// register tile, stored from it), written out so that the staging cases below depend only on the
/// backend: their workgroup memory figures follow from these layouts.
const SINGLE_DOT_TTGIR: &str = include_str!("single_dot.ttgir");

/// The options of a device with cooperative matrices, 32-wide subgroups and `limit` bytes of
/// workgroup memory (or, with `cooperative` false, without them).
fn options(cooperative: bool, workgroup_memory_limit: u32) -> Options {
    Options {
        mode: Mode::Vulkan,
        num_warps: 4,
        threads_per_warp: 32,
        subgroup_size: 32,
        workgroup_memory_limit,
        cooperative_matrix_f16: cooperative,
        ..Options::default()
    }
}

/// [`SINGLE_DOT_TTGIR`] emitted on a device with cooperative matrices and `limit` bytes of
/// workgroup memory.
fn emit_single_dot(workgroup_memory_limit: u32) -> (Vec<u32>, String) {
    let (artifact, text) = common::emit_ttgir(SINGLE_DOT_TTGIR, &options(true, workgroup_memory_limit));
    (artifact.words, text)
}

fn lower(cooperative: bool, workgroup_memory_limit: u32) -> (Vec<u32>, String) {
    let (artifact, text) = common::lower(SINGLE_DOT, &options(cooperative, workgroup_memory_limit));
    (artifact.words, text)
}

#[test]
fn an_f16_dot_multiplies_on_cooperative_matrices() {
    let (words, text) = lower(true, 48 * 1024);
    spirv_val("cooperative", &words);
    for wanted in [
        "OpCapability CooperativeMatrixKHR",
        "OpCapability VulkanMemoryModel",
        "OpCapability Float16",
        "OpExtension \"SPV_KHR_cooperative_matrix\"",
        "OpMemoryModel Logical Vulkan",
        "OpCooperativeMatrixMulAddKHR",
        "OpCooperativeMatrixStoreKHR",
        "\"cooperative_a\"",
        "\"cooperative_stage\"",
    ] {
        assert!(text.contains(wanted), "no `{wanted}` in:\n{text}");
    }
    // K = 32: two products per tile, in each band's tile loop.
    let products = text.matches("OpCooperativeMatrixMulAddKHR").count();
    let loops = text.matches("OpCooperativeMatrixStoreKHR").count();
    assert_eq!(products, 2 * loops, "{text}");
    // The accumulator is zeros: each tile starts as them, no load of it from the stage (the
    // loads are each product's A and B tiles).
    assert_eq!(text.matches("OpCooperativeMatrixLoadKHR").count(), 2 * products, "{text}");
}

/// The TTGIR kernel's loads give each thread 8 consecutive elements of a staged row (A: 64x32
/// over 128 threads, 16 each; B: 32x64, 16 each): A and B are written as `f16vec4`, one 8-byte
/// store per 4 elements packed from the loaded bits (two `OpBitFieldInsert` pairs), with no f16
/// element converted or stored alone.
#[test]
fn f16_operands_are_staged_four_elements_a_store() {
    let (words, text) = emit_single_dot(48 * 1024);
    spirv_val("vector staging", &words);
    let id_of = |definition: &str| id_of(&text, definition);
    let f16 = id_of("OpTypeFloat 16");
    let f16vec4 = id_of(&format!("OpTypeVector {f16} 4"));
    // 32 elements per thread: 8 vectors.
    assert_eq!(text.matches(&format!("OpBitcast  {f16vec4} ")).count(), 8, "{text}");
    assert_eq!(text.matches("OpBitFieldInsert").count(), 16, "{text}");
    assert_eq!(text.matches(&format!("OpFConvert  {f16} ")).count(), 0, "{text}");
}

/// [`SINGLE_DOT_TTGIR`] with bf16 operands, emitted on a device with f16 matrices and, where
/// `bfloat16`, bf16 ones (`VK_KHR_shader_bfloat16`).
fn emit_bf16_dot(bfloat16: bool) -> String {
    let ttgir = SINGLE_DOT_TTGIR.replace("f16", "bf16");
    let options = Options { cooperative_matrix_bf16: bfloat16, ..options(true, 48 * 1024) };
    let (artifact, text) = common::emit_ttgir(&ttgir, &options);
    // Debian's spirv-val predates SPV_KHR_bfloat16 as it does cooperative matrices (it says SKIP).
    spirv_val("bf16 dot", &artifact.words);
    text
}

#[test]
fn a_bf16_dot_multiplies_on_bf16_matrices_where_the_device_has_them() {
    let text = emit_bf16_dot(true);
    for wanted in [
        "OpCapability BFloat16TypeKHR",
        "OpCapability BFloat16CooperativeMatrixKHR",
        "OpExtension \"SPV_KHR_bfloat16\"",
        "OpTypeFloat 16 BFloat16KHR",
        "OpCooperativeMatrixMulAddKHR",
    ] {
        assert!(text.contains(wanted), "no `{wanted}` in:\n{text}");
    }
    // A and B are staged as bf16vec4, four values converted from the f32 the operands were
    // widened to and stored at once (32 elements per thread: 8 vectors), and nothing is f16.
    let id_of = |definition: &str| id_of(&text, definition);
    let bf16 = id_of("OpTypeFloat 16 BFloat16KHR");
    let bf16vec4 = id_of(&format!("OpTypeVector {bf16} 4"));
    assert_eq!(text.matches(&format!("OpCompositeConstruct  {bf16vec4} ")).count(), 8, "{text}");
    assert_eq!(text.matches(&format!("OpFConvert  {bf16} ")).count(), 32, "{text}");
    assert!(!text.contains("OpCapability Float16"), "{text}");
}

/// [`SINGLE_DOT_TTGIR`] with fp8 (e4m3) operands, on a device with f16 matrices only (no driver
/// here lists fp8 ones): the dot is staged as f16 (every e4m3 value is one) and multiplied on f16
/// matrices. The codes become f16 bits in integer operations, four at a time: an `f16vec4`
/// scaled by 256 with its NaN lanes selected, without a conversion through f32.
#[test]
fn an_fp8_dot_multiplies_on_f16_matrices() {
    let ttgir = SINGLE_DOT_TTGIR.replace("f16", "f8E4M3FN");
    let (artifact, text) = common::emit_ttgir(&ttgir, &options(true, 48 * 1024));
    spirv_val("fp8 dot", &artifact.words);
    assert!(text.contains("OpCooperativeMatrixMulAddKHR"), "{text}");
    let f16 = id_of(&text, "OpTypeFloat 16");
    let f16vec4 = id_of(&text, &format!("OpTypeVector {f16} 4"));
    // 32 elements per thread: 8 vectors, each bitcast from packed bits, scaled, NaNs selected.
    assert_eq!(text.matches(&format!("OpBitcast  {f16vec4} ")).count(), 8, "{text}");
    assert_eq!(text.matches(&format!("OpFMul  {f16vec4} ")).count(), 8, "{text}");
    assert_eq!(text.matches(&format!("OpSelect  {f16vec4} ")).count(), 8, "{text}");
    assert_eq!(text.matches(&format!("OpFConvert  {f16} ")).count(), 0, "{text}");
}

/// e5m2 codes are the top bytes of the same f16s: shifted into place, bitcast, nothing scaled.
#[test]
fn an_fp8e5_dot_stages_its_codes_as_f16_top_bytes() {
    let ttgir = SINGLE_DOT_TTGIR.replace("f16", "f8E5M2");
    let (artifact, text) = common::emit_ttgir(&ttgir, &options(true, 48 * 1024));
    spirv_val("fp8e5 dot", &artifact.words);
    let f16 = id_of(&text, "OpTypeFloat 16");
    let f16vec4 = id_of(&text, &format!("OpTypeVector {f16} 4"));
    assert_eq!(text.matches(&format!("OpBitcast  {f16vec4} ")).count(), 8, "{text}");
    assert_eq!(text.matches(&format!("OpFMul  {f16vec4} ")).count(), 0, "{text}");
    assert!(text.contains("OpCooperativeMatrixMulAddKHR"), "{text}");
}

#[test]
fn a_bf16_dot_is_fma_on_a_device_with_f16_matrices_only() {
    let text = emit_bf16_dot(false);
    assert!(!text.contains("Cooperative"), "{text}");
    assert!(!text.contains("BFloat16"), "{text}");
}

#[test]
fn without_the_device_feature_the_dot_is_fma() {
    let (words, text) = lower(false, 48 * 1024);
    spirv_val("fma", &words);
    assert!(!text.contains("Cooperative"), "cooperative matrices without the feature:\n{text}");
    assert!(text.contains("OpMemoryModel Logical GLSL450"), "{text}");
}

/// Where A, B and a band of the accumulator do not fit in the workgroup memory even at their
/// smallest (a chunk of 16 of K, 16 rows: 9.5 KiB), the dot stays on the FMA path (in a module
/// that still declares the memory model it chose before emission).
#[test]
fn a_dot_whose_staging_does_not_fit_is_fma() {
    let (words, text) = emit_single_dot(9 * 1024);
    spirv_val("small workgroup memory", &words);
    assert!(!text.contains("OpCooperativeMatrixMulAddKHR"), "{text}");
}

/// [`SINGLE_DOT_TTGIR`] with B loaded along K (its layout gives a thread 8 consecutive rows of
/// B, none of a row): B is staged column-major, still four elements a store, and its tiles are
/// loaded as column-major matrices (A's stay row-major).
#[test]
fn a_b_operand_held_along_k_is_staged_column_major() {
    let rows = "sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]";
    let columns = "sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]";
    assert!(SINGLE_DOT_TTGIR.contains(rows), "B's layout in the TTGIR changed");
    let ttgir = SINGLE_DOT_TTGIR.replace(rows, columns);
    let (artifact, text) = common::emit_ttgir(&ttgir, &options(true, 48 * 1024));
    spirv_val("column-major B", &artifact.words);
    let id_of = |definition: &str| id_of(&text, definition);
    let (uint, f16) = (id_of("OpTypeInt 32 0"), id_of("OpTypeFloat 16"));
    let f16vec4 = id_of(&format!("OpTypeVector {f16} 4"));
    let (row_major, column_major) =
        (id_of(&format!("OpConstant  {uint}  0")), id_of(&format!("OpConstant  {uint}  1")));
    let loads: Vec<&str> = text.lines().filter(|line| line.contains("OpCooperativeMatrixLoadKHR")).collect();
    let layout = |line: &str| line.split_whitespace().nth(5).unwrap().to_string();
    let columns = loads.iter().filter(|line| layout(line) == column_major).count();
    let rows = loads.iter().filter(|line| layout(line) == row_major).count();
    // K = 32: each of the tile loops' products loads one A tile (row-major) and one B tile.
    assert_eq!((rows, columns), (loads.len() / 2, loads.len() / 2), "{text}");
    assert_eq!(text.matches(&format!("OpBitcast  {f16vec4} ")).count(), 8, "{text}");
}

/// [`SINGLE_DOT`] storing the transposed product (`dot_trans.ttir` after the TTGIR pipeline, as
/// [`SINGLE_DOT_TTGIR`]): the transpose goes through workgroup memory (16 KiB for 64x64 f32),
/// which is known only after the dot is lowered.
const DOT_THEN_TRANSPOSE: &str = include_str!("dot_trans.ttgir");

/// Where the staging fits when the dot is lowered but not beside the workgroup memory the rest of
/// the kernel turns out to need, the module is emitted again leaving the rest more (smaller
/// chunks of K), and at last with every dot on the FMA path, rather than failing.
#[test]
fn a_kernel_whose_workgroup_memory_overflows_with_the_staging_takes_fma() {
    let lower = |limit: u32| {
        let (artifact, text) = common::emit_ttgir(DOT_THEN_TRANSPOSE, &options(true, limit));
        spirv_val("dot then transpose", &artifact.words);
        (artifact.workgroup_memory_bytes, text.contains("OpCooperativeMatrixMulAddKHR"))
    };
    // Rows of A, B and the stage are padded by 16 bytes (bank spread for matrix loads).
    // 44 KiB: the staging (26.5 KiB: A 64x(32+8) and B 32x(64+8) f16, all 64 rows of the
    // accumulator at 64+4 f32) and the transpose (16 KiB) fit together.
    assert_eq!(lower(44 * 1024), (43520, true));
    // 26 KiB: the dot's own check passes (K whole, bands of 32 rows: 18 KiB; the first try
    // leaves nothing to the rest of the kernel), the kernel's total does not; emitted again leaving 16 KiB, the dot stages K in two chunks and
    // bands of 16 rows (9.5 KiB) and fits.
    assert_eq!(lower(26 * 1024), (16 * 1024 + 9728, true));
    // 24 KiB: nothing smaller leaves the transpose its 16 KiB (a band holds at least the 16 rows
    // the accumulator's threads reach): the dot is FMA.
    assert_eq!(lower(24 * 1024), (16 * 1024, false));
}

/// Where A and B of the whole K do not fit beside the accumulator's band, K is staged in chunks
/// (here two of 16, in 12 KiB): each chunk
/// multiplies every band's tiles once, with one product per tile (two, for the two steps of 16
/// of the whole K, where it fits).
#[test]
fn k_is_staged_in_chunks_where_it_does_not_fit_whole() {
    let (_, whole) = emit_single_dot(48 * 1024);
    let (words, chunked) = emit_single_dot(12 * 1024);
    spirv_val("chunked", &words);
    let count = |text: &str, what: &str| text.matches(what).count();
    let bands = |text: &str| 64 / stage_rows(text, 64);
    assert_eq!(count(&whole, "OpCooperativeMatrixStoreKHR"), bands(&whole), "{whole}");
    assert_eq!(count(&whole, "OpCooperativeMatrixMulAddKHR"), 2 * bands(&whole), "{whole}");
    assert_eq!(count(&chunked, "OpCooperativeMatrixStoreKHR"), 2 * bands(&chunked), "{chunked}");
    assert_eq!(count(&chunked, "OpCooperativeMatrixMulAddKHR"), 2 * bands(&chunked), "{chunked}");
}

/// The accumulator's bands are as tall as the workgroup memory allows: all 64 rows in one band
/// where A, B and the whole accumulator fit (17 KiB of f32 beside 9.5 KiB of f16 operands, rows
/// padded), in bands of 32 rows (twice the 16 the layout's threads reach) where only that fits
/// beside them (20 KiB).
#[test]
fn bands_grow_to_the_memory_left() {
    let (_, roomy) = emit_single_dot(48 * 1024);
    assert_eq!(stage_rows(&roomy, 64), 64);
    let (_, tight) = emit_single_dot(20 * 1024);
    assert_eq!(stage_rows(&tight, 64), 32, "{tight}");
}

/// A GEMM's K loop (`tutorial/matmul` of the corpus at 64x64x32 on four warps, `trident compile
/// ... --emit ttir`): `acc = tl.dot(a, b, acc)` with `acc` carried by the loop.
const MATMUL_LOOP: &str = include_str!("matmul_loop.ttir");

/// The loop carries its accumulator in the subgroups' matrices: the zero splat becomes matrices
/// before the loop, the body multiplies into them without moving an accumulator element through
/// workgroup memory (no matrix store, no accumulator load), and the exit stores them once.
#[test]
fn a_loop_carries_its_accumulator_in_matrices() {
    let options = Options {
        mode: Mode::Vulkan,
        num_warps: 4,
        threads_per_warp: 32,
        subgroup_size: 32,
        workgroup_memory_limit: 48 * 1024,
        cooperative_matrix_f16: true,
        ..Options::default()
    };
    let (artifact, text) = common::lower(MATMUL_LOOP, &options);
    spirv_val("carried accumulator", &artifact.words);
    let body = loop_body(&text);
    let count = |text: &str, what: &str| text.matches(what).count();
    // 64x64 on four subgroups: blocks of 2x2 tiles; K = 32 is two steps of 16 for each.
    assert_eq!(count(body, "OpCooperativeMatrixMulAddKHR"), 2 * 4, "{body}");
    assert_eq!(count(body, "OpCooperativeMatrixLoadKHR"), 2 * (2 + 2), "{body}");
    assert_eq!(count(body, "OpCooperativeMatrixStoreKHR"), 0, "{body}");
    // Before the loop: the zero splat becomes the matrices, without a load.
    let before = &text[..text.find("OpLoopMerge").unwrap()];
    assert_eq!(count(before, "OpCooperativeMatrixLoadKHR"), 0, "{before}");
    assert!(before.contains("OpCompositeConstruct"), "{before}");
    // The exit: each matrix stored once, in the band of rows it lies in.
    let bands = 64 / stage_rows(&text, 64);
    assert_eq!(count(&text, "OpCooperativeMatrixStoreKHR"), 4 * bands, "{text}");
}

/// The rows of `n` columns the `cooperative_stage` array holds: each is padded by 4 f32 (16 bytes,
/// to spread a matrix load's rows over the banks), so its elements are a multiple of `n + 4`.
fn stage_rows(text: &str, n: usize) -> usize {
    let words = stage_words(text);
    assert_eq!(words % (n + 4), 0, "a stage of {words} f32 is not whole padded rows of {n}");
    words / (n + 4)
}

/// The f32 elements of the `cooperative_stage` array (from its declaration: name, variable,
/// pointer type, array type, length constant).
fn stage_words(text: &str) -> usize {
    let defined = |id: &str| {
        let line = text.lines().find(|line| line.starts_with(&format!("{id} = "))).expect(id);
        line.split_whitespace().map(str::to_string).collect::<Vec<_>>()
    };
    let named = text.lines().find(|line| line.ends_with("\"cooperative_stage\"")).expect("the stage");
    let variable = named.split_whitespace().nth(1).unwrap();
    let pointer = defined(variable)[3].clone();
    let array = defined(&pointer)[4].clone();
    let length = defined(&array)[4].clone();
    defined(&length)[4].parse().expect("a length")
}

/// Flash attention's forward loop (the corpus' `flash_attn.py` at 64x32 blocks and head dim 64,
/// `trident compile --emit ttir`): `acc = tl.dot(p, v, acc * alpha[:, None])`, its output
/// accumulator scaled by rows before every dot.
const FLASH_LOOP: &str = include_str!("flash_loop.ttir");

/// The causal kernel at the corpus' performance shape for head dim 128 (128x64 blocks on eight
/// warps): two loops (the blocks below the diagonal, then the masked diagonal one), each scaling
/// its accumulator, whose factors change layout between their expansion and their broadcast.
const FLASH_LOOP_D128: &str = include_str!("flash_loop_d128.ttir");

fn flash_loop(per_element: bool) -> String {
    emit_flash(FLASH_LOOP, 4, per_element)
}

fn emit_flash(ttir: &str, num_warps: u32, per_element: bool) -> String {
    emit_flash_artifact(ttir, num_warps, per_element).1
}

fn emit_flash_artifact(
    ttir: &str,
    num_warps: u32,
    per_element: bool,
) -> (trident_backend_spirv::Artifact, String) {
    let options =
        Options { num_warps, cooperative_matrix_per_element: per_element, ..options(true, 48 * 1024) };
    let (artifact, text) = common::lower(ttir, &options);
    spirv_val("flash loop", &artifact.words);
    (artifact, text)
}

/// Where the device runs per-element operations on matrices, the loop carries the rescaled
/// accumulator in them: each of a subgroup's matrices is scaled in place by a function reading
/// its rows' factors from workgroup memory, and only the first dot's (a fresh product's) tiles
/// are stored in the loop; without them the accumulator goes through the stage at every dot.
#[test]
fn a_loop_that_scales_its_accumulators_rows_carries_it_where_matrices_have_per_element_operations() {
    let text = flash_loop(true);
    for wanted in
        ["OpCapability CooperativeMatrixPerElementOperationsNV", "OpExtension \"SPV_NV_cooperative_matrix2\""]
    {
        assert!(text.contains(wanted), "no `{wanted}` in:\n{text}");
    }
    let count = |text: &str, what: &str| text.matches(what).count();
    let body = loop_body(&text);
    // 64x64 of output on four subgroups: 2x2 tiles each, each scaled once per iteration.
    assert_eq!(count(body, "OpCooperativeMatrixPerElementOpNV"), 4, "{body}");
    // One function scales: (row, column, element, first row) -> element * factor.
    assert_eq!(count(&text, "OpFunctionParameter"), 4, "{text}");
    let plain = flash_loop(false);
    let plain_body = loop_body(&plain);
    assert_eq!(count(plain_body, "OpCooperativeMatrixPerElementOpNV"), 0);
    assert!(!plain.contains("CooperativeMatrixPerElementOperationsNV"));
    // The stores of accumulator tiles in the loop: the scores' only, where the output is carried.
    let (stores, plain_stores) =
        (count(body, "OpCooperativeMatrixStoreKHR"), count(plain_body, "OpCooperativeMatrixStoreKHR"));
    assert!(stores > 0 && stores < plain_stores, "{stores} stores in the loop, {plain_stores} without");
}

/// At head dim 128 on eight warps, causal: 128x128 of output, 2x4 tiles a subgroup, each scaled
/// in place in both loops; the factors' layout conversion is not lowered (nothing reads it). The
/// carried dots' staging is reserved at their loops' entry, so the loops' other dots (the scores)
/// are planned beside it: every dot stays on matrices within 48 KiB (planned after them, it
/// left the scores no room and sent every dot to FMA).
#[test]
fn scaled_accumulators_are_carried_past_a_layout_conversion_of_their_factors() {
    let count = |text: &str, what: &str| text.matches(what).count();
    let (artifact, text) = emit_flash_artifact(FLASH_LOOP_D128, 8, true);
    assert_eq!(count(&text, "OpCooperativeMatrixPerElementOpNV"), 2 * 8, "{text}");
    let body = loop_body(&text);
    assert_eq!(count(body, "OpCooperativeMatrixPerElementOpNV"), 8, "{body}");
    let (plain_artifact, plain) = emit_flash_artifact(FLASH_LOOP_D128, 8, false);
    let products = count(&plain, "OpCooperativeMatrixMulAddKHR");
    assert!(products > 0);
    assert_eq!(count(&text, "OpCooperativeMatrixMulAddKHR"), products, "every dot on matrices");
    assert!(artifact.workgroup_memory_bytes <= 48 * 1024);
    assert!(plain_artifact.workgroup_memory_bytes <= 48 * 1024);
    let plain_body = loop_body(&plain);
    let (stores, plain_stores) =
        (count(body, "OpCooperativeMatrixStoreKHR"), count(plain_body, "OpCooperativeMatrixStoreKHR"));
    assert!(stores > 0 && stores < plain_stores, "{stores} stores in the loop, {plain_stores} without");
}
