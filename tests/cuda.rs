//! The nvptx backend and the CUDA device through the `trident` binary: what happens without a
//! GPU (clear errors, never a panic), `check`'s comparison (proved with a perturbed element), PTX
//! and cubin output, and the hand-written-PTX self-test on a GPU.
//!
//! Tests that need a CUDA GPU print `SKIP <name>: no CUDA GPU (<reason>)` when there is none,
//! unless `TRIDENT_REQUIRE_DEVICES` (comma-separated) names `nvptx` or `cuda`: then they fail.

mod common;

use common::{
    agreeing_backends, example_flags, required, scratch_dir, show_skip, stderr, stdout, trident,
    trident_with_env, write_npy, EXAMPLE,
};

/// `None` when `trident devices` lists a CUDA GPU, else why not.
fn no_gpu_reason() -> Option<String> {
    let listing = stdout(&trident(&["devices"]));
    let line = listing.lines().find(|l| l.starts_with("nvptx"))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.get(1) == Some(&"available") {
        None
    } else {
        Some(words.get(2..).unwrap_or_default().join(" "))
    }
}

/// Prints SKIP (or fails under `TRIDENT_REQUIRE_DEVICES`) when there is no GPU.
fn require_gpu(test: &str) -> bool {
    match no_gpu_reason() {
        None => true,
        Some(reason) => {
            assert!(
                !required(&["nvptx", "cuda"]),
                "{test}: TRIDENT_REQUIRE_DEVICES asks for a CUDA GPU, but: {reason}"
            );
            show_skip(&format!("SKIP {test}: no CUDA GPU ({reason})"));
            false
        }
    }
}

#[test]
fn nvptx_without_a_gpu_fails_clearly() {
    let Some(reason) = no_gpu_reason() else {
        show_skip("SKIP nvptx_without_a_gpu_fails_clearly: this machine has a CUDA GPU");
        return;
    };
    for verb in ["run", "bench", "check"] {
        let mut args = vec![verb, EXAMPLE];
        args.extend(example_flags());
        args.extend(["--backend", "nvptx"]);
        let output = trident(&args);
        assert_eq!(output.status.code(), Some(1), "{verb}: {}", stderr(&output));
        let text = stderr(&output);
        assert!(
            text.contains("--backend nvptx needs a CUDA GPU") && text.contains(&reason),
            "{verb}: {text}"
        );
        assert!(!text.contains("panicked"), "{text}");
    }
}

#[test]
fn bad_cuda_device_variable_is_reported() {
    let mut args = vec!["run", EXAMPLE];
    args.extend(example_flags());
    args.extend(["--backend", "nvptx"]);
    let output = trident_with_env(&args, &[("TRIDENT_CUDA_DEVICE", "first")]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stderr(&output).contains("TRIDENT_CUDA_DEVICE=first"), "{}", stderr(&output));
}

#[test]
fn check_catches_a_perturbed_element() {
    let mut args = vec!["check", EXAMPLE];
    args.extend(example_flags());
    args.extend(["--backend", "interp", "--perturb", "interp:output_ptr:7"]);
    let output = trident(&args);
    assert_eq!(output.status.code(), Some(1), "{}\n{}", stdout(&output), stderr(&output));
    let table = stdout(&output);
    let row = table.lines().find(|l| l.starts_with("interp#2") && l.contains("output_ptr"));
    let row = row.unwrap_or_else(|| panic!("no interp#2 output_ptr row in:\n{table}"));
    let fields: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(fields[fields.len() - 2..], ["1/1000", "7"], "{row}");
    // The untouched buffers agree.
    assert!(table.lines().any(|l| l.starts_with("interp#2") && l.contains("x_ptr") && l.contains("0/1000")));
    let text = stderr(&output);
    assert!(text.contains("disagrees with interp on output_ptr") && text.contains("index 7"), "{text}");
}

#[test]
fn check_with_tolerance_overrides_and_bad_perturbations() {
    // A perturbation larger than the tolerance is still caught with a generous --atol only
    // when it exceeds it: output_ptr[7] moves by |x|+1, far below 1e9.
    let mut args = vec!["check", EXAMPLE];
    args.extend(example_flags());
    args.extend(["--backend", "interp", "--perturb", "interp:output_ptr:7", "--atol", "1e9"]);
    let output = trident(&args);
    assert!(output.status.success(), "{}\n{}", stdout(&output), stderr(&output));

    for (perturb, needle) in [
        ("interp:output_ptr:1000", "no element 1000"),
        ("interp:nothing:0", "no buffer named nothing"),
        ("interp:output_ptr", "BACKEND:BUFFER:INDEX"),
        ("spirv:output_ptr:0", "did not run"),
    ] {
        let mut args = vec!["check", EXAMPLE];
        args.extend(example_flags());
        args.extend(["--backend", "interp", "--perturb", perturb]);
        let output = trident(&args);
        assert_eq!(output.status.code(), Some(2), "{perturb}: {}", stderr(&output));
        assert!(stderr(&output).contains(needle), "{perturb}: {}", stderr(&output));
    }
}

