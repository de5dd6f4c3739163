//! Every input under `fuzz/regressions/` through every stage, in this process: each is the
//! minimized input of a finding that was fixed (a panic, an internal compiler error, a crash or a
//! hang), named after what it checks. A user error is the right answer to most of them; a panic or
//! an internal error fails the test, naming the file. In release builds (`cargo test --release
//! -p trident-fuzz`, as CI runs it) each input must also finish within the campaign's hang budget (of
//! CPU time, as the campaign measures it).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use trident_fuzz::execute::{execute, Stages, Verdict};
use trident_fuzz::input::Input;
use trident_fuzz::process::cpu_time;

// The allocator of a campaign's workers (the trident-fuzz binary's), which the budget is for.
#[global_allocator]
static ALLOCATOR: trident::allocator::Allocator = trident::allocator::Allocator;

/// The hang budget of a campaign (`--timeout-ms`'s default).
const BUDGET: Duration = Duration::from_secs(10);

fn regression_inputs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "fuzz"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_regression_input_gets_a_verdict_without_an_internal_error() {
    trident::allocator::keep_freed_memory();
    let files = regression_inputs();
    assert!(!files.is_empty(), "no .fuzz files under fuzz/regressions");
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let input = match Input::decode(&text) {
            Ok(input) => input,
            Err(e) => {
                failures.push(format!("{name}: does not decode: {e}"));
                continue;
            }
        };
        // The budget is on CPU time, as a campaign's workers are measured (wall time where the
        // system has no per-process CPU time): a loaded machine does not make an input slow.
        let cpu = || cpu_time(std::process::id());
        let (start, cpu_start) = (Instant::now(), cpu());
        let verdict = catch_unwind(AssertUnwindSafe(|| execute(&input, &Stages::default())));
        let elapsed =
            cpu_start.zip(cpu()).map_or_else(|| start.elapsed(), |(from, to)| to.saturating_sub(from));
        match verdict {
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{name}: panicked: {message}"));
            }
            Ok(Verdict::Internal { stage, message }) => {
                failures.push(format!("{name}: internal error in the {} stage: {message}", stage.name()))
            }
            Ok(Verdict::Panic { stage, message }) => {
                failures.push(format!("{name}: panic in the {} stage: {message}", stage.name()))
            }
            Ok(Verdict::Accepted | Verdict::Rejected { .. }) => {}
        }
        // Debug builds are several times slower; the budget is a release build's.
        if !cfg!(debug_assertions) && elapsed > BUDGET {
            failures.push(format!(
                "{name}: took {:.1} s of CPU time, over the {} s hang budget",
                elapsed.as_secs_f64(),
                BUDGET.as_secs()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} regression inputs:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
