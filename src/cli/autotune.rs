//! `@triton.autotune` on the command line: which config a launch uses.
//!
//! The frontend reads the configs ([`trident_frontend::Autotune`]); this module picks one, as
//! Triton's `Autotuner.run` does on a kernel's first launch:
//! - `--config N` pins config N (0-based), on every verb;
//! - `run`, `bench` and `check` on nvptx or spirv first look in the tuning cache
//!   ([`trident_runtime::cache`]: keyed by the kernel's file, the values of the decorator's `key`
//!   arguments, the pointer dtypes, the `--const` values and those of the heuristics stacked above
//!   `@triton.autotune` (Triton runs them before the autotuner, so its key may name them), the
//!   backend and the device with its driver). A hit prints `autotune: cached config N {...} (from PATH)` and times nothing;
//! - on a miss they time every config ([`time_configs`]): each is compiled with its constexprs,
//!   `num_warps` and `num_stages`, launched from a fresh copy of the inputs (the buffers named in
//!   `reset_to_zero` zeroed; every buffer, not only those of `restore_value`, comes back to its
//!   input value between configs), timed like `trident bench` within the decorator's `warmup` and
//!   `rep` budgets (Triton's 25 and 100 ms by default), and the fastest median wins and is
//!   stored; a config that does not compile or launch is reported and skipped;
//! - `trident tune` ([`super::tune`]) always times every config, prints the table and stores the
//!   winner;
//! - on interp, timings say nothing about a GPU: config 0, with one line saying so;
//! - `compile` takes config 0 and says so.
//!
//! Every line goes to stderr: one per timed config, then `autotune: chose config N {...}`. When
//! stderr is a terminal, an `indicatif` progress bar shows which config is being timed (index,
//! config, and the times so far above it); elsewhere (tests, CI, a file) the lines are plain.
//! After tuning, and after a cache hit alike, the buffers of `reset_to_zero` are zeroed for the
//! real launch, as Triton's autotuner does after benchmarking, so that the output does not depend
//! on the cache. Not done yet: `prune_configs_by`, hooks.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use trident_frontend::Autotune;
use trident_runtime::cache::keys::{self, Key};
use trident_runtime::cache::tuning::{Trial, TuningRecord};
use trident_runtime::cache::{self, About, Hit, Kind};
use trident_runtime::cuda::{BenchOptions, CudaDevice};
use trident_runtime::wgpu::{BenchLimits, WgpuDevice};
use trident_runtime::Buffer;

use super::args::Launch;
use super::error::CliError;
use super::{notes, nvptx, spirv, Backend};
use crate::Specialization;

/// An autotuned launch: the configs and the command line's own specialization.
#[derive(Clone, Debug)]
pub struct Tuning {
    pub autotune: Autotune,
    /// The specialization the flags give, before any config.
    pub base: Specialization,
    /// `--config N`.
    pub pinned: Option<usize>,
}

impl Tuning {
    /// The specialization of config `index`: its meta-parameters added to the flags', its
    /// `num_warps` and `num_stages` in place of theirs (Triton passes the config's).
    pub fn spec_for(&self, index: usize) -> Specialization {
        let config = &self.autotune.configs[index];
        let mut spec = self.base.clone();
        spec.constexprs.extend(config.kwargs.iter().cloned());
        spec.num_warps = config.num_warps;
        spec.num_stages = config.num_stages;
        spec
    }

    /// `config N {...}`.
    pub fn describe(&self, index: usize) -> String {
        format!("config {index} {}", self.autotune.configs[index].describe())
    }

    /// One line per config, for the error of a `--config` out of range.
    pub fn list(&self) -> String {
        (0..self.autotune.configs.len()).map(|i| format!("\n  {}", self.describe(i))).collect()
    }
}

/// Where the configs are timed.
pub enum TuneDevice {
    Nvptx(Box<CudaDevice>),
    Spirv(Box<WgpuDevice>),
}

