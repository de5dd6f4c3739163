//! `trident check`: run a kernel on every available backend and compare each buffer with interp.
//!
//! interp is the reference. Every other backend that can run here (nvptx when this machine has
//! a CUDA GPU) runs the same launch from the same inputs, and every buffer it returns is
//! compared with interp's ([`super::compare`]: per-dtype tolerances, `--atol`/`--rtol`
//! overrides). The table has one row per compared buffer; backends that cannot run get a row
//! saying why. A disagreement, or a backend that fails where interp succeeded, exits 1 and names
//! the buffer and the first element index beyond tolerance.
//!
//! `--backend` narrows the comparison: `auto` (the default) compares every available backend,
//! `nvptx` requires the GPU, `interp` compares nothing. The hidden test option
//! `--perturb BACKEND:BUFFER:INDEX` changes one element of one backend's output before the
//! comparison, to prove that disagreements are caught; `--perturb interp:...` adds a second
//! interp run to be the perturbed one, so the proof needs no GPU.

use trident_midend::ir::Module;
use trident_runtime::Buffer;

use super::args::{self, DataMode, Launch};
use super::autotune;
use super::compare::{self, default_tolerance, Comparison, Tolerance};
use super::devices;
use super::error::{usage, CliError};
use super::nvptx;
use super::run::{launch_on_interp, write_buffers};
use super::spirv;
use super::{Backend, CheckArgs};

/// The row of the second interp run that `--perturb interp:...` perturbs.
const SECOND_INTERP: &str = "interp#2";

/// `--perturb BACKEND:BUFFER:INDEX`.
#[derive(Clone, Debug, PartialEq)]
struct Perturbation {
    backend: String,
    buffer: String,
    index: usize,
}

/// What happened to one backend.
enum Outcome {
    /// It cannot run here; why.
    Unavailable(String),
    /// It ran and failed where interp succeeded; the error.
    Failed(String),
    /// It ran; its buffers.
    Ran(Vec<Buffer>),
}

struct Row {
    backend: String,
    outcome: Outcome,
}

pub fn check(args: &CheckArgs) -> Result<(), CliError> {
    let perturbation = args.perturb.as_deref().map(parse_perturbation).transpose()?;
    let mut launch = args::prepare(&args.run.spec, DataMode::Load)?;
    devices::require_built(args.run.backend)?;
    autotune::choose_config(&mut launch, args.run.backend, args.run.adapter.as_deref())?;
    let grid = launch.require_grid()?;
    let module = launch.compile()?;
    // The inputs stay in `launch`: spirv compiles for their sizes.
    let inputs = &launch.buffers;

    let mut reference = inputs.clone();
    launch_on_interp(&launch, &module, grid, &mut reference)?;

    let mut rows = Vec::new();
    if matches!(args.run.backend, Backend::Auto | Backend::Nvptx) {
        let outcome = run_nvptx(&launch, &module, grid, inputs)?;
        if let (Backend::Nvptx, Outcome::Unavailable(reason)) = (args.run.backend, &outcome) {
            return Err(nvptx::no_gpu(reason));
        }
        rows.push(Row { backend: "nvptx".into(), outcome });
    }
    if matches!(args.run.backend, Backend::Auto | Backend::Spirv) {
        let outcome = run_spirv(&launch, &module, grid, inputs, args.run.adapter.as_deref())?;
        if let (Backend::Spirv, Outcome::Unavailable(reason)) = (args.run.backend, &outcome) {
            return Err(spirv::no_adapter(reason));
        }
        rows.push(Row { backend: "spirv".into(), outcome });
    }
    if let Some(perturbation) = &perturbation {
        if perturbation.backend == "interp" {
            // A second interp run, to be the perturbed one.
            let mut buffers = inputs.clone();
            launch_on_interp(&launch, &module, grid, &mut buffers)?;
            rows.push(Row { backend: SECOND_INTERP.into(), outcome: Outcome::Ran(buffers) });
        }
        apply_perturbation(perturbation, &mut rows)?;
    }

    let tolerance_for = |buffer: &Buffer| {
        let default = default_tolerance(buffer.dtype);
        Tolerance { atol: args.atol.unwrap_or(default.atol), rtol: args.rtol.unwrap_or(default.rtol) }
    };
    let failures = print_table(&reference, &rows, tolerance_for);
    if let Some(out) = &args.run.out {
        write_buffers(out, &reference)?;
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(CliError::Failed(format!("check failed: {}", failures.join("; "))))
    }
}

/// Runs the launch on a Vulkan adapter, if there is one.
fn run_spirv(
    launch: &Launch,
    module: &Module,
    grid: trident_runtime::Grid,
    inputs: &[Buffer],
    adapter: Option<&str>,
) -> Result<Outcome, CliError> {
    let device = match spirv::open_device(adapter)? {
        Ok(device) => device,
        Err(reason) => return Ok(Outcome::Unavailable(reason)),
    };
    let artifact = match spirv::compile_for(launch, module, &device) {
        Ok(artifact) => artifact,
        Err(error) => return Ok(Outcome::Failed(error.render())),
    };
    let kernel = spirv::VulkanKernel { device, artifact };
    let mut buffers = inputs.to_vec();
    match spirv::launch_on_device(launch, module, &kernel, grid, &mut buffers) {
        Ok(()) => Ok(Outcome::Ran(buffers)),
        Err(error) => Ok(Outcome::Failed(error.render())),
    }
}

