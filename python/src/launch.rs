//! A loaded kernel and one launch of it: the part of `kernel[grid](...)` that runs every time.
//!
//! A [`Loaded`] is what the first launch of a specialization leaves behind: the compiled
//! kernel ready on its device (the TTIR for interp, the module loaded by the CUDA driver for
//! nvptx, the SPIR-V for spirv), which Python parameter each compiled parameter binds, and the
//! complete meta-parameters for the grid function. [`run`] launches it with a launch's values:
//! arrays are read (copied), the arguments bound in the compiled kernel's order, the kernel run,
//! and arrays written back. Nothing here compiles, reads a file or runs the frontend.

use pyo3::prelude::*;
use trident::cli::devices::Chosen;
use trident::cli::error::CliError;
use trident::ConstValue;
use trident_midend::ir::Module;
use trident_runtime::{ArgValue, Buffer, Grid};

use crate::errors;
use crate::values::Value;

/// A compiled kernel loaded on its device, for one specialization.
pub struct Loaded {
    /// Per parameter of the compiled kernel, in its order, the index of the Python parameter
    /// bound to it (parameters specialized away, such as an integer equal to 1, have none).
    pub params: Vec<usize>,
    /// The constexprs of the complete specialization (after the autotune config and the
    /// heuristics): what a grid function receives besides the arguments.
    pub meta: Vec<(String, ConstValue)>,
    pub target: Chosen,
    /// The TTIR (interp runs it).
    pub module: Module,
}

/// What [`run`] needs to know of the kernel for its messages.
pub struct About<'a> {
    pub name: &'a str,
    pub path: &'a str,
    pub source: &'a str,
}

/// How a launch ended.
pub enum Outcome {
    Done,
    /// The loaded kernel does not fit this launch's buffers (spirv binds a buffer larger than
    /// the device's binding limit as two windows, decided at compile time): compile again.
    Stale,
}

/// A value that crosses into [`Python::detach`]. Sound because `detach` runs its closure on the
/// calling thread: what is not `Send` (a CUDA context is bound to its thread) never leaves it.
struct SameThread<T>(T);

// SAFETY: see the type's doc; the value is used on the thread that made it.
unsafe impl<T> Send for SameThread<T> {}

/// Runs `f` with the GIL released (interp and device launches may take long; the program's
/// other threads run meanwhile).
pub fn without_gil<T>(py: Python<'_>, f: impl FnOnce() -> T) -> T {
    let f = SameThread(f);
    let result = py.detach(move || {
        let f = f;
        SameThread((f.0)())
    });
    result.0
}

/// Launches `loaded` over `grid` with `values` (by Python parameter). `given`, when present,
/// holds every array argument already read, in parameter order (the first launch read them to
/// compile and to autotune, and the autotuner may have zeroed some, as Triton's does).
pub fn run(
    py: Python<'_>,
    about: &About<'_>,
    loaded: &Loaded,
    grid: Grid,
    names: &[&str],
    values: &[Value<'_>],
    given: Option<Vec<Buffer>>,
) -> PyResult<Outcome> {
    // The arrays, read (or taken from `given`) in parameter order.
    let mut slots: Vec<Option<usize>> = vec![None; values.len()];
    let mut buffers: Vec<Buffer> = Vec::new();
    let mut given = given.map(Vec::into_iter);
    for (index, value) in values.iter().enumerate() {
        if let Value::Host(array) = value {
            let buffer = match given.as_mut().and_then(Iterator::next) {
                Some(buffer) => buffer,
                None => array.read(names[index]),
            };
            slots[index] = Some(buffers.len());
            buffers.push(buffer);
        }
    }
    let args = bind(about, loaded, values, &slots)?;
    let launched = match &loaded.target {
        Chosen::Interp => {
            let name = &about.name;
            without_gil(py, || trident_runtime::interp::run(&loaded.module, name, grid, &args, &mut buffers))
                .map_err(|error| {
                    CliError::Kernel(trident::runtime_diagnostics(about.path, about.source, &error))
                })
        }
        Chosen::Nvptx(gpu) => without_gil(py, || gpu.device.launch(&gpu.kernel, grid, &args, &mut buffers))
            .map_err(|error| CliError::Failed(error.to_string())),
        Chosen::Spirv(vulkan) => {
            if !windows_fit(vulkan, &buffers, &args) {
                return Ok(Outcome::Stale);
            }
            without_gil(py, || vulkan.device.launch(&vulkan.artifact, grid, &args, &mut buffers))
                .map_err(|error| spirv_error(about, error))
        }
    };
    launched.map_err(|error| errors::to_python(py, error))?;
    for (index, value) in values.iter().enumerate() {
        if let (Value::Host(array), Some(slot)) = (value, slots[index]) {
            array.write_back(&buffers[slot].bytes);
        }
    }
    Ok(Outcome::Done)
}

/// The arguments of the compiled kernel, in its order.
fn bind(
    about: &About<'_>,
    loaded: &Loaded,
    values: &[Value<'_>],
    slots: &[Option<usize>],
) -> PyResult<Vec<ArgValue>> {
    let mut args = Vec::with_capacity(loaded.params.len());
    for &index in &loaded.params {
        let arg = match (&values[index], slots[index]) {
            (Value::Int { value, .. }, _) => ArgValue::Int(*value),
            (Value::Float(value), _) => ArgValue::Float(*value),
            (_, Some(slot)) => ArgValue::Buffer(slot),
            _ => {
                return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                    "internal error: parameter {index} of the compiled {} has no argument",
                    about.name
                )))
            }
        };
        args.push(arg);
    }
    Ok(args)
}

/// Whether the SPIR-V binds every buffer as the device needs: in two windows exactly when it is
/// larger than one binding.
fn windows_fit(vulkan: &trident::cli::spirv::VulkanKernel, buffers: &[Buffer], args: &[ArgValue]) -> bool {
    use trident_backend_spirv::ParamAbi;
    vulkan.artifact.params.iter().zip(args).all(|(abi, arg)| match (abi, arg) {
        (ParamAbi::Buffer { high, .. }, ArgValue::Buffer(slot)) => {
            high.is_some() == vulkan.device.needs_windows(buffers[*slot].bytes.len())
        }
        _ => true,
    })
}

/// A failure on the Vulkan adapter: the kernel's own (a failed `tl.device_assert`, which has a
/// span) with its Python line; the driver's as one message.
fn spirv_error(about: &About<'_>, error: trident_runtime::wgpu::WgpuError) -> CliError {
    match error.span {
        Some(span) => {
            let error = trident_runtime::interp::RuntimeError { message: error.message, span: Some(span) };
            CliError::Kernel(trident::runtime_diagnostics(about.path, about.source, &error))
        }
        None => CliError::Failed(error.message),
    }
}
