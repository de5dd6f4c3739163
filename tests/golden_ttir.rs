//! Golden IR of the project's own kernels at every stage (STYLE rule 16): TTIR, TTGIR and PTX.
//!
//! For every `tests/kernels/*.py` (not `errors/`), each `# compile: FLAGS` header line is one
//! compilation through the same code path as `trident compile FILE FLAGS --emit STAGE`; its text
//! is compared with `tests/golden/<stage>/<file>.<kernel>.<stage>` (`.<n>` before the extension
//! for the second and later lines of the same kernel). TTGIR and PTX are compiled for sm_90a.
//! TTIR and TTGIR must also parse back to the same text. `BLESS=1 cargo test --test golden_ttir`
//! rewrites the golden files; review the diff.

use std::path::{Path, PathBuf};

use trident::cli::compile::emit_with_flags;
use trident::golden;

const KERNELS: &str = "tests/kernels";

/// (golden folder and extension, the flags that select the stage).
const STAGES: [(&str, &[&str]); 3] = [
    ("ttir", &["--emit", "ttir"]),
    ("ttgir", &["--emit", "ttgir", "--target", "sm_90a"]),
    ("ptx", &["--emit", "ptx", "--target", "sm_90a"]),
];

#[test]
fn kernels_match_their_golden_ir() {
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
            for (stage, stage_flags) in STAGES {
                let name = if repeat == 0 {
                    format!("{stem}.{kernel}.{stage}")
                } else {
                    format!("{stem}.{kernel}.{}.{stage}", repeat + 1)
                };
                compiled += 1;
                match emit_with_flags(&file, flags, stage_flags) {
                    Ok(text) => {
                        // IR text must round-trip: parse it back and print it again.
                        if stage != "ptx" {
                            match trident_midend::ir::parser::parse_module(&text) {
                                Ok(module) if trident_midend::ir::print_module(&module) == text => {}
                                Ok(_) => failures.push(format!(
                                    "{file} ({kernel}, {stage}): the text does not round-trip"
                                )),
                                Err(e) => failures.push(format!(
                                    "{file} ({kernel}, {stage}): the text does not parse back: {e}"
                                )),
                            }
                        }
                        let golden_path = Path::new("tests/golden").join(stage).join(&name);
                        if let Err(message) = golden::check(&golden_path, &text) {
                            failures.push(format!("{file} ({kernel}, {stage}): {message}"));
                        }
                    }
                    Err(error) => {
                        failures.push(format!(
                            "{file} ({kernel}, {stage}) does not compile:\n{}",
                            error.render()
                        ));
                    }
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
