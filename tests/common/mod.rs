//! What the end-to-end test files share: running the `trident` binary, scratch directories, the
//! example's launch flags, and `TRIDENT_REQUIRE_DEVICES` (the devices whose absence fails a test
//! instead of skipping it). Each test file uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const EXAMPLE: &str = "examples/vector_add.py";

/// Runs the binary from the repository root with extra environment variables.
pub fn trident_with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_trident"));
    command.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("the trident binary runs")
}

/// Runs the binary from the repository root without the environment variables `removed`.
pub fn trident_without_env(args: &[&str], removed: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_trident"));
    command.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    for key in removed {
        command.env_remove(key);
    }
    command.output().expect("the trident binary runs")
}

pub fn trident(args: &[&str]) -> Output {
    trident_with_env(args, &[])
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A fresh directory `name` under the target directory for one test's outputs.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The example's launch flags (before `--out`).
pub fn example_flags() -> Vec<&'static str> {
    vec![
        "--kernel",
        "add_kernel",
        "--grid",
        "4",
        "--const",
        "BLOCK_SIZE=256",
        "--arg",
        "x_ptr=@examples/data/x.npy",
        "--arg",
        "y_ptr=@examples/data/y.npy",
        "--arg",
        "output_ptr=@examples/data/output.npy",
        "--arg",
        "n_elements=1000",
    ]
}

/// Whether `TRIDENT_REQUIRE_DEVICES` (comma-separated) names any of `names`.
pub fn required(names: &[&str]) -> bool {
    std::env::var("TRIDENT_REQUIRE_DEVICES").unwrap_or_default().split(',').any(|d| names.contains(&d.trim()))
}

/// A test that needs `device` found it missing: prints `SKIP <test>: <reason>`, or fails when
/// `TRIDENT_REQUIRE_DEVICES` names the device.
pub fn skip_unless_required(device: &str, test: &str, reason: &str) {
    assert!(!required(&[device]), "{test}: TRIDENT_REQUIRE_DEVICES names {device}, but: {reason}");
    show_skip(&format!("SKIP {test}: {reason} (set TRIDENT_REQUIRE_DEVICES={device} to require it)"));
}

/// Prints a `SKIP ...` line where a plain `cargo test` shows it. The harness captures what a
/// test prints with `println!` and `eprintln!` and drops it when the test passes, so a skipped
/// test looked like a pass unless run with `--nocapture`; a write to the stderr handle itself
/// goes past the capture, to the terminal or CI log, beside the harness's own lines.
pub fn show_skip(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Writes `values` (little-endian bytes of `dtype` elements) as `name.npy` in `dir`.
pub fn write_npy(dir: &Path, name: &str, dtype: trident_midend::ir::DType, values: Vec<u8>) -> String {
    let mut buffer = trident_runtime::Buffer::zeros(name, dtype, values.len() * 8 / dtype.bits() as usize);
    buffer.bytes = values;
    let path = dir.join(format!("{name}.npy"));
    if let Err(e) = trident_runtime::npy::write(&path, &buffer) {
        panic!("{name}: {e}");
    }
    format!("{name}=@{}", path.to_str().unwrap())
}