impl TuneDevice {
    /// `nvptx` or `spirv`.
    pub fn backend(&self) -> &'static str {
        match self {
            TuneDevice::Nvptx(_) => "nvptx",
            TuneDevice::Spirv(_) => "spirv",
        }
    }

    /// The backend and the device, as the lines say: `spirv (vulkan:0 llvmpipe ...)`.
    pub fn describe(&self) -> String {
        match self {
            TuneDevice::Nvptx(gpu) => format!("nvptx ({})", nvptx::describe(gpu)),
            TuneDevice::Spirv(vulkan) => format!("spirv ({})", spirv::describe(vulkan)),
        }
    }

    /// What identifies the device for the tuning cache: its name, and its driver with version.
    fn identity(&self) -> String {
        match self {
            TuneDevice::Nvptx(gpu) => {
                let (major, minor) = gpu.compute_capability();
                let (driver_major, driver_minor) = gpu.driver_version();
                format!(
                    "{} (compute capability {major}.{minor}), CUDA driver {driver_major}.{driver_minor}",
                    gpu.name()
                )
            }
            TuneDevice::Spirv(vulkan) => {
                let summary = vulkan.summary();
                format!("{} ({})", summary.name, summary.driver)
            }
        }
    }
}

/// Picks the config of an autotuned launch for `run`, `bench` and `check` on `backend`, and
/// sets `launch` to it. A launch without `@triton.autotune` is left as it is.
pub fn choose_config(launch: &mut Launch, backend: Backend, adapter: Option<&str>) -> Result<(), CliError> {
    let Some(tuning) = launch.tuning.clone() else { return Ok(()) };
    let count = tuning.autotune.configs.len();
    if let Some(index) = tuning.pinned {
        notes::once(&format!("autotune: using {} (--config {index})", tuning.describe(index)));
        return select(launch, &tuning, index);
    }
    if count == 1 {
        notes::once(&format!("autotune: using {}, the only config", tuning.describe(0)));
        return select(launch, &tuning, 0);
    }
    let Some(device) = open(backend, adapter)? else {
        notes::once(&format!(
            "autotune: timings on interp say nothing about a GPU; using {} of {count} (--config N picks another)",
            tuning.describe(0)
        ));
        return select(launch, &tuning, 0);
    };
    let key = tuning_key(launch, &tuning, &device)?;
    if let Some(hit) = load(launch, &tuning, &key) {
        let index = hit.value.chosen;
        notes::once(&format!("autotune: cached {} (from {})", tuning.describe(index), hit.path.display()));
        select(launch, &tuning, index)?;
        zero(&mut launch.buffers, &tuning.autotune.reset_to_zero);
        return Ok(());
    }
    let (trials, first_error) = time_configs(launch, &tuning, &device)?;
    let Some(index) = fastest(&trials) else {
        // No config ran: the first failure is the kernel's error.
        return Err(first_error.unwrap_or_else(|| CliError::Failed("autotune: no config ran".into())));
    };
    eprintln!("autotune: chose {}", tuning.describe(index));
    store(launch, &key, &device, &TuningRecord { chosen: index, trials });
    select(launch, &tuning, index)?;
    // As Triton's autotuner after benchmarking, the real launch sees `reset_to_zero` zeroed.
    zero(&mut launch.buffers, &tuning.autotune.reset_to_zero);
    Ok(())
}

/// The tuning cache's key for the launch's kernel on `device`. It is computed from what Triton's
/// autotuner receives: the command line's specialization, with the values of the heuristics
/// stacked above `@triton.autotune` (they run first, and its `key` may name them). A heuristic
/// that fails is the kernel's error.
pub fn tuning_key(launch: &Launch, tuning: &Tuning, device: &TuneDevice) -> Result<Key, CliError> {
    let base = trident_frontend::specialize_before_config(
        &launch.path,
        &launch.source,
        &launch.kernel,
        &tuning.base,
    )
    .map_err(CliError::Kernel)?;
    Ok(keys::tuning(
        &launch.source,
        &launch.kernel,
        &base,
        &tuning.autotune.key,
        device.backend(),
        &device.identity(),
    ))
}

/// The cached choice for `key`, checked against the kernel's configs.
fn load(launch: &Launch, tuning: &Tuning, key: &Key) -> Option<Hit<TuningRecord>> {
    let configs: Vec<String> = tuning.autotune.configs.iter().map(|c| c.describe()).collect();
    launch.cache.load(Kind::Tuning, key, |bytes| {
        let record = cache::tuning::decode(bytes)?;
        record.check(&configs)?;
        Ok(record)
    })
}

