//! `trident bench`: time launches of a kernel.
//!
//! Compilation is not timed. How many launches are timed (the README states the same rule):
//! - interp and spirv ([`LIMITS`]): one warm-up launch, then timed launches until at least 3 have
//!   run and either 1000 have or 2 s have passed; interp times each launch with the wall clock,
//!   spirv with timestamp queries around each compute pass where the device has them, else the
//!   wall clock around submit and wait;
//! - nvptx: the CUDA device's `bench` with `BenchOptions::default()`, Triton's `do_bench`: warm-up
//!   launches for 25 ms, then at least 5 timed launches, up to 1000 or 0.5 s, CUDA events around
//!   each launch, each after a 256 MB write that empties L2, buffers kept on the GPU.
//!
//! The median is reported. Buffers are not reset between launches (as in Triton's `do_bench`).
//! The last stdout line is `BENCH median_ms=<float>`, plus `GB/s=` and `TFLOP/s=` when `--bytes`
//! and `--flops` are given.

use std::time::{Duration, Instant};

use trident_runtime::cuda::BenchOptions;
use trident_runtime::wgpu::BenchLimits;

use super::args::{self, DataMode};
use super::autotune;
use super::devices::{self, Chosen};
use super::error::CliError;
use super::nvptx;
use super::run::launch_on_interp;
use super::spirv;
use super::BenchArgs;

/// How many launches interp and spirv time: at least 3, then up to 1000 or 2 s.
pub const LIMITS: BenchLimits = BenchLimits { min_runs: 3, max_runs: 1000, budget: Duration::from_secs(2) };

/// What one benchmark measured.
struct Timings {
    runs: usize,
    min_ms: f64,
    median_ms: f64,
    /// How the times were taken, for the summary line.
    clock: &'static str,
}

pub fn bench(args: &BenchArgs) -> Result<(), CliError> {
    let mut launch = args::prepare(&args.run.spec, DataMode::Load)?;
    devices::require_built(args.run.backend)?;
    autotune::choose_config(&mut launch, args.run.backend, args.run.adapter.as_deref())?;
    let grid = launch.require_grid()?;
    let module = launch.compile()?;
    // The buffers stay in `launch` until the backend is chosen: spirv compiles for their sizes.
    let chosen = devices::choose(args.run.backend, &launch, &module, args.run.adapter.as_deref())?;
    let mut buffers = std::mem::take(&mut launch.buffers);

    let timings = match &chosen {
        Chosen::Interp => {
            launch_on_interp(&launch, &module, grid, &mut buffers)?;
            let mut times_ms = Vec::new();
            let started = Instant::now();
            while times_ms.len() < LIMITS.min_runs
                || (times_ms.len() < LIMITS.max_runs && started.elapsed() < LIMITS.budget)
            {
                let start = Instant::now();
                launch_on_interp(&launch, &module, grid, &mut buffers)?;
                times_ms.push(start.elapsed().as_secs_f64() * 1e3);
            }
            times_ms.sort_by(f64::total_cmp);
            Timings {
                runs: times_ms.len(),
                min_ms: times_ms[0],
                median_ms: median(&times_ms),
                clock: "wall clock",
            }
        }
        Chosen::Nvptx(gpu) => {
            let kernel_args = nvptx::args(&launch, &module)?;
            let stats = gpu
                .device
                .bench(&gpu.kernel, grid, &kernel_args, &mut buffers, &BenchOptions::default())
                .map_err(|error| CliError::Failed(error.to_string()))?;
            Timings {
                runs: stats.runs,
                min_ms: stats.min_ms,
                median_ms: stats.median_ms,
                clock: "CUDA events",
            }
        }
        Chosen::Spirv(kernel) => {
            let kernel_args = spirv::args(&launch, &module)?;
            let stats = kernel
                .device
                .bench(&kernel.artifact, grid, &kernel_args, &mut buffers, LIMITS)
                .map_err(|error| spirv::device_error(&launch, error))?;
            Timings {
                runs: stats.runs,
                min_ms: stats.min_ms,
                median_ms: stats.median_ms,
                clock: if stats.gpu_timestamps {
                    "Vulkan timestamps around the compute pass"
                } else {
                    "wall clock around submit and wait (the device has no timestamp queries)"
                },
            }
        }
    };

    println!(
        "bench: {} on {}: {} launches after warm-up ({}), min {:.4} ms, median {:.4} ms",
        launch.kernel,
        chosen.name(),
        timings.runs,
        timings.clock,
        timings.min_ms,
        timings.median_ms
    );
    let median_ms = timings.median_ms;
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