/// The emitter is being written: `--emit ptx` gives PTX or the backend's clear error, never a
/// panic or an internal error.
#[test]
fn compile_emits_ptx_or_says_what_is_not_supported() {
    for target in ["sm_80", "sm_90a"] {
        let mut args = vec!["compile", EXAMPLE];
        args.extend(example_flags());
        args.extend(["--emit", "ptx", "--target", target]);
        let output = trident(&args);
        let text = stdout(&output);
        match output.status.code() {
            Some(0) => {
                let start = text.trim_start();
                assert!(
                    start.starts_with("//") || start.starts_with(".version"),
                    "{target}: not PTX:\n{text}"
                );
                assert!(text.contains(".entry"), "{target}: no .entry in:\n{text}");
            }
            Some(1) => {
                let error = stderr(&output);
                assert!(error.contains("the nvptx backend does not support"), "{target}: {error}");
                assert!(!error.contains("internal compiler error"), "{target}: {error}");
            }
            code => panic!("{target}: exit {code:?}:\n{}", stderr(&output)),
        }
    }
}

/// A cubin needs -o; with it, the PTX goes through ptxas when both exist.
#[test]
fn compile_cubin_through_ptxas() {
    let mut args = vec!["compile", EXAMPLE];
    args.extend(example_flags());
    args.extend(["--emit", "cubin"]);
    let output = trident(&args);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("give -o FILE"), "{}", stderr(&output));

    let dir = scratch_dir("cuda-cubin");
    let cubin = dir.join("add_kernel.cubin");
    args.extend(["--target", "sm_90a", "--verbose", "-o", cubin.to_str().unwrap()]);
    let output = trident(&args);
    let error = stderr(&output);
    if output.status.success() {
        assert!(std::fs::metadata(&cubin).map(|m| m.len() > 0).unwrap_or(false), "no cubin written");
        assert!(stdout(&output).contains("registers"), "{}", stdout(&output));
    } else if error.contains("does not support") || error.contains("ptxas not found") {
        show_skip(&format!(
            "SKIP compile_cubin_through_ptxas (assembly): {}",
            error.lines().next().unwrap_or_default()
        ));
    } else {
        panic!("--emit cubin failed:\n{error}");
    }
}

/// The CUDA device path with hand-written PTX, in its own process (the self-test ends with a
/// deliberate illegal address).
#[test]
fn selftest_cuda_runs_or_skips() {
    let output = trident(&["selftest-cuda"]);
    let text = stdout(&output);
    if !require_gpu("selftest_cuda_runs_or_skips") {
        assert!(output.status.success(), "{}", stderr(&output));
        assert!(text.starts_with("SKIP selftest-cuda: no CUDA GPU ("), "{text}");
        let required = trident_with_env(&["selftest-cuda"], &[("TRIDENT_REQUIRE_DEVICES", "interp,nvptx")]);
        assert_eq!(required.status.code(), Some(1), "{}", stdout(&required));
        return;
    }
    assert!(output.status.success(), "{text}\n{}", stderr(&output));
    assert!(text.contains("selftest-cuda: PASS") && text.contains("ok illegal address"), "{text}");
}

/// On a GPU, `check` compares nvptx with interp (once the emitter compiles the example, the
/// nvptx rows must agree).
#[test]
fn check_compares_nvptx_with_interp() {
    if !require_gpu("check_compares_nvptx_with_interp") {
        return;
    }
    let mut args = vec!["check", EXAMPLE];
    args.extend(example_flags());
    let output = trident(&args);
    let table = stdout(&output);
    let nvptx_rows: Vec<&str> = table.lines().filter(|l| l.starts_with("nvptx")).collect();
    assert!(!nvptx_rows.is_empty(), "{table}");
    if nvptx_rows.iter().any(|l| l.contains("FAILED")) && stderr(&output).contains("does not support") {
        show_skip("SKIP check_compares_nvptx_with_interp: the emitter does not compile the example yet");
        return;
    }
    assert!(output.status.success(), "{table}\n{}", stderr(&output));
}