/// Runs the launch on the GPU, if there is one.
fn run_nvptx(
    launch: &Launch,
    module: &Module,
    grid: trident_runtime::Grid,
    inputs: &[Buffer],
) -> Result<Outcome, CliError> {
    let device = match nvptx::open_device()? {
        Ok(device) => device,
        Err(reason) => return Ok(Outcome::Unavailable(reason)),
    };
    let artifact = match nvptx::compile_for(launch, module, &device) {
        Ok(artifact) => artifact,
        Err(error) => return Ok(Outcome::Failed(error.render())),
    };
    let gpu = match nvptx::load(device, artifact) {
        Ok(gpu) => gpu,
        Err(error) => return Ok(Outcome::Failed(error.render())),
    };
    let mut buffers = inputs.to_vec();
    match nvptx::launch_on_gpu(launch, module, &gpu, grid, &mut buffers) {
        Ok(()) => Ok(Outcome::Ran(buffers)),
        Err(error) => Ok(Outcome::Failed(error.render())),
    }
}

fn parse_perturbation(text: &str) -> Result<Perturbation, CliError> {
    let parts: Vec<&str> = text.split(':').collect();
    let [backend, buffer, index] = parts[..] else {
        return usage(format!("--perturb {text}: expected BACKEND:BUFFER:INDEX"));
    };
    let Ok(index) = index.parse::<usize>() else {
        return usage(format!("--perturb {text}: '{index}' is not an element index"));
    };
    Ok(Perturbation { backend: backend.to_string(), buffer: buffer.to_string(), index })
}

fn apply_perturbation(perturbation: &Perturbation, rows: &mut [Row]) -> Result<(), CliError> {
    let Perturbation { backend, buffer, index } = perturbation;
    let row_name = if backend == "interp" { SECOND_INTERP } else { backend.as_str() };
    let Some(Row { outcome: Outcome::Ran(buffers), .. }) = rows.iter_mut().find(|r| r.backend == row_name)
    else {
        return usage(format!("--perturb: backend {backend} did not run here"));
    };
    let Some(target) = buffers.iter_mut().find(|b| b.name == *buffer) else {
        return usage(format!("--perturb: the launch has no buffer named {buffer}"));
    };
    compare::perturb(target, *index).or_else(|e| usage(format!("--perturb: {e}")))?;
    eprintln!("note: --perturb: changed {buffer}[{index}] of {row_name}'s output");
    Ok(())
}

/// Prints the table; returns one sentence per failure.
fn print_table(
    reference: &[Buffer],
    rows: &[Row],
    tolerance_for: impl Fn(&Buffer) -> Tolerance,
) -> Vec<String> {
    println!(
        "{:<8} {:<16} {:<8} {:>10} {:>10} {:>10} {:>12} {:>10}",
        "backend", "buffer", "dtype", "max_abs", "max_rel", "max_ulp", "beyond_tol", "first_at"
    );
    println!("{:<8} {:<16} {} buffer(s)", "interp", "reference", reference.len());
    let mut failures = Vec::new();
    let mut unavailable = Vec::new();
    let mut compared = Vec::new();
    for row in rows {
        match &row.outcome {
            Outcome::Unavailable(reason) => {
                println!("{:<8} {:<16} {reason}", row.backend, "unavailable");
                unavailable.push(format!("{}: {reason}", row.backend));
            }
            Outcome::Failed(error) => {
                let first = error.lines().next().unwrap_or_default();
                println!("{:<8} {:<16} {first}", row.backend, "FAILED");
                failures.push(format!("{} failed where interp ran:\n{}", row.backend, error.trim_end()));
            }
            Outcome::Ran(buffers) => {
                compared.push(row.backend.clone());
                for (want, got) in reference.iter().zip(buffers) {
                    let tolerance = tolerance_for(want);
                    let result = compare::compare(want, got, tolerance);
                    print_row(&row.backend, want, &result);
                    if !result.agrees() {
                        failures.push(describe_failure(&row.backend, want, &result, tolerance));
                    }
                }
            }
        }
    }
    if !unavailable.is_empty() {
        println!("not compared: {}", unavailable.join("; "));
    }
    if compared.is_empty() {
        println!("check: no backend besides interp ran here; nothing was compared");
    } else if failures.is_empty() {
        println!("check: {} agree(s) with interp on every buffer", compared.join(", "));
    }
    failures
}

fn print_row(backend: &str, buffer: &Buffer, result: &Comparison) {
    let first = result.first_bad.as_ref().map_or("-".to_string(), |f| f.index.to_string());
    let beyond = format!("{}/{}", result.bad, result.elements);
    println!(
        "{backend:<8} {:<16} {:<8} {:>10.3e} {:>10.3e} {:>10} {:>12} {:>10}",
        buffer.name,
        buffer.dtype.triton_name(),
        result.max_abs,
        result.max_rel,
        result.max_ulp,
        beyond,
        first
    );
}

fn describe_failure(backend: &str, buffer: &Buffer, result: &Comparison, tolerance: Tolerance) -> String {
    if let Some(mismatch) = &result.mismatch {
        return format!("{backend} returned {} as {mismatch}", buffer.name);
    }
    let Some(first) = &result.first_bad else {
        return format!("{backend} disagrees with interp on {}", buffer.name);
    };
    format!(
        "{backend} disagrees with interp on {}: {} of {} elements beyond atol={} rtol={}, the first at index \
         {}: {backend} has {}, interp has {}",
        buffer.name, result.bad, result.elements, tolerance.atol, tolerance.rtol, first.index, first.got, first.want
    )
}
