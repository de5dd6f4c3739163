//! trident-python: the native half of the `trident` Python package, `trident._native`.
//!
//! The package (`python/trident/`) gives Python programs Triton's API: `@trident.jit` marks a
//! kernel, `kernel[grid](*args, **meta)` launches it. The launch comes here, to the kernel's
//! [`kernel::Kernel`] (one per `JITFunction`, made from the kernel's file and name), with the
//! grid, the positional and keyword arguments as Python received them, and a backend.
//!
//! The data model:
//! - a kernel object reads its file once; per thread it keeps a table from the specialization
//!   key ([`key`]: backend, warps, stages, constexprs, argument dtypes with Triton's ==1 and %16
//!   classes and pointer alignment) to a loaded kernel ([`launch::Loaded`]: the compiled kernel
//!   on its device, how its parameters bind, the meta-parameters for the grid function). A
//!   repeat launch binds ([`bind`]), classifies ([`values`]), looks up, packs and launches,
//!   without the frontend, a compilation or a file;
//! - the first launch of a key runs as `trident run` does, through the same code (the checks of
//!   `trident::cli::inputs`, the autotune config, `trident::cli::run::compile_and_choose`): the
//!   frontend reads the whole file, so callees, module constants and the `@triton.autotune` /
//!   `@triton.heuristics` decorators resolve as they do for the command line, and compiled
//!   kernels and autotune choices share its on-disk cache;
//! - arrays are copied from their buffers into the launch and written back after it
//!   ([`buffers`]);
//! - the grid is a tuple, or a Python callable of the arguments and meta-parameters ([`grid`]),
//!   called for every launch (and per timed config while autotuning). An exception it raises is
//!   re-raised as it is;
//! - a failure is a Python exception from `trident.errors` whose text is what the command line
//!   prints: a kernel error with the file, line, the Python line and a caret ([`errors`]);
//! - under `TRIDENT_CHECK`, every launch also runs on interp and the results are compared
//!   ([`check`]).
//!
//! What this crate does not do: compile anything itself. Of the environment it reads only
//! `TRIDENT_BACKEND` (per launch, when the program has not called `trident.set_backend`),
//! `TRIDENT_CHECK` (per launch: both through [`env`], which looks them up again only when the
//! environment changed) and its test hook `TRIDENT_CHECK_PERTURB`; the runtime reads its own
//! variables.

mod bind;
mod buffers;
mod check;
mod env;
mod errors;
mod fastcall;
mod grid;
mod kernel;
mod key;
mod launch;
mod plan;
mod torch;
mod values;

use pyo3::prelude::*;
use trident_runtime::cuda::Probe;

/// The backends and whether each can run here: `(name, available, what was found or why not)`,
/// as `trident devices` lists them.
#[pyfunction]
fn backends() -> Vec<(&'static str, bool, String)> {
    let mut found = vec![("interp", true, "the reference interpreter (CPU)".to_string())];
    found.push(match trident_runtime::cuda::probe() {
        Probe::Absent(reason) => ("nvptx", false, reason),
        Probe::Present { devices, .. } => {
            let names: Vec<String> =
                devices.iter().map(|d| format!("cuda:{} {}", d.ordinal, d.name)).collect();
            ("nvptx", !names.is_empty(), names.join(", "))
        }
    });
    let adapters = trident_runtime::wgpu::adapters();
    found.push(if adapters.is_empty() {
        (
            "spirv",
            false,
            "no Vulkan adapter found (install a Vulkan driver, e.g. mesa-vulkan-drivers)".to_string(),
        )
    } else {
        let names: Vec<String> = adapters.iter().map(|a| format!("vulkan:{} {}", a.index, a.name)).collect();
        ("spirv", true, names.join(", "))
    });
    found
}

/// The CUDA driver's own cost of a launch on this machine, the floor under `kernel[grid](...)` on
/// nvptx: microseconds per launch of an empty kernel of four parameters, `launches` times without
/// synchronizing, with `cuLaunchKernel` (what a launch costs Triton), then replayed from a graph
/// (as trident's hot launches are), then the replays with the final synchronization
/// (`CudaDevice::launch_floor`); `None` without a CUDA GPU.
/// `python/benchmarks/launch_overhead.py` prints them beside its launches.
#[pyfunction]
#[pyo3(signature = (launches = 20000))]
fn launch_floor(launches: usize) -> PyResult<Option<(f64, f64, f64)>> {
    let failed = |error: trident_runtime::cuda::CudaError| {
        pyo3::exceptions::PyRuntimeError::new_err(error.to_string())
    };
    let Some(device) = trident_runtime::cuda::CudaDevice::open_selected().map_err(failed)? else {
        return Ok(None);
    };
    let floor = device.launch_floor(launches).map_err(failed)?;
    Ok(Some((
        floor.per_launch_us(floor.direct),
        floor.per_launch_us(floor.replayed),
        floor.per_launch_us(floor.synchronized),
    )))
}

/// The CUDA GPUs, each a dict of the properties Triton's
/// `driver.active.utils.get_device_properties` gives, under its names (`multiprocessor_count`,
/// `max_shared_mem`, `max_num_regs`, `warpSize`, `sm_clock_rate`, `mem_clock_rate` in kHz,
/// `mem_bus_width` in bits), with `index`, `name` and `compute_capability`; empty without one.
#[pyfunction]
fn cuda_devices(py: Python<'_>) -> PyResult<Vec<Bound<'_, pyo3::types::PyDict>>> {
    let Probe::Present { devices, .. } = trident_runtime::cuda::probe() else { return Ok(Vec::new()) };
    devices
        .iter()
        .map(|device| {
            let properties = pyo3::types::PyDict::new(py);
            properties.set_item("index", device.ordinal)?;
            properties.set_item("name", &device.name)?;
            properties.set_item("compute_capability", device.compute_capability)?;
            properties.set_item("multiprocessor_count", device.sm_count)?;
            properties.set_item("max_shared_mem", device.max_shared_bytes_optin)?;
            properties.set_item("max_num_regs", device.max_registers_per_block)?;
            properties.set_item("warpSize", device.warp_size)?;
            properties.set_item("sm_clock_rate", device.clock_rate_khz)?;
            properties.set_item("mem_clock_rate", device.memory_clock_rate_khz)?;
            properties.set_item("mem_bus_width", device.memory_bus_width)?;
            Ok(properties)
        })
        .collect()
}

/// `trident._native`.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<kernel::Kernel>()?;
    module.add_class::<kernel::Launcher>()?;
    module.add_class::<kernel::JitBase>()?;
    module.add_function(wrap_pyfunction!(kernel::set_backend, module)?)?;
    module.add_function(wrap_pyfunction!(kernel::current_backend_name, module)?)?;
    module.add_function(wrap_pyfunction!(backends, module)?)?;
    module.add_function(wrap_pyfunction!(launch_floor, module)?)?;
    module.add_function(wrap_pyfunction!(cuda_devices, module)?)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