/// Stores a tuning result; returns where (`None` when the cache is off or the write failed).
pub fn store(launch: &Launch, key: &Key, device: &TuneDevice, record: &TuningRecord) -> Option<PathBuf> {
    let target = device.identity();
    let about = About { kernel: &launch.kernel, backend: device.backend(), target: &target };
    launch.cache.store(Kind::Tuning, key, about, &cache::tuning::encode(record))
}

/// The index of the fastest config that ran.
pub fn fastest(trials: &[Trial]) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for trial in trials {
        if let Ok(median_ms) = trial.outcome {
            if best.is_none_or(|(_, fastest)| median_ms < fastest) {
                best = Some((trial.index, median_ms));
            }
        }
    }
    best.map(|(index, _)| index)
}

/// `compile`: `--config N`, or config 0; says which on stderr.
pub fn choose_for_compile(launch: &mut Launch) -> Result<(), CliError> {
    let Some(tuning) = launch.tuning.clone() else { return Ok(()) };
    let count = tuning.autotune.configs.len();
    match tuning.pinned {
        Some(index) => eprintln!("autotune: compiling {} (--config {index})", tuning.describe(index)),
        None => eprintln!("autotune: compiling {} of {count} (--config N picks another)", tuning.describe(0)),
    }
    select(launch, &tuning, tuning.pinned.unwrap_or(0))
}

/// Sets the launch to config `index`, warning about what of it trident does not apply.
pub fn select(launch: &mut Launch, tuning: &Tuning, index: usize) -> Result<(), CliError> {
    launch.spec = tuning.spec_for(index);
    if let Some(maxnreg) = tuning.autotune.configs[index].maxnreg {
        eprintln!("warning: maxnreg={maxnreg} of config {index} is not applied by trident yet");
    }
    Ok(())
}

/// The device to time on, `None` for interp (and for `auto` on a machine with neither a CUDA
/// GPU nor a Vulkan adapter).
pub fn open(backend: Backend, adapter: Option<&str>) -> Result<Option<TuneDevice>, CliError> {
    match backend {
        Backend::Interp => Ok(None),
        Backend::Nvptx => match nvptx::open_device()? {
            Ok(device) => Ok(Some(TuneDevice::Nvptx(Box::new(device)))),
            Err(reason) => Err(nvptx::no_gpu(&reason)),
        },
        Backend::Spirv => match spirv::open_device(adapter)? {
            Ok(device) => Ok(Some(TuneDevice::Spirv(Box::new(device)))),
            Err(reason) => Err(spirv::no_adapter(&reason)),
        },
        Backend::Auto => {
            if let Ok(device) = nvptx::open_device()? {
                return Ok(Some(TuneDevice::Nvptx(Box::new(device))));
            }
            match spirv::open_device(adapter)? {
                Ok(device) => Ok(Some(TuneDevice::Spirv(Box::new(device)))),
                Err(_) => Ok(None),
            }
        }
    }
}

/// How the timing of the configs shows on stderr: a progress bar on a terminal, plain lines
/// elsewhere.
enum Progress {
    Bar(ProgressBar),
    Lines,
}

