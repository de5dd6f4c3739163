//! Rendered diagnostics, snapshot-tested in full (STYLE rule 20).
//!
//! Every kernel under `tests/kernels/errors/` must fail to compile; its first `# compile:` line
//! gives the command-line flags. The error, rendered exactly as `trident compile` prints it
//! (file, line, the Python line and a caret), is compared with
//! `tests/golden/diagnostics/<name>.txt`. `BLESS=1 cargo test --test diagnostics` rewrites the
//! snapshots; a missing snapshot is a failure. Command-line errors are snapshot-tested too: their
//! stderr, one line naming the offending argument.

use std::path::{Path, PathBuf};
use std::process::Command;

use trident::cli::compile::emit_ttir_with_flags;
use trident::golden;

const ERROR_KERNELS: &str = "tests/kernels/errors";
const GOLDEN: &str = "tests/golden/diagnostics";

/// The kernels of a directory, sorted, relative to the package root.
fn kernels_in(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {dir}: {e}"))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    files
}

#[test]
fn error_kernels_render_their_golden_diagnostics() {
    let kernels = kernels_in(ERROR_KERNELS);
    assert!(kernels.len() >= 4, "expected the error kernels under {ERROR_KERNELS}");
    let mut failures = Vec::new();
    for path in &kernels {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let file = path.to_string_lossy().into_owned();
        let source = std::fs::read_to_string(path).unwrap();
        let Some(flags) = golden::compile_headers(&source).into_iter().next() else {
            failures.push(format!("{file}: no `# compile: --kernel NAME ...` header line"));
            continue;
        };
        let rendered = match emit_ttir_with_flags(&file, &flags) {
            Ok(_) => {
                failures.push(format!("{file}: compiled without an error"));
                continue;
            }
            Err(error) => error.render(),
        };
        let golden_path = Path::new(GOLDEN).join(format!("{name}.txt"));
        if let Err(message) = golden::check(&golden_path, &rendered) {
            failures.push(format!("{file}: {message}\n--- rendered:\n{rendered}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} error kernels:\n\n{}",
        failures.len(),
        kernels.len(),
        failures.join("\n\n")
    );
}

/// The stderr of `trident ARGS...`, which must fail with exit code 2.
fn usage_error(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_trident"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the trident binary runs");
    assert_eq!(output.status.code(), Some(2), "{args:?} must be a usage error");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn command_line_errors_render_their_golden_text() {
    let example = "examples/vector_add.py";
    let pointers = ["--arg", "x_ptr=*fp32", "--arg", "y_ptr=*fp32", "--arg", "output_ptr=*fp32"];
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (
            "cli_unknown_arg",
            [
                &["compile", example, "--kernel", "add_kernel", "--emit", "ttir"][..],
                &pointers,
                &["--arg", "n_elments=3"],
            ]
            .concat(),
        ),
        (
            "cli_missing_arg",
            [&["compile", example, "--kernel", "add_kernel", "--emit", "ttir"][..], &pointers].concat(),
        ),
        ("cli_bad_grid", vec!["run", example, "--kernel", "add_kernel", "--grid", "8,,2"]),
        ("cli_missing_file", vec!["run", "examples/missing.py", "--kernel", "k", "--grid", "1"]),
        (
            "cli_bad_dtype",
            [
                &["compile", example, "--kernel", "add_kernel", "--emit", "ttir"][..],
                &pointers,
                &["--arg", "n_elements=3:i48"],
            ]
            .concat(),
        ),
    ];
    let mut failures = Vec::new();
    for (name, args) in &cases {
        let rendered = usage_error(args);
        if let Err(message) = golden::check(&Path::new(GOLDEN).join(format!("{name}.txt")), &rendered) {
            failures.push(format!("{name}: {message}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The command-line errors of autotuned kernels: a `--const` that a config sets (Triton's
/// "Conflicting meta-parameters") and a `--config` out of range, which lists the configs.
#[test]
fn autotune_command_line_errors_render_their_golden_text() {
    let kernel = "tests/kernels/autotune_add.py";
    let flags = ["--kernel", "add_kernel", "--emit", "ttir", "--arg", "x_ptr=*fp32", "--arg", "y_ptr=*fp32"];
    let flags =
        [&["compile", kernel][..], &flags, &["--arg", "output_ptr=*fp32", "--arg", "n_elements=1000"]]
            .concat();
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("cli_autotune_conflicting_const", [&flags[..], &["--const", "BLOCK_SIZE=128"]].concat()),
        ("cli_autotune_config_out_of_range", [&flags[..], &["--config", "7"]].concat()),
    ];
    let mut failures = Vec::new();
    for (name, args) in &cases {
        let rendered = usage_error(args);
        if let Err(message) = golden::check(&Path::new(GOLDEN).join(format!("{name}.txt")), &rendered) {
            failures.push(format!("{name}: {message}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
