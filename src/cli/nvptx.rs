//! The nvptx backend on the command line: which GPU, which target, compile, load, launch.
//!
//! `--backend nvptx` needs a CUDA GPU and says why when there is none; `--backend auto` takes the
//! GPU when there is one and the backend can compile the kernel, and otherwise falls back to
//! interp with one note on stderr saying why. The GPU is the one `TRIDENT_CUDA_DEVICE` picks
//! (the runtime reads it; 0 by default).

use trident_midend::ir::Module;
use trident_runtime::cuda::{self, CudaDevice, LoadedKernel, Probe};
use trident_runtime::{Buffer, Grid};

use super::args::Launch;
use super::cached;
use super::error::CliError;
use super::run::launch_error;
use crate::{kernel_args, Artifact};

/// A kernel ready to run on the GPU.
pub struct GpuKernel {
    pub device: CudaDevice,
    pub kernel: LoadedKernel,
    pub artifact: Artifact,
}

/// The GPU to run on, or why there is none: `Ok(Err(reason))` when this machine has no
/// CUDA GPU, `Err` when it has one but it cannot be opened.
pub fn open_device() -> Result<Result<CudaDevice, String>, CliError> {
    match CudaDevice::open_selected() {
        Ok(Some(device)) => Ok(Ok(device)),
        Ok(None) => Ok(Err(absent_reason())),
        Err(error) => Err(CliError::Failed(error.to_string())),
    }
}

/// Why [`CudaDevice::open`] found nothing.
pub fn absent_reason() -> String {
    match cuda::probe() {
        Probe::Absent(reason) => reason,
        Probe::Present { .. } => "the CUDA GPU disappeared while trident ran".to_string(),
    }
}

/// The error of `--backend nvptx` on a machine without a GPU.
pub fn no_gpu(reason: &str) -> CliError {
    CliError::Failed(format!(
        "--backend nvptx needs a CUDA GPU, and there is none here: {reason}\n\
         (--backend interp runs the kernel on the CPU; `trident compile --emit ptx` needs no GPU)"
    ))
}

/// The PTX target (80 or 90) for a device of compute capability `(major, minor)`: sm_90a PTX runs
/// only on 9.0 exactly, so other GPUs of 8.0 and newer get the portable sm_80 PTX.
pub fn sm_for(compute_capability: (u32, u32)) -> Result<u32, String> {
    match compute_capability {
        (9, 0) => Ok(90),
        (major, _) if major >= 8 => Ok(80),
        (major, minor) => Err(format!(
            "trident's nvptx backend needs compute capability 8.0 or newer; this GPU has {major}.{minor}"
        )),
    }
}

/// Compiles the TTIR `module` of `launch` to PTX for `device`, through the on-disk cache. A
/// kernel the backend cannot compile is a [`CliError::Kernel`]; anything else, trident's fault.
pub fn compile_for(launch: &Launch, module: &Module, device: &CudaDevice) -> Result<Artifact, CliError> {
    let sm = match sm_for(device.compute_capability()) {
        Ok(sm) => sm,
        Err(message) => {
            let diagnostic = crate::Diagnostic::error(message, None);
            return Err(CliError::Kernel(crate::Diagnostics::single(
                &launch.path,
                &launch.source,
                diagnostic,
            )));
        }
    };
    Ok(cached::ptx(launch, Some(module), sm)?.0.artifact)
}

/// Loads an artifact on the device (the JIT runs here).
pub fn load(device: CudaDevice, artifact: Artifact) -> Result<GpuKernel, CliError> {
    let kernel = device.load(&artifact).map_err(|error| CliError::Failed(error.to_string()))?;
    Ok(GpuKernel { device, kernel, artifact })
}

/// `--backend nvptx`: open, compile, load, or fail saying why.
pub fn prepare(launch: &Launch, module: &Module) -> Result<GpuKernel, CliError> {
    let device = match open_device()? {
        Ok(device) => device,
        Err(reason) => return Err(no_gpu(&reason)),
    };
    let artifact = compile_for(launch, module, &device)?;
    load(device, artifact)
}

/// The arguments of the compiled kernel, in its parameter order.
pub fn args(launch: &Launch, module: &Module) -> Result<Vec<trident_runtime::ArgValue>, CliError> {
    kernel_args(module, |name| launch.arg_value(name)).map_err(|error| launch_error(launch, error))
}

/// One launch on the GPU; every buffer comes back.
pub fn launch_on_gpu(
    launch: &Launch,
    module: &Module,
    gpu: &GpuKernel,
    grid: Grid,
    buffers: &mut [Buffer],
) -> Result<(), CliError> {
    let args = args(launch, module)?;
    gpu.device.launch(&gpu.kernel, grid, &args, buffers).map_err(|error| CliError::Failed(error.to_string()))
}

/// A one-line description of the device (`cuda:0 NVIDIA H100 ..., compute capability 9.0`).
pub fn describe(device: &CudaDevice) -> String {
    let info = device.info();
    let (major, minor) = info.compute_capability;
    format!("cuda:{} {}, compute capability {major}.{minor}", info.ordinal, info.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_by_compute_capability() {
        assert_eq!(sm_for((9, 0)), Ok(90));
        assert_eq!(sm_for((8, 0)), Ok(80));
        assert_eq!(sm_for((8, 9)), Ok(80));
        assert_eq!(sm_for((10, 0)), Ok(80));
        assert!(sm_for((7, 5)).unwrap_err().contains("8.0 or newer"));
    }
}
