//! `trident run`: compile, launch once (on interp, a CUDA GPU or a Vulkan adapter), write every buffer to
//! `DIR/NAME.npy`, and say on stderr, in one line, where it ran and what it wrote. The launch itself,
//! [`launch_once`], is also what the Python package runs for `kernel[grid](...)`.

use std::path::Path;

use trident_midend::ir::Module;
use trident_runtime::{npy, Buffer, Grid};

use super::args::{self, DataMode, Launch};
use super::autotune;
use super::devices::{self, Chosen};
use super::error::CliError;
use super::nvptx;
use super::spirv;
use super::{Backend, RunArgs};
use crate::{run_interp, runtime_diagnostics, LaunchError};

/// Where `run` writes its buffers without `--out`: a directory of its own, so that the
/// outputs never overwrite input files in the current directory.
pub const DEFAULT_OUT: &str = "trident-out";

pub fn run(args: &RunArgs) -> Result<(), CliError> {
    let mut launch = args::prepare(&args.spec, DataMode::Load)?;
    let (chosen, grid, buffers) = launch_once(&mut launch, args.backend, args.adapter.as_deref())?;
    let out = args.out.as_deref().unwrap_or(Path::new(DEFAULT_OUT));
    write_buffers(out, &buffers)?;
    eprintln!("{}", success_line(&launch.kernel, &chosen, grid, out, &buffers));
    Ok(())
}

/// One launch from start to end, as `trident run` and the Python package's `kernel[grid](...)`
/// make it: the autotune config, the grid, the TTIR, the backend (with its compilation), the
/// launch. Returns where it ran, the grid and the buffers as the kernel left them (taken out of
/// `launch`).
pub fn launch_once(
    launch: &mut Launch,
    backend: Backend,
    adapter: Option<&str>,
) -> Result<(Chosen, Grid, Vec<Buffer>), CliError> {
    devices::require_built(backend)?;
    autotune::choose_config(launch, backend, adapter)?;
    let grid = launch.require_grid()?;
    let (module, chosen) = compile_and_choose(launch, backend, adapter)?;
    let mut buffers = std::mem::take(&mut launch.buffers);
    match &chosen {
        Chosen::Interp => launch_on_interp(launch, &module, grid, &mut buffers)?,
        Chosen::Nvptx(gpu) => nvptx::launch_on_gpu(launch, &module, gpu, grid, &mut buffers)?,
        Chosen::Spirv(kernel) => spirv::launch_on_device(launch, &module, kernel, grid, &mut buffers)?,
    }
    Ok((chosen, grid, buffers))
}

/// The second half of a launch's preparation, after the autotune config and the grid: the TTIR
/// (its warnings printed) and the backend with its compilation and device. The Python package
/// keeps both for the later launches of the same specialization.
pub fn compile_and_choose(
    launch: &Launch,
    backend: Backend,
    adapter: Option<&str>,
) -> Result<(Module, Chosen), CliError> {
    let module = launch.compile()?;
    // The buffers stay in `launch` until the backend is chosen: spirv compiles for their sizes.
    let chosen = devices::choose(backend, launch, &module, adapter)?;
    Ok((module, chosen))
}

/// What a successful `run` says on stderr: the kernel, where it ran, the grid and the files it
/// wrote (`note: ran add_kernel on interp (...) over grid 4,1,1; wrote out/x_ptr.npy, ...`).
fn success_line(kernel: &str, chosen: &Chosen, grid: Grid, out: &Path, buffers: &[Buffer]) -> String {
    let [x, y, z] = grid.0;
    let files: Vec<String> =
        buffers.iter().map(|buffer| out.join(format!("{}.npy", buffer.name)).display().to_string()).collect();
    let wrote = if files.is_empty() {
        "no buffers to write (the kernel takes none)".to_string()
    } else {
        format!("wrote {}", files.join(", "))
    };
    format!("note: ran {kernel} on {} over grid {x},{y},{z}; {wrote}", chosen.describe())
}

/// One launch on the interpreter, with errors turned into the command line's.
pub fn launch_on_interp(
    launch: &Launch,
    module: &Module,
    grid: Grid,
    buffers: &mut [Buffer],
) -> Result<(), CliError> {
    run_interp(module, grid, |name| launch.arg_value(name), buffers)
        .map_err(|error| launch_error(launch, error))
}

/// A failed launch as the command line reports it.
pub fn launch_error(launch: &Launch, error: LaunchError) -> CliError {
    match error {
        LaunchError::MissingArgument(name) => {
            CliError::Usage(format!("missing --arg {name}=...: the compiled {} takes it", launch.kernel))
        }
        LaunchError::NoKernel => CliError::Internal(format!(
            "internal compiler error: the compiled module of {} has no kernel",
            launch.kernel
        )),
        LaunchError::Runtime(error) => {
            CliError::Kernel(runtime_diagnostics(&launch.path, &launch.source, &error))
        }
    }
}

/// Writes each buffer to `dir/NAME.npy`, creating `dir`.
pub fn write_buffers(dir: &Path, buffers: &[Buffer]) -> Result<(), CliError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::Failed(format!("cannot create output directory {}: {e}", dir.display())))?;
    for buffer in buffers {
        let path = dir.join(format!("{}.npy", buffer.name));
        npy::write(&path, buffer).map_err(|e| CliError::Failed(e.to_string()))?;
    }
    Ok(())
}
