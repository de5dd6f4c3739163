//! `trident bench`: time launches of a kernel.
//!
//! Compilation is not timed. One warm-up launch, then timed launches until at least
//! `MIN_RUNS` have run and either `MAX_RUNS` have or `BUDGET` has passed; the median is
//! reported. Buffers are not reset between launches (as in Triton's `do_bench`). The last
//! stdout line is `BENCH median_ms=<float>`, plus `GB/s=` and `TFLOP/s=` when `--bytes` and
//! `--flops` are given.

use std::time::{Duration, Instant};

use super::args::{self, DataMode};
use super::devices::{self, backend_name};
use super::error::CliError;
use super::run::launch_on_interp;
use super::BenchArgs;

const MIN_RUNS: usize = 3;
const MAX_RUNS: usize = 100;
const BUDGET: Duration = Duration::from_secs(2);

pub fn bench(args: &BenchArgs) -> Result<(), CliError> {
    let mut launch = args::prepare(&args.run.spec, DataMode::Load)?;
    let grid = launch.require_grid()?;
    let backend = devices::resolve(args.run.backend)?;
    let module = launch.compile()?;
    let mut buffers = std::mem::take(&mut launch.buffers);

    launch_on_interp(&launch, &module, grid, &mut buffers)?;
    let mut times_ms = Vec::new();
    let started = Instant::now();
    while times_ms.len() < MIN_RUNS || (times_ms.len() < MAX_RUNS && started.elapsed() < BUDGET) {
        let start = Instant::now();
        launch_on_interp(&launch, &module, grid, &mut buffers)?;
        times_ms.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times_ms.sort_by(f64::total_cmp);
    let median_ms = median(&times_ms);

    println!(
        "bench: {} on {}: {} launches after 1 warm-up, min {:.4} ms, median {:.4} ms",
        launch.kernel,
        backend_name(backend),
        times_ms.len(),
        times_ms[0],
        median_ms
    );
    let mut line = format!("BENCH median_ms={median_ms:.6}");
    if let Some(bytes) = args.bytes {
        line += &format!(" GB/s={:.3}", bytes as f64 / median_ms / 1e6);
    }
    if let Some(flops) = args.flops {
        line += &format!(" TFLOP/s={:.3}", flops as f64 / median_ms / 1e9);
    }
    println!("{line}");
    Ok(())
}

/// The median of sorted, non-empty samples.
fn median(sorted: &[f64]) -> f64 {
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    }
}
