//! `tl.device_print` on spirv prints the interpreter's lines, in the interpreter's order:
//! `tests/kernels/device_print.py` over a 3×2 grid prints scalars, i32/f32/f16/bf16/i8/u8/bool/i64
//! tensors, hex bits, pointers, several operands at once, a masked tile, replicated and
//! multi-register tensors, a print in a loop and one without operands, and every line spirv
//! prints must equal interp's. spirv appends records to a print buffer that the runtime reads
//! back after the launch (backend-spirv's `print.rs`, runtime's `wgpu/print.rs`); records past
//! its capacity are dropped and counted. Without a Vulkan adapter the spirv half is a SKIP, unless
//! `TRIDENT_REQUIRE_DEVICES` names spirv. On a CUDA GPU, nvptx's `vprintf` prints the same lines
//! in its own order, with copies from threads that hold the same element and real addresses for
//! pointers (floats print as C's `%f` on every backend, as Triton prints them on CUDA).

mod common;

use std::path::Path;
use std::process::Output;

use common::{scratch_dir, skip_unless_required, stderr, stdout, trident, trident_with_env, write_npy};
use trident_midend::ir::DType;

const KERNEL: &str = "tests/kernels/device_print.py";
const DEBUG_KERNEL: &str = "tests/kernels/device_debug.py";

/// Runs `device_print_kernel` over a 3×2 grid, 13 of 24 `x` elements live, with `env` set.
fn run_print(backend: &str, dir: &Path, env: &[(&str, &str)]) -> Output {
    let case = dir.join(format!("{backend}-{}", env.len()));
    std::fs::create_dir_all(&case).unwrap();
    let x: Vec<u8> = (0..24i32).flat_map(|i| (i * 37 - 200).to_le_bytes()).collect();
    let y: Vec<u8> = (0..15).flat_map(|i| (i as f32 * 0.25 - 1.3).to_le_bytes()).collect();
    let x_arg = write_npy(&case, "x_ptr", DType::I32, x);
    let y_arg = write_npy(&case, "y_ptr", DType::F32, y);
    let out = case.join("out");
    #[rustfmt::skip]
    let args = [
        "run", KERNEL, "--kernel", "device_print_kernel", "--backend", backend, "--grid", "3,2",
        "--const", "BLOCK=8", "--const", "COLS=4", "--arg", &x_arg, "--arg", &y_arg,
        "--arg", "n=13", "--arg", "scale=0.5", "--out", out.to_str().unwrap(),
    ];
    trident_with_env(&args, env)
}

/// The printed lines of a run (the lines that start with `pid`).
fn lines(output: &Output) -> Vec<String> {
    stdout(output).lines().filter(|l| l.starts_with("pid")).map(str::to_string).collect()
}

/// Whether a spirv run found no Vulkan adapter; then says SKIP (or fails where spirv is required).
fn no_adapter(output: &Output, test: &str) -> bool {
    if stderr(output).contains("needs a Vulkan adapter") {
        skip_unless_required("spirv", test, "no Vulkan adapter here");
        return true;
    }
    false
}

/// The interpreter's lines: what spirv must print.
fn interp_lines(dir: &Path) -> Vec<String> {
    let interp = run_print("interp", dir, &[]);
    assert!(interp.status.success(), "interp:\n{}", stderr(&interp));
    let printed = lines(&interp);
    // A few lines of each kind, as the interpreter prints them (the reference's format).
    for wanted in [
        "pid (0, 0, 0) idx () program (operand 0) 0",
        "pid (2, 1, 0) idx () program (operand 1) 1",
        "pid (0, 0, 0) idx () scale 0.500000",
        "pid (1, 0, 0) idx (4) x 244",
        "pid (1, 0, 0) idx (5) x -7",
        "pid (0, 0, 0) idx (1) x * scale -81.500000",
        "pid (0, 0, 0) idx (1) tenths (operand 0) -16.296875",
        "pid (0, 0, 0) idx (1) tenths (operand 1) -16.375000",
        "pid (0, 0, 0) idx (0) bits 0xda40",
        "pid (0, 0, 0) idx (0) narrow (operand 0) -44",
        "pid (0, 0, 0) idx (0) narrow (operand 1) 56",
        "pid (0, 0, 0) idx (0) narrow (operand 2) 1",
        "pid (0, 0, 0) idx (7) wide 177000000000",
        "pid (2, 1, 0) idx (7) pointers <buffer 0 + 92>",
        "pid (1, 0, 0) idx (1, 3) tile -1.000000",
        "pid (2, 0, 0) idx (0, 2) tile 2.200000",
        "pid (2, 0, 0) idx (1, 0) tile -1.000000",
        "pid (1, 1, 0) idx (1) pair 2",
        "pid (2, 0, 0) idx (255) wide range 765",
        "pid (1, 0, 0) idx () loop (operand 1) 830",
        "pid (2, 1, 0) done",
    ] {
        assert!(printed.iter().any(|l| l == wanted), "interp did not print `{wanted}`");
    }
    printed
}

