//! What the end-to-end test files share: running the `trident` binary, scratch directories, the
//! example's launch flags, and `TRIDENT_REQUIRE_DEVICES` (the devices whose absence fails a test
//! instead of skipping it). Each test file uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const EXAMPLE: &str = "examples/vector_add.py";

/// Runs the binary from the repository root with extra environment variables.
///
/// Every run gets an empty cache of its own (see [`own_cache`]) unless `env` names
/// `TRIDENT_CACHE_DIR`: a test sees what trident does on a first run, whatever ran before it,
/// and nothing is written to the user's cache.
pub fn trident_with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_trident"));
    command.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    let cache = own_cache(&mut command);
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("the trident binary runs");
    let _ = std::fs::remove_dir_all(cache);
    output
}

/// Runs the binary from the repository root without the environment variables `removed`, with an
/// empty cache of its own.
pub fn trident_without_env(args: &[&str], removed: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_trident"));
    command.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    let cache = own_cache(&mut command);
    for key in removed {
        command.env_remove(key);
    }
    let output = command.output().expect("the trident binary runs");
    let _ = std::fs::remove_dir_all(cache);
    output
}

/// Points `TRIDENT_CACHE_DIR` at a directory no other run uses (under the target directory, by
/// process and a counter), and returns it for removal after the run.
pub fn own_cache(command: &mut Command) -> PathBuf {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cache-{}-{run}", std::process::id()));
    command.env("TRIDENT_CACHE_DIR", &dir);
    dir
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

/// The backends that `trident check`'s closing line names as agreeing with interp (none when
/// the check failed or compared nothing): `check: nvptx, spirv agree(s) with interp ...`.
pub fn agreeing_backends(check_output: &str) -> Vec<&str> {
    check_output
        .lines()
        .filter_map(|line| {
            line.strip_prefix("check: ")?.strip_suffix(" agree(s) with interp on every buffer")
        })
        .flat_map(|list| list.split(", "))
        .collect()
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

/// `tests/kernels/autotune_add.py` over the example's inputs: the file, the kernel and the three
/// buffers (`n_elements`, the grid and the backend are the caller's).
pub const AUTOTUNE_ADD: [&str; 9] = [
    "tests/kernels/autotune_add.py",
    "--kernel",
    "add_kernel",
    "--arg",
    "x_ptr=@examples/data/x.npy",
    "--arg",
    "y_ptr=@examples/data/y.npy",
    "--arg",
    "output_ptr=@examples/data/output.npy",
];
