//! Axis-info tests: IR text in, annotated dump out (STYLE rule 18).
//!
//! Each case is a file `tests/axis_info/<case>.mlir` holding a module, a line `// ----- expected`,
//! and the dump [`print_axis_info`] must produce: the module's text with one comment line per
//! integer or pointer value giving its contiguity, divisibility and constancy. The input must
//! parse and verify. `BLESS=1 cargo test -p trident-midend --test axis_info` rewrites the
//! expected halves from the current output; every blessed number must be checked by hand against
//! the rules in `analysis/axis_info.rs` (the comments at the top of each case say what to expect).

use std::path::{Path, PathBuf};

use trident_midend::analysis::axis_info::{analyze, print_axis_info, AxisInfo};
use trident_midend::ir::parser::parse_module;
use trident_midend::ir::verifier::verify_module;

const SEPARATOR: &str = "// ----- expected\n";

#[test]
fn cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/axis_info");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "mlir"))
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no cases in {}", dir.display());

    let bless = std::env::var_os("BLESS").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    for case in &cases {
        if let Err(message) = check(case, bless) {
            failures.push(format!("{}:\n{message}", case.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Checks one case file; with `bless`, rewrites its expected half instead of comparing.
fn check(case: &Path, bless: bool) -> Result<(), String> {
    let text = std::fs::read_to_string(case).map_err(|e| e.to_string())?;
    let (input, expected) = match text.split_once(SEPARATOR) {
        Some((input, expected)) => (input, expected),
        None if bless => (text.as_str(), ""),
        None => return Err(format!("no `{}` line", SEPARATOR.trim_end())),
    };
    let module = parse_module(input).map_err(|e| format!("input does not parse: {e}"))?;
    verify_module(&module).map_err(|e| format!("input does not verify: {e}"))?;
    let actual = print_axis_info(&module);
    if bless {
        let blessed = format!("{}\n{SEPARATOR}{actual}", input.trim_end());
        std::fs::write(case, blessed).map_err(|e| e.to_string())?;
        return Ok(());
    }
    if actual.trim_end() != expected.trim_end() {
        return Err(format!("--- expected\n{expected}\n--- actual\n{actual}"));
    }
    Ok(())
}

/// The map answers for integers and pointers and stays silent for floats, and the vector-add
/// store pointer has the facts coalescing relies on (also visible in `vector_add.mlir`).
#[test]
fn map_covers_integers_and_pointers_only() {
    let text = "tt.func public @k(%p: !tt.ptr<f32> {tt.divisibility = 16}, %x: f32) {\n  %0 = tt.make_range {start = 0, end = 128} : tensor<128xi32>\n  %1 = tt.splat %p : tensor<128x!tt.ptr<f32>>\n  %2 = tt.addptr %1, %0 : tensor<128x!tt.ptr<f32>>\n  %3 = tt.splat %x : tensor<128xf32>\n  tt.store %2, %3\n  tt.return\n}\n";
    let module = parse_module(text).expect("parses");
    let function = &module.functions[0];
    let map = analyze(function);
    let params = function.params();
    assert!(map.get(params[1]).is_none(), "a float parameter has no axis info");
    let ops = &function.body.blocks[function.entry].ops;
    let pointers = function.body.result(ops[2]);
    let expected =
        AxisInfo { contiguity: vec![128], divisibility: vec![16], constancy: vec![1], constant: None };
    assert_eq!(map.get(pointers), Some(&expected));
    assert!(map.get(function.body.result(ops[3])).is_none(), "a float splat has no axis info");
}