#[test]
fn spirv_prints_the_interpreters_lines() {
    let dir = scratch_dir("device-print");
    let expected = interp_lines(&dir);
    // 6 programs: 3 scalar lines, 8 per tensor operand of 8 (x, x * scale, 2 tenths, bits,
    // 3 narrow, wide, pointers: 10 of them), 8 of the tile, 2 of the pair, 256 of the range,
    // 2 × 2 in the loop, and the line without operands.
    assert_eq!(expected.len(), 6 * (3 + 8 * 10 + 8 + 2 + 256 + 4 + 1));
    let spirv = run_print("spirv", &dir, &[]);
    if no_adapter(&spirv, "spirv device_print") {
        return;
    }
    assert!(spirv.status.success(), "spirv:\n{}", stderr(&spirv));
    assert_eq!(lines(&spirv), expected, "spirv's lines (left) differ from interp's (right)");
    assert!(!stderr(&spirv).contains("dropped"), "{}", stderr(&spirv));
}

/// A second run compiles nothing: the print sites come from the on-disk cache and print the same.
/// nvptx prints every line the interpreter prints and no other, up to order, copies and the
/// pointers' addresses.
#[test]
fn nvptx_prints_the_interpreters_lines() {
    let dir = scratch_dir("device-print-nvptx");
    let nvptx = run_print("nvptx", &dir, &[]);
    if stderr(&nvptx).contains("needs a CUDA GPU") {
        skip_unless_required("nvptx", "nvptx device_print", "no CUDA GPU here");
        return;
    }
    assert!(nvptx.status.success(), "nvptx:\n{}", stderr(&nvptx));
    let comparable = |mut lines: Vec<String>| {
        lines.retain(|l| !l.contains(" pointers "));
        lines.sort();
        lines.dedup();
        lines
    };
    let interp = comparable(interp_lines(&dir));
    assert_eq!(comparable(lines(&nvptx)), interp, "nvptx and interp print different lines");
}

#[test]
fn print_sites_come_back_from_the_cache() {
    let dir = scratch_dir("device-print-cache");
    let cache = dir.join("cache");
    let cache = cache.to_str().unwrap();
    let first = run_print("spirv", &dir, &[("TRIDENT_CACHE_DIR", cache)]);
    if no_adapter(&first, "spirv device_print from the cache") {
        return;
    }
    assert!(first.status.success(), "{}", stderr(&first));
    let second = run_print("spirv", &dir, &[("TRIDENT_CACHE_DIR", cache)]);
    assert!(second.status.success(), "{}", stderr(&second));
    assert_eq!(lines(&second), lines(&first));
    assert!(!lines(&first).is_empty());
}

/// With room for 5 records, 5 lines print (each one of interp's), and stderr says how many of
/// the 2,124 were dropped.
#[test]
fn a_full_print_buffer_drops_lines_and_says_how_many() {
    let dir = scratch_dir("device-print-dropped");
    let expected = interp_lines(&dir);
    let spirv = run_print("spirv", &dir, &[("TRIDENT_PRINT_BUFFER_RECORDS", "5")]);
    if no_adapter(&spirv, "spirv device_print with a full buffer") {
        return;
    }
    assert!(spirv.status.success(), "{}", stderr(&spirv));
    let printed = lines(&spirv);
    assert_eq!(printed.len(), 5, "{printed:?}");
    for line in &printed {
        assert!(expected.contains(line), "`{line}` is not one of interp's lines");
    }
    let message = format!(
        "warning: tl.device_print: {} of {} lines were dropped: the print buffer holds 5",
        expected.len() - 5,
        expected.len()
    );
    assert!(stderr(&spirv).contains(&message), "{}", stderr(&spirv));
}

/// `device_debug_kernel` (a print, a hex print and a masked assertion that holds) prints the same
/// on spirv as on interp.
#[test]
fn device_debug_prints_the_same_on_spirv() {
    let dir = scratch_dir("device-print-debug");
    let x: Vec<u8> = [1i32, 2, 300, 4, 5, 6, 7, 8].iter().flat_map(|v| v.to_le_bytes()).collect();
    let x_arg = write_npy(&dir, "x_ptr", DType::I32, x);
    let run = |backend: &str| {
        let out = dir.join(format!("out-{backend}"));
        #[rustfmt::skip]
        let args = [
            "run", DEBUG_KERNEL, "--kernel", "device_debug_kernel", "--backend", backend,
            "--grid", "2", "--const", "BLOCK=8", "--arg", &x_arg, "--arg", "n=2",
            "--out", out.to_str().unwrap(),
        ];
        trident(&args)
    };
    let interp = run("interp");
    assert!(interp.status.success(), "{}", stderr(&interp));
    assert_eq!(lines(&interp).len(), 2 * 16);
    let spirv = run("spirv");
    if no_adapter(&spirv, "spirv device_debug") {
        return;
    }
    assert!(spirv.status.success(), "{}", stderr(&spirv));
    assert_eq!(lines(&spirv), lines(&interp));
}

/// The portable module of a printing kernel translates to WGSL: naga turns the print buffer into
/// `array<atomic<u32>>`, its counter into `atomicAdd` and the record words into `atomicStore`s.
/// No device needed.
#[test]
fn portable_print_translates_to_wgsl() {
    #[rustfmt::skip]
    let output = trident(&[
        "compile", "--emit", "wgsl", DEBUG_KERNEL, "--kernel", "device_debug_kernel",
        "--const", "BLOCK=8", "--arg", "x_ptr=*i32", "--arg", "n=8",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let wgsl = stdout(&output);
    for wanted in
        ["var<storage, read_write> device_prints", "atomicAdd((&device_prints.member[0u])", "atomicStore"]
    {
        assert!(wgsl.contains(wanted), "no `{wanted}` in:\n{wgsl}");
    }
}