/// The descriptor kernels of tests/kernels/descriptor_matmul.py: on sm_90a their descriptors
/// become tensor maps and TMA copies waited on with mbarriers; on sm_80 (no TMA) they become
/// pointers. The scale kernel's maps depend on its arguments alone: the runtime encodes them on
/// the host and passes them as parameters (`.param .align 64 .b8 [128]`, read through their
/// generic address); the band kernel's start at each program's rows, and each program builds
/// them in global scratch (`tensormap.replace`).
#[test]
fn tensor_descriptors_use_tma_on_sm_90a_only() {
    let compile = |kernel: &str, target: &str| {
        let output = trident(
            &[
                "compile",
                DESCRIPTOR_KERNELS,
                "--kernel",
                kernel,
                "--emit",
                "ptx",
                "--target",
                target,
                "--arg",
                "x_ptr=*fp32",
                "--arg",
                "y_ptr=*fp32",
            ]
            .into_iter()
            .chain(SCALE_FLAGS)
            .collect::<Vec<_>>(),
        );
        assert!(output.status.success(), "{kernel} for {target}: {}", stderr(&output));
        stdout(&output)
    };
    let host = compile("descriptor_scale_kernel", "sm_90a");
    for needle in [
        ".param .align 64 .b8 descriptor_scale_kernel_param_map0[128]",
        ".param .align 64 .b8 descriptor_scale_kernel_param_map1[128]",
        "cvta.param.u64",
        "cp.async.bulk.tensor.2d",
        "mbarrier.try_wait.parity",
    ] {
        assert!(host.contains(needle), "sm_90a PTX of the scale kernel lacks {needle}:\n{host}");
    }
    assert!(!host.contains("tensormap.replace") && !host.contains("_param_scratch"), "{host}");
    let device = compile("descriptor_band_kernel", "sm_90a");
    for needle in ["tensormap.replace.tile.global_address", "_param_scratch", "cp.async.bulk.tensor.2d"] {
        assert!(device.contains(needle), "sm_90a PTX of the band kernel lacks {needle}:\n{device}");
    }
    assert!(!device.contains("_param_map"), "{device}");
    for kernel in ["descriptor_scale_kernel", "descriptor_band_kernel"] {
        let ampere = compile(kernel, "sm_80");
        assert!(
            !ampere.contains("cp.async.bulk")
                && !ampere.contains("_param_map")
                && !ampere.contains("_param_scratch"),
            "{ampere}"
        );
    }
}

/// Tensor-descriptor loads and stores through TMA on the GPU, with blocks overhanging the tensor
/// on both axes (zeros read, nothing written there), agree with interp: with maps encoded on the
/// host (the scale kernel) and built by each program (the band kernel).
#[test]
fn tensor_descriptors_through_tma_agree_with_interp() {
    if !require_gpu("tensor_descriptors_through_tma_agree_with_interp") {
        return;
    }
    for kernel in ["descriptor_scale_kernel", "descriptor_band_kernel"] {
        descriptors_agree_with_interp(kernel);
    }
}

fn descriptors_agree_with_interp(kernel: &str) {
    use trident_midend::ir::DType;
    let dir = scratch_dir(&format!("cuda-descriptors-{kernel}"));
    let (rows, cols) = (100usize, 96usize);
    let x: Vec<u8> =
        (0..rows * cols).flat_map(|i| (((i * 37) % 101) as f32 / 10.0 - 5.0).to_le_bytes()).collect();
    let y: Vec<u8> = (0..rows * cols).flat_map(|_| 7.0f32.to_le_bytes()).collect();
    let x_arg = write_npy(&dir, "x_ptr", DType::F32, x);
    let y_arg = write_npy(&dir, "y_ptr", DType::F32, y);
    let output = trident(
        &["check", DESCRIPTOR_KERNELS, "--kernel", kernel, "--grid", "4,2", "--arg", &x_arg, "--arg", &y_arg]
            .into_iter()
            .chain(SCALE_FLAGS)
            .collect::<Vec<_>>(),
    );
    assert_nvptx_agrees(&output);
}

/// tests/kernels/gather.py on the GPU agrees exactly with interp: `tl.gather` along either axis
/// (through shared memory, each element read at its own index), f32 with i32 indices and f16
/// with i64 ones.
#[test]
fn gather_agrees_with_interp_on_the_gpu() {
    if !require_gpu("gather_agrees_with_interp_on_the_gpu") {
        return;
    }
    use trident_midend::ir::DType;
    let dir = scratch_dir("cuda-gather");
    for (axis, rows, cols, element, index_dtype) in
        [(0usize, 4usize, 16usize, DType::F32, DType::I32), (1, 8, 32, DType::F16, DType::I64)]
    {
        let along = if axis == 0 { 8 } else { 16 };
        let src: Vec<u8> = (0..128u32)
            .flat_map(|i| match element {
                DType::F16 => half::f16::from_f32(i as f32 * 0.25).to_le_bytes().to_vec(),
                _ => (i as f32 * 0.25).to_le_bytes().to_vec(),
            })
            .collect();
        let index: Vec<u8> = (0..rows * cols)
            .flat_map(|n| {
                (((n * 7919 + 3) % along) as i64).to_le_bytes()[..index_dtype.size_bytes()].to_vec()
            })
            .collect();
        let case = dir.join(format!("axis{axis}"));
        std::fs::create_dir_all(&case).unwrap();
        let args = [
            write_npy(&case, "src_ptr", element, src),
            write_npy(&case, "index_ptr", index_dtype, index),
            write_npy(&case, "out_ptr", element, vec![0; rows * cols * element.size_bytes()]),
        ];
        let consts = [
            "SRC_ROWS=8".to_string(),
            "SRC_COLS=16".to_string(),
            format!("ROWS={rows}"),
            format!("COLS={cols}"),
            format!("AXIS={axis}"),
        ];
        let mut command =
            vec!["check", "tests/kernels/gather.py", "--kernel", "gather_kernel", "--grid", "1"];
        command.extend(["--backend", "nvptx", "--atol", "0", "--rtol", "0"]);
        for c in &consts {
            command.extend(["--const", c.as_str()]);
        }
        for arg in &args {
            command.extend(["--arg", arg.as_str()]);
        }
        assert_nvptx_agrees(&trident(&command));
    }
}