impl Progress {
    fn new(count: usize) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress::Lines;
        }
        let Ok(style) = ProgressStyle::with_template("autotune {spinner} [{bar:24}] {pos}/{len} {msg}")
        else {
            return Progress::Lines;
        };
        let bar = ProgressBar::with_draw_target(Some(count as u64), ProgressDrawTarget::stderr())
            .with_style(style.progress_chars("=> "));
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress::Bar(bar)
    }

    /// Config `describe` is being timed.
    fn start(&self, describe: &str) {
        if let Progress::Bar(bar) = self {
            bar.set_message(format!("timing {describe}"));
        }
    }

    /// A line that stays: above the bar, or on stderr.
    fn line(&self, text: &str) {
        match self {
            Progress::Bar(bar) => {
                bar.println(text);
                bar.inc(1);
            }
            Progress::Lines => eprintln!("{text}"),
        }
    }

    fn finish(self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

/// Times every config on `device`, printing one line each: their outcomes in the decorator's
/// order, and the first failure (the kernel's error when none ran). The launch is left at the
/// last config; the caller selects one.
pub fn time_configs(
    launch: &mut Launch,
    tuning: &Tuning,
    device: &TuneDevice,
) -> Result<(Vec<Trial>, Option<CliError>), CliError> {
    let count = tuning.autotune.configs.len();
    eprintln!("autotune: timing {count} configs of {} on {}", launch.kernel, device.describe());
    let inputs = launch.buffers.clone();
    let progress = Progress::new(count);
    let mut trials = Vec::with_capacity(count);
    let mut first_error: Option<CliError> = None;
    for index in 0..count {
        let config = tuning.autotune.configs[index].describe();
        progress.start(&tuning.describe(index));
        launch.spec = tuning.spec_for(index);
        let outcome = match trial(launch, tuning, device, &inputs) {
            Ok(outcome) => outcome,
            Err(error) => {
                progress.finish();
                return Err(error);
            }
        };
        match outcome {
            Ok(median_ms) => {
                progress.line(&format!("autotune: {}: {median_ms:.4} ms", tuning.describe(index)));
                trials.push(Trial { index, config, outcome: Ok(median_ms) });
            }
            Err(error) => {
                let text = error.render();
                let first = text.lines().next().unwrap_or_default().trim_start_matches("error: ").to_string();
                progress.line(&format!("autotune: {}: failed: {first}", tuning.describe(index)));
                trials.push(Trial { index, config, outcome: Err(first) });
                first_error.get_or_insert(error);
            }
        }
    }
    progress.finish();
    Ok((trials, first_error))
}
/// Zeroes the buffers named in `names`.
fn zero(buffers: &mut [Buffer], names: &[String]) {
    for buffer in buffers.iter_mut().filter(|b| names.contains(&b.name)) {
        buffer.bytes.fill(0);
    }
}

/// Compiles, launches and times the launch's current config. `Ok(Err(..))` is a config that
/// fails (it is skipped); `Err` stops the command (a bad grid, an internal compiler error).
fn trial(
    launch: &Launch,
    tuning: &Tuning,
    device: &TuneDevice,
    inputs: &[Buffer],
) -> Result<Result<f64, CliError>, CliError> {
    let grid = launch.require_grid()?;
    let module = match launch.compile() {
        Ok(module) => module,
        Err(error @ CliError::Kernel(_)) => return Ok(Err(error)),
        Err(other) => return Err(other),
    };
    // A config the backend cannot compile is skipped; an internal compiler error stops.
    let skip_kernel_errors = |error: CliError| match error {
        error @ CliError::Kernel(_) => Ok(Err(error)),
        other => Err(other),
    };
    let mut buffers = inputs.to_vec();
    zero(&mut buffers, &tuning.autotune.reset_to_zero);
    let warmup = Duration::from_millis(tuning.autotune.warmup_ms);
    let budget = Duration::from_millis(tuning.autotune.rep_ms);
    let failed = |message: String| Ok(Err(CliError::Failed(message)));
    match device {
        TuneDevice::Nvptx(gpu) => {
            let artifact = match nvptx::compile_for(launch, &module, gpu) {
                Ok(artifact) => artifact,
                Err(error) => return skip_kernel_errors(error),
            };
            let kernel = match gpu.load(&artifact) {
                Ok(kernel) => kernel,
                Err(error) => return failed(error.to_string()),
            };
            let args = nvptx::args(launch, &module)?;
            let options = BenchOptions { warmup, min_runs: 3, max_runs: 1000, budget };
            match gpu.bench(&kernel, grid, &args, &mut buffers, &options) {
                Ok(stats) => Ok(Ok(stats.median_ms)),
                Err(error) => failed(error.to_string()),
            }
        }
        TuneDevice::Spirv(vulkan) => {
            let artifact = match spirv::compile_for(launch, &module, vulkan) {
                Ok(artifact) => artifact,
                Err(error) => return skip_kernel_errors(error),
            };
            let args = spirv::args(launch, &module)?;
            let limits = BenchLimits { min_runs: 3, max_runs: 1000, budget };
            match vulkan.bench(&artifact, grid, &args, &mut buffers, limits) {
                Ok(stats) => Ok(Ok(stats.median_ms)),
                Err(error) => failed(error.to_string()),
            }
        }
    }
}
