//! trident-python: the native half of the `trident` Python package, `trident._native`.
//!
//! The package (`python/trident/`) gives Python programs Triton's API: `@trident.jit` marks a
//! kernel, `kernel[grid](*args, **meta)` launches it. The launch comes here, as the kernel's file
//! and name, its argument values by parameter name, a grid function, warps, stages and a backend,
//! and runs as `trident run` does, through the same code ([`trident::cli::run::launch_once`]):
//! the frontend reads the whole file, so callees, module constants and the `@triton.autotune` /
//! `@triton.heuristics` decorators resolve as they do for the command line, and compiled kernels
//! and autotune choices share its on-disk cache.
//!
//! The data model of one launch:
//! - values become constexprs and typed arguments ([`values`]); arrays are copied from their
//!   buffers into the launch, and written back into them after it ([`buffers`]);
//! - the grid is a Python callable of the meta-parameters (constexprs after the autotune config
//!   and the heuristics), called from Rust each time the launch needs it: once per timed config
//!   while autotuning, then for the real launch. An exception it raises is re-raised as it is;
//! - a failure is a Python exception from `trident.errors` whose text is what the command line
//!   prints: a kernel error with the file, line, the Python line and a caret ([`errors`]).
//!
//! What this crate does not do: compile or launch anything itself, read the environment
//! (`TRIDENT_BACKEND` is the Python side's), or keep state between launches beyond what the
//! runtime and the on-disk cache keep.

mod buffers;
mod errors;
mod values;

use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::PyDict;
use trident::cli::args::GridFn;
use trident::cli::error::CliError;
use trident::cli::inputs::{self, Front, Inputs};
use trident::cli::{signature, Backend};
use trident::{ConstValue, PipelineOptions, Specialization};
use trident_runtime::cache::Cache;
use trident_runtime::cuda::Probe;
use trident_runtime::Grid;

/// Compiles kernel `kernel` of the Python file `path` and launches it once on `backend`
/// (`auto`, `nvptx`, `spirv` or `interp`). `args` are `(parameter name, value)` pairs;
/// `grid(meta)` returns the grid as `(x, y, z)` for a dict of the meta-parameters. Arrays
/// are written back after the launch. `config` pins an autotune config.
#[pyfunction]
#[pyo3(signature = (path, kernel, args, grid, num_warps=4, num_stages=3, backend="auto", config=None))]
#[allow(clippy::too_many_arguments)]
fn launch(
    py: Python<'_>,
    path: String,
    kernel: String,
    args: Vec<(String, Bound<'_, PyAny>)>,
    grid: Py<PyAny>,
    num_warps: u32,
    num_stages: u32,
    backend: &str,
    config: Option<usize>,
) -> PyResult<()> {
    let backend = parse_backend(backend)?;
    let source = std::fs::read_to_string(&path).map_err(|e| {
        errors::argument_error(
            py,
            format!("cannot read the file of kernel {kernel}, {path}: {e} (trident compiles kernels from their source file)"),
        )
    })?;
    let Some(params) = signature::kernel_params(&source, &kernel) else {
        return Err(errors::argument_error(
            py,
            format!("{path} has no top-level function {kernel} (trident compiles the kernels of a file's top level)"),
        ));
    };
    let decorations = trident_frontend::kernel_decorations(&path, &source, &kernel)
        .map_err(|d| errors::to_python(py, CliError::Kernel(d)))?;
    let sorted = values::sort(&kernel, &params, args)?;
    let grid_error: Arc<Mutex<Option<PyErr>>> = Arc::default();
    let grid_fn = grid_function(grid, grid_error.clone());
    let buffers = sorted.buffers.iter().map(|b| b.buffer.clone()).collect();
    // The GIL is released while trident compiles and runs; the grid function takes it back. The
    // cache handle is opened inside: it stays on the thread that uses it.
    let outcome = py.detach(move || {
        let inputs = Inputs {
            path,
            source,
            kernel,
            params: Some(params),
            decorations,
            constexprs: sorted.constexprs,
            args: sorted.args,
            buffers,
            num_warps,
            num_stages,
            config,
            grid: None,
            grid_expr: None,
            grid_fn: Some(grid_fn),
            pipeline: PipelineOptions::default(),
            cache: Cache::open(false),
        };
        let mut launch = inputs::build(inputs, Front::Python)?;
        trident::cli::run::launch_once(&mut launch, backend, None).map(|(_, _, buffers)| buffers)
    });
    let buffers = match outcome {
        Ok(buffers) => buffers,
        Err(error) => {
            let raised = grid_error.lock().unwrap_or_else(|p| p.into_inner()).take();
            return Err(raised.unwrap_or_else(|| errors::to_python(py, error)));
        }
    };
    for (target, result) in sorted.buffers.iter().zip(&buffers) {
        buffers::write_back(py, target, &result.bytes)?;
    }
    Ok(())
}

/// `auto`, `nvptx`, `spirv` or `interp`.
fn parse_backend(name: &str) -> PyResult<Backend> {
    match name {
        "auto" => Ok(Backend::Auto),
        "nvptx" => Ok(Backend::Nvptx),
        "spirv" => Ok(Backend::Spirv),
        "interp" => Ok(Backend::Interp),
        _ => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "unknown backend '{name}': auto, nvptx, spirv or interp"
        ))),
    }
}

/// The launch's grid from the Python callable `grid`: called with a dict of the meta-parameters,
/// it returns `(x, y, z)`. An exception it raises is kept in `raised` (the launch then fails, and
/// [`launch`] re-raises it instead of trident's error).
fn grid_function(grid: Py<PyAny>, raised: Arc<Mutex<Option<PyErr>>>) -> GridFn {
    GridFn(Arc::new(move |spec: &Specialization| {
        Python::attach(|py| {
            let call = || -> PyResult<Grid> {
                let meta = meta_dict(py, spec)?;
                let dims: (u32, u32, u32) = grid.bind(py).call1((meta,))?.extract()?;
                Ok(Grid([dims.0, dims.1, dims.2]))
            };
            call().map_err(|error| {
                let message = format!("the grid function raised {error}");
                *raised.lock().unwrap_or_else(|p| p.into_inner()) = Some(error);
                CliError::Failed(message)
            })
        })
    }))
}

/// The meta-parameters of a specialization, as the grid function receives them.
fn meta_dict<'py>(py: Python<'py>, spec: &Specialization) -> PyResult<Bound<'py, PyDict>> {
    let meta = PyDict::new(py);
    let language = py.import("trident.language")?;
    for (name, value) in &spec.constexprs {
        let value: Bound<'py, PyAny> = match value {
            ConstValue::Int(v) => v.into_pyobject(py)?.into_any(),
            ConstValue::Float(v) => v.into_pyobject(py)?.into_any(),
            ConstValue::Bool(v) => v.into_pyobject(py)?.to_owned().into_any(),
            ConstValue::Str(v) => v.into_pyobject(py)?.into_any(),
            ConstValue::None => py.None().into_bound(py),
            ConstValue::DType(d) => language.getattr("dtype")?.call1((d.triton_name(),))?,
        };
        meta.set_item(name, value)?;
    }
    Ok(meta)
}

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

/// `trident._native`.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(launch, module)?)?;
    module.add_function(wrap_pyfunction!(backends, module)?)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
