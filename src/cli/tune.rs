//! `trident tune`: time every `@triton.autotune` config of a kernel, print the table sorted
//! fastest first, and store the winner in the tuning cache.
//!
//! It takes `bench`'s flags. Each config is timed as `run` times them when it tunes
//! ([`super::autotune::time_configs`]: the decorator's `warmup` and `rep` budgets, the inputs
//! restored and `reset_to_zero` zeroed between configs), on nvptx or spirv; interp has no timings
//! worth tuning on, so `--backend interp` (or `auto` with no device) is refused. The cache is never
//! read: `tune` is how a stored choice is measured again. With `--no-cache` nothing is stored.
//!
//! Stdout: a header line, one row per config (rank, config, median ms, and GB/s with `--bytes`,
//! TFLOP/s with `--flops`), the configs that failed, and as the last line
//! `TUNE config=N median_ms=<float> [GB/s=..] [TFLOP/s=..]` for tools. Stderr: the per-config
//! progress (a bar on a terminal) and where the winner was stored.

use trident_runtime::cache::tuning::{Trial, TuningRecord};

use super::args::{self, DataMode};
use super::autotune::{self, TuneDevice};
use super::devices;
use super::error::{usage, CliError};
use super::BenchArgs;

pub fn tune(args: &BenchArgs) -> Result<(), CliError> {
    let mut launch = args::prepare(&args.run.spec, DataMode::Load)?;
    devices::require_built(args.run.backend)?;
    let Some(tuning) = launch.tuning.clone() else {
        return usage(format!(
            "tune: {} has no @triton.autotune configs to choose from (`trident bench` times one configuration)",
            launch.kernel
        ));
    };
    if let Some(index) = tuning.pinned {
        return usage(format!("--config {index}: tune times every config; drop --config"));
    }
    let Some(device) = autotune::open(args.run.backend, args.run.adapter.as_deref())? else {
        return Err(CliError::Failed(
            "tune needs a GPU backend: timings on interp say nothing about a GPU, and --backend auto found \
             neither a CUDA GPU nor a Vulkan adapter here"
                .into(),
        ));
    };
    let (trials, first_error) = autotune::time_configs(&mut launch, &tuning, &device)?;
    let Some(chosen) = autotune::fastest(&trials) else {
        return Err(first_error.unwrap_or_else(|| CliError::Failed("tune: no config ran".into())));
    };
    print_table(&launch.kernel, &device, &trials, args.bytes, args.flops);

    let median_ms = trials.iter().find(|t| t.index == chosen).and_then(|t| t.outcome.clone().ok());
    let median_ms = median_ms.unwrap_or(f64::NAN);
    let record = TuningRecord { chosen, trials };
    let key = autotune::tuning_key(&launch, &tuning, &device)?;
    match autotune::store(&launch, &key, &device, &record) {
        Some(path) => eprintln!("tune: stored {} in {}", tuning.describe(chosen), path.display()),
        None if !launch.cache.is_on() => eprintln!("tune: --no-cache: the choice is not stored"),
        None => eprintln!("tune: the choice is not stored (see the warning above)"),
    }
    let mut line = format!("TUNE config={chosen} median_ms={median_ms:.6}");
    for (name, value) in rates(median_ms, args.bytes, args.flops) {
        line += &format!(" {name}={value:.3}");
    }
    println!("{line}");
    Ok(())
}

/// GB/s and TFLOP/s of a launch of `median_ms`, as `bench` computes them.
fn rates(median_ms: f64, bytes: Option<u64>, flops: Option<u64>) -> Vec<(&'static str, f64)> {
    let mut rates = Vec::new();
    if let Some(bytes) = bytes {
        rates.push(("GB/s", bytes as f64 / median_ms / 1e6));
    }
    if let Some(flops) = flops {
        rates.push(("TFLOP/s", flops as f64 / median_ms / 1e9));
    }
    rates
}

/// The table, fastest first, then the configs that failed.
fn print_table(kernel: &str, device: &TuneDevice, trials: &[Trial], bytes: Option<u64>, flops: Option<u64>) {
    let name = |trial: &Trial| format!("config {} {}", trial.index, trial.config);
    let width = trials.iter().map(|t| name(t).len()).max().unwrap_or(0).max("config".len());
    let mut timed: Vec<(&Trial, f64)> =
        trials.iter().filter_map(|t| t.outcome.as_ref().ok().map(|&ms| (t, ms))).collect();
    timed.sort_by(|a, b| a.1.total_cmp(&b.1));
    println!("tune: {kernel} on {}: {} configs, fastest first", device.describe(), trials.len());
    let mut header = format!("{:>4}  {:<width$}  {:>12}", "rank", "config", "median_ms");
    for (unit, _) in rates(1.0, bytes, flops) {
        header += &format!("  {unit:>10}");
    }
    println!("{header}");
    for (rank, (trial, median_ms)) in timed.iter().enumerate() {
        let mut row = format!("{:>4}  {:<width$}  {median_ms:>12.4}", rank + 1, name(trial));
        for (_, value) in rates(*median_ms, bytes, flops) {
            row += &format!("  {value:>10.3}");
        }
        println!("{row}");
    }
    for trial in trials {
        if let Err(reason) = &trial.outcome {
            println!("{:>4}  {:<width$}  failed: {reason}", "-", name(trial));
        }
    }
}
