//! `tl.device_assert` on interp and spirv: a kernel whose assertion holds runs to the end; one
//! whose assertion fails in program 1 stops with the interpreter's message (`device assertion
//! failed in program (1, 0, 0): x is small`) and the Python line on both; an element the mask
//! turns off is not checked. spirv reports through its assertion buffer (backend-spirv's
//! `Artifact::asserts`); without a Vulkan adapter its half is a SKIP, unless
//! `TRIDENT_REQUIRE_DEVICES` names spirv. (nvptx's `__assertfail` is checked on the GPU in
//! tests/cuda.rs.)

mod common;

use std::path::Path;

use common::{scratch_dir, skip_unless_required, stderr, trident, write_npy};
use trident_midend::ir::DType;

const KERNEL: &str = "tests/kernels/device_assert.py";

/// Runs the kernel over 128 elements (two programs of 64), `x[i] = i % 50` but `x[bad] = 100`,
/// with `n` elements live.
fn run(backend: &str, dir: &Path, bad: Option<usize>, n: usize) -> std::process::Output {
    let name = format!("{backend}-{bad:?}-{n}");
    let mut x: Vec<i32> = (0..128).map(|i| i % 50).collect();
    if let Some(bad) = bad {
        x[bad] = 100;
    }
    let bytes = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let case = dir.join(&name);
    std::fs::create_dir_all(&case).unwrap();
    let x_arg = write_npy(&case, "x_ptr", DType::I32, bytes);
    let out = case.join("out");
    trident(&[
        "run",
        KERNEL,
        "--kernel",
        "device_assert_kernel",
        "--backend",
        backend,
        "--grid",
        "2",
        "--const",
        "BLOCK=64",
        "--arg",
        &x_arg,
        "--arg",
        &format!("n={n}"),
        "--out",
        out.to_str().unwrap(),
    ])
}

#[test]
fn device_assert_stops_the_run_where_it_fails() {
    let dir = scratch_dir("device-assert");
    for backend in ["interp", "spirv"] {
        // x[70] = 100 is in program 1 and live (n = 128): the assertion fails there.
        let failed = run(backend, &dir, Some(70), 128);
        if backend == "spirv" && stderr(&failed).contains("needs a Vulkan adapter") {
            skip_unless_required("spirv", "spirv device_assert", "no Vulkan adapter here");
            return;
        }
        assert!(!failed.status.success(), "{backend}: a failed assertion must fail the run");
        let message = stderr(&failed);
        assert!(
            message.contains("device assertion failed in program (1, 0, 0): x is small"),
            "{backend}:\n{message}"
        );
        assert!(
            message.contains("tests/kernels/device_assert.py:12:5"),
            "{backend}: no Python line:\n{message}"
        );
        // The same element past n is masked off: nothing is checked there, the run succeeds.
        let masked = run(backend, &dir, Some(70), 65);
        assert!(masked.status.success(), "{backend}: a masked-off element was checked:\n{}", stderr(&masked));
        let held = run(backend, &dir, None, 128);
        assert!(held.status.success(), "{backend}:\n{}", stderr(&held));
        let out = dir.join(format!("{backend}-None-128")).join("out").join("x_ptr.npy");
        let buffer = trident_runtime::npy::read(&out, "x_ptr", None).unwrap();
        let values: Vec<i32> =
            buffer.bytes.chunks_exact(4).map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
        for (i, &v) in values.iter().enumerate() {
            let expected = (i % 50) as i32 + 1;
            assert_eq!(v, expected, "{backend}: x[{i}]");
        }
    }
}
