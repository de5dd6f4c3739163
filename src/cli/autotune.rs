//! `@triton.autotune` on the command line: which config a launch uses.
//!
//! The frontend reads the configs ([`trident_frontend::Autotune`]); this module picks one, as
//! Triton's `Autotuner.run` does on a kernel's first launch:
//! - `--config N` pins config N (0-based), on every verb;
//! - `run`, `bench` and `check` on nvptx or spirv time every config ([`tune`]): each is compiled
//!   with its constexprs, `num_warps` and `num_stages`, launched from a fresh copy of the inputs
//!   (the buffers named in `reset_to_zero` zeroed; every buffer, not only those of
//!   `restore_value`, comes back to its input value between configs), timed like `trident bench`
//!   within the decorator's `warmup` and `rep` budgets (Triton's 25 and 100 ms by default), and
//!   the fastest median wins; a config that does not compile or launch is reported and skipped;
//! - on interp, timings say nothing about a GPU: config 0, with one line saying so;
//! - `compile` takes config 0 and says so.
//!
//! Every line goes to stderr: one per timed config, then `autotune: chose config N {...}`. After
//! tuning, the buffers of `reset_to_zero` are zeroed for the real launch, as Triton's autotuner
//! does after benchmarking. Not done yet: the on-disk cache of the choice per `key` (every run
//! tunes again), `prune_configs_by`, hooks.

use std::time::Duration;

use trident_frontend::Autotune;
use trident_runtime::cuda::{BenchOptions, CudaDevice};
use trident_runtime::wgpu::{BenchLimits, WgpuDevice};
use trident_runtime::Buffer;

use super::args::Launch;
use super::error::CliError;
use super::{nvptx, spirv, Backend};
use crate::{CompileError, Specialization};

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
enum TuneDevice {
    Nvptx(Box<CudaDevice>),
    Spirv(Box<WgpuDevice>),
}

/// Picks the config of an autotuned launch for `run`, `bench` and `check` on `backend`, and
/// sets `launch` to it. A launch without `@triton.autotune` is left as it is.
pub fn choose_config(launch: &mut Launch, backend: Backend, adapter: Option<&str>) -> Result<(), CliError> {
    let Some(tuning) = launch.tuning.clone() else { return Ok(()) };
    let count = tuning.autotune.configs.len();
    if let Some(index) = tuning.pinned {
        eprintln!("autotune: using {} (--config {index})", tuning.describe(index));
        return select(launch, &tuning, index);
    }
    if count == 1 {
        eprintln!("autotune: using {}, the only config", tuning.describe(0));
        return select(launch, &tuning, 0);
    }
    let Some(device) = open(backend, adapter)? else {
        eprintln!(
            "autotune: timings on interp say nothing about a GPU; using {} of {count} (--config N picks another)",
            tuning.describe(0)
        );
        return select(launch, &tuning, 0);
    };
    tune(launch, &tuning, &device)
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
fn select(launch: &mut Launch, tuning: &Tuning, index: usize) -> Result<(), CliError> {
    launch.spec = tuning.spec_for(index);
    if let Some(maxnreg) = tuning.autotune.configs[index].maxnreg {
        eprintln!("warning: maxnreg={maxnreg} of config {index} is not applied by trident yet");
    }
    Ok(())
}

/// The device to time on, `None` for interp.
fn open(backend: Backend, adapter: Option<&str>) -> Result<Option<TuneDevice>, CliError> {
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

/// Times every config on `device`, prints one line each, and selects the fastest.
fn tune(launch: &mut Launch, tuning: &Tuning, device: &TuneDevice) -> Result<(), CliError> {
    let count = tuning.autotune.configs.len();
    let where_ = match device {
        TuneDevice::Nvptx(gpu) => format!("nvptx ({})", nvptx::describe(gpu)),
        TuneDevice::Spirv(vulkan) => format!("spirv ({})", spirv::describe(vulkan)),
    };
    eprintln!("autotune: timing {count} configs of {} on {where_}", launch.kernel);
    let inputs = launch.buffers.clone();
    let mut best: Option<(usize, f64)> = None;
    let mut first_error: Option<CliError> = None;
    for index in 0..count {
        launch.spec = tuning.spec_for(index);
        match trial(launch, tuning, device, &inputs)? {
            Ok(median_ms) => {
                eprintln!("autotune: {}: {median_ms:.4} ms", tuning.describe(index));
                if best.is_none_or(|(_, fastest)| median_ms < fastest) {
                    best = Some((index, median_ms));
                }
            }
            Err(error) => {
                let text = error.render();
                let first = text.lines().next().unwrap_or_default().trim_start_matches("error: ");
                eprintln!("autotune: {}: failed: {first}", tuning.describe(index));
                first_error.get_or_insert(error);
            }
        }
    }
    let Some((index, _)) = best else {
        // No config ran: the first failure is the kernel's error.
        return Err(first_error.unwrap_or_else(|| CliError::Failed("autotune: no config ran".into())));
    };
    eprintln!("autotune: chose {}", tuning.describe(index));
    select(launch, tuning, index)?;
    // As Triton's autotuner after benchmarking, the real launch sees `reset_to_zero` zeroed.
    zero(&mut launch.buffers, &tuning.autotune.reset_to_zero);
    Ok(())
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
    let mut buffers = inputs.to_vec();
    zero(&mut buffers, &tuning.autotune.reset_to_zero);
    let warmup = Duration::from_millis(tuning.autotune.warmup_ms);
    let budget = Duration::from_millis(tuning.autotune.rep_ms);
    let failed = |message: String| Ok(Err(CliError::Failed(message)));
    match device {
        TuneDevice::Nvptx(gpu) => {
            let artifact = match nvptx::compile_for(launch, &module, gpu) {
                Ok(artifact) => artifact,
                Err(CompileError::User(diagnostics)) => return Ok(Err(CliError::Kernel(diagnostics))),
                Err(internal) => return Err(internal.into()),
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
                Err(CompileError::User(diagnostics)) => return Ok(Err(CliError::Kernel(diagnostics))),
                Err(internal) => return Err(internal.into()),
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