/// That a `trident check` run succeeded and found nvptx agreeing with interp.
fn assert_nvptx_agrees(output: &std::process::Output) {
    let table = stdout(output);
    assert!(output.status.success(), "{table}\n{}", stderr(output));
    assert!(agreeing_backends(&table).contains(&"nvptx"), "{table}");
}

const DESCRIPTOR_KERNELS: &str = "tests/kernels/descriptor_matmul.py";

/// The block shape and scalar arguments of `descriptor_scale_kernel` in the tests above.
const SCALE_FLAGS: [&str; 10] = [
    "--const",
    "BLOCK_R=32",
    "--const",
    "BLOCK_C=64",
    "--arg",
    "R=100",
    "--arg",
    "C=96",
    "--arg",
    "scale=2.5",
];

/// tests/kernels/attn_fwd.py, the fused attention forward of Triton's tutorial 06 (descriptors
/// made in the kernel), on the GPU agrees with interp: STAGE 1 (full) and 3 (causal),
/// `warp_specialize` on and off (on, a producer warpgroup issues the TMA copies), fp16 (HEAD_DIM 128, 8
/// warps: warpgroup MMAs fed by TMA on sm_90a) and fp8 e5m2 (HEAD_DIM 64, 4 warps), and the
/// accumulator split the kernel takes when `IS_HOPPER` is false. One batch of two heads of 256
/// rows, blocks of 128 x 64: the causal programs run both loops.
///
/// `check` compares fp8 buffers exactly by default, and the GPU sums and exponentiates in another
/// order than interp, so an fp8 `O` may round to the neighbouring e5m2 value (P is rounded to
/// e5m2 too): the fp8 rows accept one step (`max_ulp` 1) where `check`'s default would fail. M
/// (f32) must be within 2e-3 (the acceptance corpus's absolute tolerance for it), every other
/// buffer within `check`'s tolerance.
#[test]
fn attn_fwd_agrees_with_interp_on_the_gpu() {
    use trident_midend::ir::DType;
    const TEST: &str = "attn_fwd_agrees_with_interp_on_the_gpu";
    if !require_gpu(TEST) {
        return;
    }
    let dir = scratch_dir("cuda-attn-fwd");
    let (heads, n_ctx) = (2usize, 256usize);
    // (STAGE, warp_specialize, FP8_OUTPUT, IS_HOPPER).
    let mut cases = Vec::new();
    for stage in [1, 3] {
        for warp_specialize in [false, true] {
            for fp8 in [false, true] {
                cases.push((stage, warp_specialize, fp8, true));
            }
        }
    }
    cases.push((3, true, false, false));
    for (stage, warp_specialize, fp8, is_hopper) in cases {
        let label =
            format!("STAGE={stage} warp_specialize={warp_specialize} FP8_OUTPUT={fp8} IS_HOPPER={is_hopper}");
        let (head_dim, num_warps) = if fp8 { (64usize, "4") } else { (128, "8") };
        let elements = heads * n_ctx * head_dim;
        let (element, suffix) = if fp8 { (DType::F8E5M2, ":fp8e5") } else { (DType::F16, "") };
        let case_dir = dir.join(format!("s{stage}-ws{warp_specialize}-fp8{fp8}-hopper{is_hopper}"));
        std::fs::create_dir_all(&case_dir).unwrap();
        let mut args = Vec::new();
        for (seed, name) in [(1u64, "q_ptr"), (2, "k_ptr"), (3, "v_ptr")] {
            args.push(write_npy(&case_dir, name, element, attn_input(seed, elements, fp8)) + suffix);
        }
        args.push(write_npy(&case_dir, "o_ptr", element, vec![0; elements * element.size_bytes()]) + suffix);
        args.push(write_npy(&case_dir, "M", DType::F32, vec![0; heads * n_ctx * 4]));
        let python_bool = |flag: bool| if flag { "True" } else { "False" };
        let flags = [
            format!("HEAD_DIM={head_dim}"),
            "BLOCK_M=128".to_string(),
            "BLOCK_N=64".to_string(),
            format!("FP8_OUTPUT={}", python_bool(fp8)),
            format!("STAGE={stage}"),
            format!("warp_specialize={}", python_bool(warp_specialize)),
            format!("IS_HOPPER={}", python_bool(is_hopper)),
        ];
        let scalars = [
            format!("sm_scale={}", 1.0 / (head_dim as f64).sqrt()),
            "Z=1".to_string(),
            format!("H={heads}"),
            format!("N_CTX={n_ctx}"),
        ];
        let grid = format!("{},{heads}", n_ctx / 128);
        let mut command = vec!["check", "tests/kernels/attn_fwd.py", "--kernel", "_attn_fwd", "--backend"];
        command.extend(["nvptx", "--grid", &grid, "--num-warps", num_warps, "--num-stages", "3"]);
        for flag in &flags {
            command.extend(["--const", flag.as_str()]);
        }
        for arg in scalars.iter().chain(&args) {
            command.extend(["--arg", arg.as_str()]);
        }
        let output = trident(&command);
        let table = stdout(&output);
        let context = format!("{label}:\n{table}\n{}", stderr(&output));
        let rows: Vec<Vec<&str>> = table
            .lines()
            .filter(|line| line.starts_with("nvptx"))
            .map(|line| line.split_whitespace().collect())
            .collect();
        assert!(rows.iter().all(|row| row.len() == 8), "nvptx did not run: {context}");
        for buffer in ["o_ptr", "M", "q_ptr"] {
            assert!(rows.iter().any(|row| row[1] == buffer), "{buffer} not compared: {context}");
        }
        for row in &rows {
            let beyond_tolerance = !row[6].starts_with("0/");
            match row[1] {
                "o_ptr" if fp8 => assert!(row[5].parse::<u64>().unwrap() <= 1, "o_ptr: {context}"),
                "M" => assert!(row[3].parse::<f64>().unwrap() <= 2e-3, "M: {context}"),
                buffer => assert!(!beyond_tolerance, "{buffer}: {context}"),
            }
        }
        println!("{label}: {}", table.lines().last().unwrap_or_default());
    }
}

