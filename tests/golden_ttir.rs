//! Golden TTIR of the project's own kernels (STYLE rule 16).
//!
//! For every `tests/kernels/*.py` (not `errors/`), each `# compile: FLAGS` header line is one
//! compilation through the same code path as `trident compile FILE FLAGS --emit ttir`; its text
//! is compared with `tests/golden/ttir/<file>.<kernel>.ttir` (`.<n>` appended for the second and
//! later lines of the same kernel). `BLESS=1 cargo test --test golden_ttir` rewrites them.

use std::path::{Path, PathBuf};

use trident::cli::compile::emit_ttir_with_flags;
use trident::golden;

const KERNELS: &str = "tests/kernels";
const GOLDEN: &str = "tests/golden/ttir";

#[test]
fn kernels_match_their_golden_ttir() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(KERNELS)
        .unwrap_or_else(|e| panic!("cannot list {KERNELS}: {e}"))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file() && path.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "expected the test kernels under {KERNELS}");

    let mut failures = Vec::new();
    let mut compiled = 0;
    for path in &files {
        let file = path.to_string_lossy().into_owned();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let source = std::fs::read_to_string(path).unwrap();
        let headers = golden::compile_headers(&source);
        if headers.is_empty() {
            failures.push(format!("{file}: no `# compile: --kernel NAME ...` header line"));
        }
        let mut seen: Vec<String> = Vec::new();
        for flags in &headers {
            let kernel = golden::kernel_flag(flags).unwrap_or("no-kernel").to_string();
            let repeat = seen.iter().filter(|k| **k == kernel).count();
            seen.push(kernel.clone());
            let name = if repeat == 0 {
                format!("{stem}.{kernel}.ttir")
            } else {
                format!("{stem}.{kernel}.{}.ttir", repeat + 1)
            };
            compiled += 1;
            match emit_ttir_with_flags(&file, flags) {
                Ok(text) => {
                    if let Err(message) = golden::check(&Path::new(GOLDEN).join(&name), &text) {
                        failures.push(format!("{file} ({kernel}): {message}"));
                    }
                }
                Err(error) => {
                    failures.push(format!("{file} ({kernel}) does not compile:\n{}", error.render()));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {compiled} compilations:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
