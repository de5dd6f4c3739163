//! The Python package's tests (python/tests, pytest) as part of `cargo test`, where Python and the
//! built package are present.
//!
//! The package is built and installed by maturin (`pip install ./python`, README "The Python
//! package"), not by cargo: `python/` is not a default member, so that `cargo build` and `cargo
//! test` need no Python. This test runs `python3 -m pytest python/tests` from the repository root
//! when `python3` imports `trident` and `pytest`, and the installed package's Python files are the
//! ones under `python/trident/` (an older install would test old code: it says SKIP and how to
//! reinstall). Otherwise it passes and prints `SKIP python_tests: <reason>`, unless
//! `TRIDENT_REQUIRE_DEVICES` names `python`: then a missing or stale package is a failure. (The
//! pytest tests themselves follow `TRIDENT_REQUIRE_DEVICES` for their devices: conftest.py.)
//!
//! `TRIDENT_PYTHON` names the interpreter (default `python3`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Prints a line past the test harness's capture.
fn show(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Whether `TRIDENT_REQUIRE_DEVICES` names `python`.
fn python_required() -> bool {
    std::env::var("TRIDENT_REQUIRE_DEVICES")
        .unwrap_or_default()
        .split(',')
        .any(|device| device.trim() == "python")
}

/// Passes with a SKIP line, or fails when the Python tests are required.
fn skip(reason: &str) {
    assert!(!python_required(), "TRIDENT_REQUIRE_DEVICES names python, but {reason}");
    show(&format!("SKIP python_tests: {reason} (set TRIDENT_REQUIRE_DEVICES=python to require them)"));
}

/// The directory of the installed `trident` package, or why there is none.
fn installed_package(python: &str) -> Result<PathBuf, String> {
    let probe = "import os, pytest, trident; print(os.path.dirname(trident.__file__))";
    let output = Command::new(python)
        .args(["-c", probe])
        .current_dir(std::env::temp_dir())
        .output()
        .map_err(|e| format!("{python} cannot be run ({e})"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().last().unwrap_or_default().to_string();
        return Err(format!(
            "{python} cannot import trident and pytest ({last}); `pip install ./python pytest numpy` installs them"
        ));
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()))
}

/// The Python files of `source` (python/trident) that differ in, or are missing from, the
/// installed package `installed`.
fn stale_files(source: &Path, installed: &Path) -> Vec<String> {
    let mut stale = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(source.join(&relative)) else { continue };
        for entry in entries.flatten() {
            let path = relative.join(entry.file_name());
            if entry.path().is_dir() {
                if entry.file_name() != "__pycache__" {
                    pending.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "py")
                && std::fs::read(source.join(&path)).ok() != std::fs::read(installed.join(&path)).ok()
            {
                stale.push(path.display().to_string());
            }
        }
    }
    stale.sort();
    stale
}

#[test]
fn python_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = std::env::var("TRIDENT_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let installed = match installed_package(&python) {
        Ok(installed) => installed,
        Err(reason) => return skip(&reason),
    };
    let stale = stale_files(&root.join("python/trident"), &installed);
    if !stale.is_empty() {
        return skip(&format!(
            "the trident package installed at {} is older than python/ ({} differ); reinstall it with \
             `pip install ./python`",
            installed.display(),
            stale.join(", ")
        ));
    }
    let output = Command::new(&python)
        .args(["-m", "pytest", "python/tests", "-q", "-rs", "-p", "no:cacheprovider"])
        .current_dir(root)
        .output()
        .expect("pytest runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // What the pytest tests skipped (pytest's `-rs` summary) and its last line.
    for line in stdout.lines().chain(stderr.lines()).filter(|line| line.starts_with("SKIP")) {
        show(&format!("python_tests: {line}"));
    }
    if let Some(summary) = stdout.lines().last() {
        show(&format!("python_tests: {summary}"));
    }
    assert!(output.status.success(), "pytest python/tests failed:\n{stdout}\n{stderr}");
}