/// The flags of tests/kernels/descriptor_matmul.py's GEMM with `WARP_SPECIALIZE` (8 warps,
/// 128 x 128 x 64 blocks) for an `m` x `n` x `k` product.
fn ws_matmul_flags(m: usize, n: usize, k: usize) -> Vec<String> {
    let mut flags: Vec<String> =
        [DESCRIPTOR_KERNELS, "--kernel", "descriptor_matmul_kernel", "--num-warps", "8"]
            .into_iter()
            .map(String::from)
            .collect();
    for (key, value) in
        [("BLOCK_M", "128"), ("BLOCK_N", "128"), ("BLOCK_K", "64"), ("WARP_SPECIALIZE", "True")]
    {
        flags.extend(["--const".into(), format!("{key}={value}")]);
    }
    for (key, value) in [("M", m), ("N", n), ("K", k)] {
        flags.extend(["--arg".into(), format!("{key}={value}")]);
    }
    flags
}

/// Runs trident with `args`.
fn trident_with(args: &[String]) -> std::process::Output {
    trident(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// A loop with `tl.range(..., warp_specialize=True)` whose dot tiles stream through tensor
/// descriptors compiles for sm_90a into producer and consumer roles: a warpgroup more than
/// `num_warps` (384 threads), the roles split at entry with `setmaxnreg`, a register cap that
/// launch allows all warps, named barriers for the hand-over, the consumers' barriers counting
/// them only, and mbarriers both ways.
#[test]
fn warp_specialized_loops_split_producer_and_consumers() {
    let mut args: Vec<String> = vec!["compile".into()];
    args.extend(ws_matmul_flags(1000, 512, 256));
    let pointers = ["--arg", "a_ptr=*fp16", "--arg", "b_ptr=*fp16", "--arg", "c_ptr=*fp16"];
    args.extend(["--emit", "ptx", "--target", "sm_90a"].into_iter().chain(pointers).map(String::from));
    let output = trident_with(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    let ptx = stdout(&output);
    for needle in [
        ".maxntid 384, 1, 1",
        ".maxnreg 168",
        "setmaxnreg.inc.sync.aligned.u32 232",
        "setmaxnreg.dec.sync.aligned.u32 40",
        "bar.sync 1, 384",
        "bar.sync 2, 384",
        "bar.sync 0, 256",
        "mbarrier.arrive.shared::cta.b64",
        "mbarrier.arrive.expect_tx.shared::cta.b64",
        "cp.async.bulk.tensor.2d",
        "wgmma.mma_async",
    ] {
        assert!(ptx.contains(needle), "the PTX lacks {needle}");
    }
    assert!(!ptx.contains("bar.sync 0;"), "a barrier waits for the producer warps too");
}

/// tests/kernels/descriptor_matmul.py's GEMM with `WARP_SPECIALIZE` on the GPU (a producer
/// warpgroup feeding two consumer warpgroups through TMA rings) agrees with interp, with M not a
/// multiple of the block.
#[test]
fn warp_specialized_matmul_agrees_with_interp_on_the_gpu() {
    ws_matmul_agrees("warp_specialized_matmul_agrees_with_interp_on_the_gpu", (1000, 512, 256), "8,4", 1);
}

/// Runs tests/kernels/descriptor_matmul.py's warp-specialized GEMM of `(m, n, k)` over `grid` on
/// nvptx and interp with inputs from `seed` and `seed + 1`, and asserts they agree (the test
/// `test` skips without a GPU).
fn ws_matmul_agrees(test: &str, (m, n, k): (usize, usize, usize), grid: &str, seed: u64) {
    use trident_midend::ir::DType;
    if !require_gpu(test) {
        return;
    }
    let dir = scratch_dir(test);
    let mut args: Vec<String> = vec!["check".into()];
    args.extend(ws_matmul_flags(m, n, k));
    args.extend(["--backend".into(), "nvptx".into(), "--grid".into(), grid.into()]);
    for (seed, name, count) in [(seed, "a_ptr", m * k), (seed + 1, "b_ptr", k * n)] {
        args.extend(["--arg".into(), write_npy(&dir, name, DType::F16, attn_input(seed, count, false))]);
    }
    args.extend(["--arg".into(), write_npy(&dir, "c_ptr", DType::F16, vec![0; 2 * m * n])]);
    assert_nvptx_agrees(&trident_with(&args));
}

/// tests/kernels/attention_descriptors.py, warp-specialized on sm_90a without asking (attention's
/// chain with K and V through TMA), agrees with interp on the GPU: one head of 256 rows, d 128.
#[test]
fn unasked_warp_specialized_attention_agrees_with_interp_on_the_gpu() {
    let mut flags = attention_descriptors_flags("attention_descriptors_kernel", 256);
    flags.push("--grid=2".into());
    attention_agrees("unasked_warp_specialized_attention_agrees_with_interp_on_the_gpu", flags, 256, 3);
}

/// The flags of a kernel of tests/kernels/attention_descriptors.py (d 128, blocks of 128 x 64,
/// 8 warps) over heads of `n_ctx` rows.
fn attention_descriptors_flags(kernel: &str, n_ctx: usize) -> Vec<String> {
    let mut flags: Vec<String> = [
        "tests/kernels/attention_descriptors.py",
        "--num-warps=8",
        "--num-stages=3",
        "--const=HEAD_DIM=128",
        "--const=BLOCK_M=128",
        "--const=BLOCK_N=64",
        "--arg=qk_scale=0.1275",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    flags.extend([format!("--kernel={kernel}"), format!("--arg=N_CTX={n_ctx}")]);
    flags
}

/// Runs an attention kernel of tests/kernels/attention_descriptors.py (`flags`, over `rows` rows
/// of d 128) on nvptx and interp with inputs from seeds `seed` to `seed + 2`, and asserts they
/// agree (the test `test` skips without a GPU).
fn attention_agrees(test: &str, flags: Vec<String>, rows: usize, seed: u64) {
    use trident_midend::ir::DType;
    if !require_gpu(test) {
        return;
    }
    let dir = scratch_dir(test);
    let count = rows * 128;
    let mut args: Vec<String> = vec!["check".into(), "--backend=nvptx".into()];
    args.extend(flags);
    for (seed, name) in [(seed, "q_ptr"), (seed + 1, "k_ptr"), (seed + 2, "v_ptr")] {
        args.extend(["--arg".into(), write_npy(&dir, name, DType::F16, attn_input(seed, count, false))]);
    }
    args.extend(["--arg".into(), write_npy(&dir, "o_ptr", DType::F16, vec![0; 2 * count])]);
    assert_nvptx_agrees(&trident_with(&args));
}

/// The flags of tests/kernels/attention_descriptors.py's `attention_heads_kernel` over `heads`
/// heads of 128 rows, one query block per head.
fn attention_heads_flags(heads: usize) -> Vec<String> {
    let mut flags = attention_descriptors_flags("attention_heads_kernel", 128);
    flags.extend([format!("--arg=HEADS={heads}"), format!("--grid=1,{heads}")]);
    flags
}

/// The sm_90a PTX of an attention kernel of tests/kernels/attention_descriptors.py (`flags`),
/// its four tensors f16 pointers.
fn attention_ptx_for_sm_90a(flags: Vec<String>) -> String {
    let mut args: Vec<String> = vec!["compile".into()];
    args.extend(flags);
    for name in ["q_ptr", "k_ptr", "v_ptr", "o_ptr"] {
        args.extend(["--arg".into(), format!("{name}=*fp16")]);
    }
    args.extend(["--emit", "ptx", "--target", "sm_90a"].map(String::from));
    let output = trident_with(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    stdout(&output)
}

/// Attention over descriptors made per program (`attention_head_views_kernel`) compiles for
/// sm_90a warp-specialized but not persistent (no grid parameters).
#[test]
fn attention_over_per_program_descriptors_is_not_persistent() {
    let mut flags = attention_descriptors_flags("attention_head_views_kernel", 128);
    flags.extend(["--arg=HEADS=300".into(), "--grid=1,300".into()]);
    let ptx = attention_ptx_for_sm_90a(flags);
    assert!(ptx.contains("$L_ws_producer:"), "not warp-specialized");
    assert!(!ptx.contains("param_grid_x"), "persistent");
}

/// Attention over more programs than an H100 has SMs compiles for sm_90a to a persistent kernel:
/// it takes the program grid as parameters, and its producer copies each program's Q into a
/// shared-memory tile beside the K and V rings.
#[test]
fn attention_over_many_programs_compiles_persistent() {
    let ptx = attention_ptx_for_sm_90a(attention_heads_flags(300));
    for axis in ["x", "y", "z"] {
        let param = format!(".param .u32 attention_heads_kernel_param_grid_{axis}");
        assert!(ptx.contains(&param), "the PTX lacks {param}");
    }
    // Q, K and V are copied by the producer (its code follows the label), two boxes a tile (a
    // 128-byte swizzle row holds 64 of a row's 128 halves); the consumers copy only O out.
    let (consumers, producer) = ptx.split_once("$L_ws_producer:").expect("a producer part");
    let loads = "cp.async.bulk.tensor.2d.shared::cluster.global";
    assert_eq!(producer.matches(loads).count(), 6, "{producer}");
    assert_eq!(consumers.matches(loads).count(), 0, "the consumers copy tiles in");
    assert_eq!(consumers.matches("cp.async.bulk.tensor.2d.global.shared::cta").count(), 1);
}

/// The persistent attention (300 programs: each CTA walks two or three, the ring's slots and
/// phases and Q's tile carried from one to the next) agrees with interp on the GPU.
#[test]
fn persistent_attention_agrees_with_interp_on_the_gpu() {
    let heads = 300;
    let test = "persistent_attention_agrees_with_interp_on_the_gpu";
    attention_agrees(test, attention_heads_flags(heads), heads * 128, 6);
}

/// Attention over descriptors made per head (`attention_head_views_kernel`, 300 programs) agrees
/// with interp on the GPU. The descriptors depend on the program, so the kernel is not made
/// persistent: its producer would have had to make them alone (a CTA-wide barrier it waits at
/// forever), and it once copied Q through the consumers' descriptor (an internal compiler error).
#[test]
fn attention_over_per_head_descriptors_agrees_with_interp_on_the_gpu() {
    let heads = 300;
    let test = "attention_over_per_head_descriptors_agrees_with_interp_on_the_gpu";
    let mut flags = attention_descriptors_flags("attention_head_views_kernel", 128);
    flags.extend([format!("--arg=HEADS={heads}"), format!("--grid=1,{heads}")]);
    attention_agrees(test, flags, heads * 128, 12);
}

/// tests/kernels/descriptor_matmul.py's warp-specialized GEMM over 320 programs (a persistent
/// walk of two or three tiles per CTA, the K loop wrapping the ring within a tile) agrees with
/// interp on the GPU.
#[test]
fn persistent_warp_specialized_matmul_agrees_with_interp_on_the_gpu() {
    ws_matmul_agrees(
        "persistent_warp_specialized_matmul_agrees_with_interp_on_the_gpu",
        (2000, 2560, 128),
        "16,20",
        9,
    );
}

/// `count` fixed pseudo-random inputs in [-2, 2) for attention: f16 or e5m2 bytes (e5m2 is the
/// upper byte of an f16, rounded to nearest even).
fn attn_input(seed: u64, count: usize, fp8: bool) -> Vec<u8> {
    let mut bytes = Vec::new();
    for index in 0..count as u64 {
        // splitmix64's finalizer of the element's index: the same values on every machine.
        let mut z = (seed << 32 | index).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        let value = ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0;
        let bits = half::f16::from_f64(value).to_bits();
        if fp8 {
            bytes.push(((u32::from(bits) + 0x7F + ((u32::from(bits) >> 8) & 1)) >> 8) as u8);
        } else {
            bytes.extend(bits.to_le_bytes());
        }
    }
    bytes
}

const DEBUG_KERNEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/kernels/device_debug.py");

/// `trident run` of `device_debug_kernel` over `[1, 2, 300, 4, ...]` with `n` live elements.
fn run_device_debug(backend: &str, n: &str) -> std::process::Output {
    use trident_midend::ir::DType;
    let dir = scratch_dir(&format!("device-debug-{backend}-{n}"));
    let x: Vec<u8> = [1i32, 2, 300, 4, 5, 6, 7, 8].iter().flat_map(|v| v.to_le_bytes()).collect();
    let x_arg = write_npy(&dir, "x_ptr", DType::I32, x);
    let out = dir.join("out");
    trident(&[
        "run",
        "--backend",
        backend,
        DEBUG_KERNEL,
        "--kernel",
        "device_debug_kernel",
        "--grid",
        "1",
        "--const",
        "BLOCK=8",
        "--arg",
        &x_arg,
        "--arg",
        &format!("n={n}"),
        "--out",
        out.to_str().unwrap(),
    ])
}

/// `tl.device_print` and `tl.device_assert` on sm_90a: `vprintf` and `__assertfail` calls that
/// ptxas accepts.
#[test]
fn device_print_and_assert_become_system_calls() {
    let output = trident(&[
        "compile",
        "--emit",
        "ptx",
        "--target",
        "sm_90a",
        DEBUG_KERNEL,
        "--kernel",
        "device_debug_kernel",
        "--const",
        "BLOCK=8",
        "--arg",
        "x_ptr=*i32",
        "--arg",
        "n=8",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let ptx = stdout(&output);
    assert!(ptx.contains("call (written), vprintf, (format, args)"), "{ptx}");
    assert!(ptx.contains("call __assertfail,"), "{ptx}");
    // The message, the file name and the kernel's name are strings for the CUDA runtime.
    let message: Vec<String> = "x is small\0".bytes().map(|b| b.to_string()).collect();
    assert!(ptx.contains(&message.join(", ")), "{ptx}");
}

/// On the GPU, each live element prints the interpreter's line, and the assertion holds where
/// the mask turns the out-of-range element off but fails (the launch reports it) where it is on.
#[test]
fn device_print_and_masked_assert_on_the_gpu() {
    if !require_gpu("device_print_and_masked_assert_on_the_gpu") {
        return;
    }
    let output = run_device_debug("nvptx", "2");
    assert!(output.status.success(), "{}", stderr(&output));
    let printed = stdout(&output);
    let interp = stdout(&run_device_debug("interp", "2"));
    let mut gpu_lines: Vec<&str> = printed.lines().filter(|l| l.starts_with("pid")).collect();
    let mut interp_lines: Vec<&str> = interp.lines().filter(|l| l.starts_with("pid")).collect();
    gpu_lines.sort();
    interp_lines.sort();
    // Each element is held by one thread here (8 elements over 128 threads are replicated, so
    // the GPU may print copies): every interp line appears on the GPU.
    gpu_lines.dedup();
    assert_eq!(gpu_lines, interp_lines, "GPU:\n{printed}\ninterp:\n{interp}");
    let failed = run_device_debug("nvptx", "3");
    assert!(!failed.status.success(), "the assertion on 300 must fail: {}", stdout(&failed));
}

/// The reference the GPU test compares with: interp honours `device_assert`'s mask (300 is masked
/// off with `n = 2`, checked with `n = 3`) and prints one line per element.
#[test]
fn masked_device_assert_on_interp() {
    let held = run_device_debug("interp", "2");
    assert!(held.status.success(), "{}", stderr(&held));
    assert!(stdout(&held).contains("pid (0, 0, 0) idx (1) x 2\n"), "{}", stdout(&held));
    assert!(stdout(&held).contains("pid (0, 0, 0) idx (1) bits 0x4000\n"), "{}", stdout(&held));
    let failed = run_device_debug("interp", "3");
    assert!(!failed.status.success());
    assert!(stderr(&failed).contains("x is small"), "{}", stderr(&failed));
}

/// A kernel that never ends (it waits for a flag nothing sets) is stopped by the launch's
/// deadline: `trident run` reports the timeout and exits, rather than hanging in the release of
/// memory and modules the kernel still runs on (which waits for the GPU).
#[test]
fn a_kernel_past_its_deadline_is_reported_and_the_process_exits() {
    use trident_midend::ir::DType;
    let test = "a_kernel_past_its_deadline_is_reported_and_the_process_exits";
    if !require_gpu(test) {
        return;
    }
    let dir = scratch_dir(test);
    let kernel = dir.join("spin.py");
    let source =
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef spin_kernel(flag_ptr):\n    \
                  while tl.load(flag_ptr, volatile=True) == 0:\n        pass\n";
    std::fs::write(&kernel, source).unwrap();
    let flag = write_npy(&dir, "flag_ptr", DType::I32, vec![0; 4]);
    let started = std::time::Instant::now();
    let output = trident_with_env(
        &[
            "run",
            kernel.to_str().unwrap(),
            "--kernel",
            "spin_kernel",
            "--backend",
            "nvptx",
            "--grid",
            "1",
            "--arg",
            &flag,
        ],
        &[("TRIDENT_CUDA_TIMEOUT", "2")],
    );
    let elapsed = started.elapsed();
    assert!(!output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("did not finish within 2 s"), "{}", stderr(&output));
    assert!(elapsed < std::time::Duration::from_secs(60), "took {elapsed:?}");
}
