//! The CI smoke campaign: a few thousand executions with a fixed seed, through worker processes
//! as a real campaign runs them, and no finding allowed. `.ci/run` runs it in release
//! (`cargo test --release -p trident-fuzz`), where it takes a few seconds; the seed inputs come
//! first, so every seed kernel is compiled through every stage as well.

use std::path::PathBuf;
use std::time::Duration;

use trident_fuzz::driver::{self, Config, Limit};
use trident_fuzz::execute::Stages;
use trident_fuzz::process::WorkerCommand;
use trident_fuzz::seeds::SeedPaths;

/// Executions of the smoke campaign.
const ITERATIONS: u64 = 4000;

#[test]
fn a_fixed_seed_campaign_finds_nothing() {
    let config = Config {
        seed: 14,
        limit: Limit::Iterations(ITERATIONS),
        jobs: 2,
        findings: None,
        timeout: Duration::from_secs(10),
        worker: WorkerCommand {
            exe: PathBuf::from(env!("CARGO_BIN_EXE_trident-fuzz")),
            stages: Stages::default(),
            memory_megabytes: 4096,
        },
        minimize: false,
        progress_every: None,
        seeds: SeedPaths::default_for_this_checkout(),
    };
    let report = driver::run(&config).unwrap_or_else(|e| panic!("the campaign did not run: {e}"));
    for note in &report.notes {
        eprintln!("note: {note}");
    }
    assert_eq!(report.executions, ITERATIONS, "{}", report.summary());
    assert!(report.findings.is_empty(), "the smoke campaign found something:\n{}", report.summary());
    eprintln!("{}", report.summary().trim_end());
}
