//! A loaded kernel and one launch of it: the part of `kernel[grid](...)` that runs every time.
//!
//! A [`Loaded`] is what the first launch of a specialization leaves behind: the compiled
//! kernel ready on its device (the TTIR for interp, the module loaded by the CUDA driver for
//! nvptx, the SPIR-V for spirv), which Python parameter each compiled parameter binds, and the
//! complete meta-parameters for the grid function. [`run`] launches it with a launch's values:
//! arrays are read (copied), the arguments bound in the compiled kernel's order, the kernel run,
//! and arrays written back; CUDA tensors on nvptx are passed by address and the kernel enqueued
//! on torch's stream. Nothing here compiles, reads a file or runs the frontend.

use pyo3::prelude::*;
use trident::cli::devices::Chosen;
use trident::cli::error::CliError;
use trident::ConstValue;
use trident_frontend::DescriptorField;
use trident_midend::ir::Module;
use trident_runtime::{ArgValue, Buffer, Grid};

use crate::buffers::HostArray;
use crate::errors;
use crate::key::PerParam;
use crate::plan::Planned;
use crate::torch;
use crate::values::Value;

/// A compiled kernel loaded on its device, for one specialization.
pub struct Loaded {
    /// Per parameter of the compiled kernel, in its order, the index of the Python parameter
    /// bound to it and which part of it (a descriptor argument is several parameters; every other
    /// is its `Base`); parameters specialized away, such as an integer equal to 1, have none.
    pub params: Vec<(usize, DescriptorField)>,
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
/// holds every pointer argument already read, in parameter order (the first launch read them to
/// compile and to autotune, and the autotuner may have zeroed some, as Triton's does).
///
/// CUDA tensors on nvptx are used in place ([`run_in_place`]); everything else is copied: arrays
/// and CPU tensors through their memory, CUDA tensors through a host copy ([`Tensor::to_host`]).
pub fn run(
    py: Python<'_>,
    about: &About<'_>,
    loaded: &Loaded,
    grid: Grid,
    names: &[&str],
    values: &[Value<'_>],
    given: Option<Vec<Buffer>>,
) -> PyResult<Outcome> {
    if let Chosen::Nvptx(gpu) = &loaded.target {
        if values.iter().any(|value| matches!(value.memory(), Value::Torch(_))) {
            run_in_place(py, about, loaded, gpu, grid, names, values)?;
            return Ok(Outcome::Done);
        }
    }
    let mut copies = Copies::read(names, values, given)?;
    let args = bind(about, loaded, values, &copies.slots)?;
    let buffers = &mut copies.buffers;
    let launched = match &loaded.target {
        Chosen::Interp => {
            let name = &about.name;
            without_gil(py, || trident_runtime::interp::run(&loaded.module, name, grid, &args, buffers))
                .map_err(|error| {
                    CliError::Kernel(trident::runtime_diagnostics(about.path, about.source, &error))
                })
        }
        Chosen::Nvptx(gpu) => without_gil(py, || gpu.device.launch(&gpu.kernel, grid, &args, buffers))
            .map_err(|error| CliError::Failed(error.to_string())),
        Chosen::Spirv(vulkan) => {
            if !windows_fit(vulkan, buffers, &args) {
                return Ok(Outcome::Stale);
            }
            without_gil(py, || vulkan.device.launch(&vulkan.artifact, grid, &args, buffers))
                .map_err(|error| spirv_error(about, error))
        }
    };
    launched.map_err(|error| errors::to_python(py, error))?;
    copies.write_back(values)?;
    Ok(Outcome::Done)
}

/// The copied pointer arguments of a launch.
pub struct Copies<'py> {
    /// Per Python parameter, its buffer's index.
    pub slots: Vec<Option<usize>>,
    pub buffers: Vec<Buffer>,
    /// Per Python parameter, the host copy of a CUDA tensor (written back into the tensor).
    hosts: Vec<Option<(Bound<'py, PyAny>, HostArray<'py>)>>,
}

impl<'py> Copies<'py> {
    /// Reads every pointer argument (or takes it from `given`, in the same order).
    pub fn read(names: &[&str], values: &[Value<'py>], given: Option<Vec<Buffer>>) -> PyResult<Copies<'py>> {
        let mut copies = Copies {
            slots: vec![None; values.len()],
            buffers: Vec::new(),
            hosts: (0..values.len()).map(|_| None).collect(),
        };
        let mut given = given.map(Vec::into_iter);
        for (index, value) in values.iter().enumerate() {
            let buffer = match value.memory() {
                Value::Host(array) => match given.as_mut().and_then(Iterator::next) {
                    Some(buffer) => buffer,
                    None => array.read(names[index]),
                },
                Value::Torch(tensor) => {
                    let (host, array) = tensor.to_host()?;
                    let buffer = match given.as_mut().and_then(Iterator::next) {
                        Some(buffer) => buffer,
                        None => array.read(names[index]),
                    };
                    copies.hosts[index] = Some((host, array));
                    buffer
                }
                _ => continue,
            };
            copies.slots[index] = Some(copies.buffers.len());
            copies.buffers.push(buffer);
        }
        Ok(copies)
    }

    /// Writes every buffer back where it came from.
    pub fn write_back(&self, values: &[Value<'py>]) -> PyResult<()> {
        for (index, value) in values.iter().enumerate() {
            let Some(slot) = self.slots[index] else { continue };
            let bytes = &self.buffers[slot].bytes;
            match (value.memory(), &self.hosts[index]) {
                (Value::Host(array), _) => array.write_back(bytes),
                (Value::Torch(tensor), Some((host, array))) => {
                    array.write_back(bytes);
                    tensor.copy_back(host)?;
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// A launch on nvptx with CUDA tensors: every pointer argument is a CUDA tensor of the GPU
/// trident runs on, passed by address, and the kernel is enqueued on torch's current stream of
/// that GPU, without copies or a wait (as Triton launches).
fn run_in_place(
    py: Python<'_>,
    about: &About<'_>,
    loaded: &Loaded,
    gpu: &trident::cli::nvptx::GpuKernel,
    grid: Grid,
    names: &[&str],
    values: &[Value<'_>],
) -> PyResult<()> {
    let ordinal = i64::from(gpu.device.info().ordinal);
    let mut slots: PerParam<Option<usize>> = smallvec::smallvec![None; values.len()];
    let mut addresses: PerParam<u64> = PerParam::new();
    for (index, value) in values.iter().enumerate() {
        match value.memory() {
            Value::Torch(tensor) if tensor.device == ordinal => {
                slots[index] = Some(addresses.len());
                addresses.push(tensor.data_ptr);
            }
            Value::Torch(tensor) => {
                return Err(errors::argument_error(
                    py,
                    format!(
                        "{}: the tensor is on cuda:{}, and trident runs {} on cuda:{ordinal} \
                         (TRIDENT_CUDA_DEVICE={} picks that GPU)",
                        names[index], tensor.device, about.name, tensor.device
                    ),
                ))
            }
            Value::Host(_) => {
                return Err(errors::argument_error(
                    py,
                    format!(
                        "{}: a host array (numpy, or a CPU tensor) in a launch of {} with CUDA tensors on \
                         nvptx: the kernel reads the CUDA tensors in place and cannot reach host memory; \
                         move it to the GPU (torch.from_numpy(a).cuda(), or tensor.cuda())",
                        names[index], about.name
                    ),
                ))
            }
            _ => {}
        }
    }
    let args = bind(about, loaded, values, &slots)?;
    enqueue(py, gpu, grid, &args, &addresses, ordinal)
}

/// A repeat launch by the kernel's plan ([`crate::plan`]) over `grid`: on nvptx, with CUDA
/// tensors in place.
pub fn run_planned(py: Python<'_>, about: &About<'_>, planned: Planned<'_>, grid: Grid) -> PyResult<()> {
    let Chosen::Nvptx(gpu) = &planned.loaded.target else {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "internal error: the plan of {} is not of an nvptx kernel",
            about.name
        )));
    };
    enqueue(py, gpu, grid, &planned.args, &planned.addresses, planned.ordinal)
}

/// Enqueues the kernel of `gpu` over `grid` with `args` (tensors by the device addresses
/// `addresses`) on torch's current stream of device `ordinal`.
fn enqueue(
    py: Python<'_>,
    gpu: &trident::cli::nvptx::GpuKernel,
    grid: Grid,
    args: &[ArgValue],
    addresses: &[u64],
    ordinal: i64,
) -> PyResult<()> {
    let stream = torch::current_stream(py, ordinal)?;
    gpu.device
        .launch_async(&gpu.kernel, grid, args, addresses, stream)
        .map_err(|error| errors::to_python(py, CliError::Failed(error.to_string())))
}

/// The arguments of the compiled kernel, in its order.
pub fn bind(
    about: &About<'_>,
    loaded: &Loaded,
    values: &[Value<'_>],
    slots: &[Option<usize>],
) -> PyResult<PerParam<ArgValue>> {
    let mut args = PerParam::with_capacity(loaded.params.len());
    for &(index, field) in &loaded.params {
        let arg = match (&values[index], field, slots[index]) {
            (Value::Int { value, .. }, _, _) => Some(ArgValue::Int(*value)),
            (Value::Float(value), _, _) => Some(ArgValue::Float(*value)),
            (_, DescriptorField::Base, Some(slot)) => Some(ArgValue::Buffer(slot)),
            (Value::Descriptor(descriptor), field, _) => {
                field.value(&descriptor.shape, &descriptor.strides).map(ArgValue::Int)
            }
            _ => None,
        };
        let Some(arg) = arg else {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                "internal error: parameter {index} of the compiled {} has no argument",
                about.name
            )));
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
