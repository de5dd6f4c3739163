//! `trident._native.Kernel`: one `@triton.jit` kernel, with its loaded specializations.
//!
//! The Python `JITFunction` (whose base class is [`JitBase`]) makes one on its first launch, from
//! the kernel's file and name. The file is read, and its signature and decorators parsed, once,
//! here. `kernel[grid]` is a [`Launcher`] (the kernel and the grid; through
//! [`crate::fastcall`], a vectorcall function bound to it), so `kernel[grid](*args, **kwargs)`
//! calls into Rust directly. Every launch then goes:
//!
//! 1. bind the Python arguments to the parameters ([`crate::bind`]) and classify each value
//!    ([`crate::values`]) — no data is read yet;
//! 2. make the specialization key ([`crate::key`]) and look it up in the kernel's table (the
//!    last key looked up first, by one comparison);
//! 3. on a hit, read the grid (once, for a grid of ints) and launch the loaded kernel
//!    ([`crate::launch::run`]): no frontend, no compilation, no cache file;
//! 4. on a miss, prepare the launch as `trident run` does (the checks of `cli::inputs`, the
//!    autotune config, the grid, the TTIR, the backend and its compilation, through the on-disk
//!    cache), keep the result under the key, and launch it as a hit would.
//!
//! A launch on nvptx with CUDA tensors in place, through vectorcall, also leaves a plan for its
//! call site ([`crate::plan`]): the next call from that site whose arguments are of the same
//! kinds skips steps 1 and 2 and the binding of step 3.
//!
//! The table lives per thread ([`TABLES`]), under the kernel's id: a CUDA context and the
//! modules loaded in it belong to a thread, so a kernel launched from two threads loads its
//! kernels once per thread (from the on-disk cache, so without compiling twice).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use trident::cli::args::{Binding, GridFn};
use trident::cli::error::CliError;
use trident::cli::inputs::{self, Front, Inputs};
use trident::cli::signature::{self, Param};
use trident::cli::{autotune, devices, run};
use trident::{ArgSpec, PipelineOptions, Specialization};
use trident_frontend::Decorations;
use trident_midend::ir::DType;
use trident_runtime::cache::Cache;
use trident_runtime::{Buffer, Grid};

use crate::bind::{self, Options};
use crate::check;
use crate::errors;
use crate::fastcall;
use crate::grid;
use crate::key::{Backend, Key, PerParam};
use crate::launch::{self, About, Loaded, Outcome};
use crate::plan::{Plan, Site};
use crate::values::{self, Value};

/// The loaded kernels of every kernel object, by kernel id, on this thread (FxHash: a launch
/// looks its kernel up here).
struct Tables(FxHashMap<u64, Specializations>);

/// One kernel's loaded specializations on this thread.
#[derive(Default)]
struct Specializations {
    by_key: FxHashMap<Key, Rc<Loaded>>,
    /// The last one looked up: a loop launching one kernel with arguments of the same kinds
    /// finds it by one comparison of keys, without hashing.
    last: Option<(Key, Rc<Loaded>)>,
    /// The plans of the last launches that could have one ([`crate::plan`]), the latest
    /// first, at most [`MAX_PLANS`].
    plans: SmallVec<[Rc<Plan>; MAX_PLANS]>,
}

/// How many plans one kernel keeps: a loop may launch a kernel from a few places, or from one
/// place with arguments of a few kinds (a float32 and a float16 tensor, by turns).
const MAX_PLANS: usize = 4;

impl Specializations {
    fn get(&mut self, key: &Key) -> Option<Rc<Loaded>> {
        if let Some((last, loaded)) = &self.last {
            if last == key {
                return Some(loaded.clone());
            }
        }
        let loaded = self.by_key.get(key)?.clone();
        self.last = Some((key.clone(), loaded.clone()));
        Some(loaded)
    }

    fn insert(&mut self, key: Key, loaded: Rc<Loaded>) {
        // The plans stay: each holds its own loaded kernel, which a new key does not replace.
        self.last = None;
        self.by_key.insert(key, loaded);
    }

    /// Keeps `plan` as the latest, forgetting the oldest beyond [`MAX_PLANS`].
    fn keep_plan(&mut self, plan: Plan) {
        self.plans.insert(0, Rc::new(plan));
        self.plans.truncate(MAX_PLANS);
    }

    fn remove(&mut self, key: &Key) {
        self.last = None;
        self.plans.clear();
        self.by_key.remove(key);
    }
}

impl Drop for Tables {
    fn drop(&mut self) {
        // At a thread's (or the process's) end the CUDA driver may already be shutting down:
        // unloading modules then is at best useless. The process's end frees the memory.
        std::mem::forget(std::mem::take(&mut self.0));
    }
}

thread_local! {
    static TABLES: RefCell<Tables> = RefCell::new(Tables(FxHashMap::default()));
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A kernel of a Python file, and (per thread) its loaded specializations.
#[pyclass(module = "trident._native", frozen)]
pub struct Kernel {
    id: u64,
    path: String,
    pub(crate) name: String,
    source: String,
    pub(crate) params: Vec<Param>,
    /// The parameters' names as interned Python strings, in order (see [`bind::bind`]).
    pub(crate) param_names: Vec<Py<PyString>>,
    /// The decorators, or the error reading them (raised at each launch).
    decorations: Result<Decorations, String>,
    /// Integers are keyed by value: the autotuner's key or the heuristics read them.
    pub(crate) exact_ints: bool,
    /// How many launches went by a plan ([`crate::plan`]), on every thread.
    planned: AtomicU64,
}

#[pymethods]
impl Kernel {
    /// Reads kernel `name` of the Python file `path`.
    #[new]
    fn new(py: Python<'_>, path: String, name: String) -> PyResult<Kernel> {
        let source = std::fs::read_to_string(&path).map_err(|e| {
            errors::argument_error(
                py,
                format!("cannot read the file of kernel {name}, {path}: {e} (trident compiles kernels from their source file)"),
            )
        })?;
        let Some(params) = signature::kernel_params(&source, &name) else {
            return Err(errors::argument_error(
                py,
                format!("{path} has no top-level function {name} (trident compiles the kernels of a file's top level)"),
            ));
        };
        let decorations = trident_frontend::kernel_decorations(&path, &source, &name);
        let exact_ints = match &decorations {
            Ok(decorations) => decorations.autotune.is_some() || decorations.has_heuristics(),
            Err(_) => true,
        };
        let decorations = decorations.map_err(|diagnostics| {
            let error = errors::to_python(py, CliError::Kernel(diagnostics));
            error.value(py).to_string()
        });
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let param_names = params.iter().map(|p| PyString::intern(py, &p.name).unbind()).collect();
        Ok(Kernel {
            id,
            path,
            name,
            source,
            params,
            param_names,
            decorations,
            exact_ints,
            planned: AtomicU64::new(0),
        })
    }

    /// `kernel[grid]`: the launcher that `kernel[grid](*args, **kwargs)` calls.
    fn __getitem__(slf: Bound<'_, Kernel>, grid: Py<PyAny>) -> PyResult<Bound<'_, PyAny>> {
        let py = slf.py();
        fastcall::callable(Bound::new(py, Launcher { kernel: slf.unbind(), grid, fixed: OnceLock::new() })?)
    }

    /// `kernel.warmup(*args, grid=..., **kwargs)`, as Triton's: compiles and loads the
    /// specialization of these arguments on the current backend without launching it (an
    /// autotuned kernel is tuned first, on copies of the arguments, as a first launch is), and
    /// describes the compiled kernel (`trident.jit.CompiledKernel` wraps the description).
    #[pyo3(signature = (grid, args, kwargs = None))]
    fn warmup<'py>(
        slf: &Bound<'py, Self>,
        grid: Bound<'py, PyAny>,
        args: Bound<'py, PyTuple>,
        kwargs: Option<Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let py = slf.py();
        let kernel = slf.get();
        let backend = current_backend()?;
        let keywords = kwargs.iter().flat_map(|kwargs| kwargs.iter());
        let bound = bind::bind(&kernel.name, &kernel.params, &kernel.param_names, args.iter(), keywords)?;
        let (values, key, options) = kernel.specialize(py, backend, bound)?;
        let loaded = match kernel.lookup(&key) {
            Some(loaded) => loaded,
            None => {
                let names: PerParam<&str> = kernel.params.iter().map(|p| p.name.as_str()).collect();
                kernel.load(py, key, &grid, &names, &values, &options)?.0
            }
        };
        describe(py, &kernel.name, &loaded, &options)
    }

    /// How many launches of this kernel went by its plan, without binding and keying their
    /// arguments again (`crate::plan`; for tests and benchmarks).
    fn planned_launches(&self) -> u64 {
        self.planned.load(Ordering::Relaxed)
    }

    /// How many specializations this kernel has loaded on the calling thread.
    fn loaded(&self) -> usize {
        TABLES.with(|tables| tables.borrow().0.get(&self.id).map_or(0, |table| table.by_key.len()))
    }

    fn __repr__(&self) -> String {
        format!("<trident kernel {} of {}>", self.name, self.path)
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        let _ = TABLES.try_with(|tables| tables.borrow_mut().0.remove(&self.id));
    }
}

impl Kernel {
    /// One launch on `backend` of the arguments `bound`: classify, key, then the loaded kernel of
    /// the key (or the first launch of a new specialization). A launch from a vectorcall `site`
    /// leaves its plan where it can have one.
    fn launch_on<'py>(
        &self,
        py: Python<'py>,
        backend: Backend,
        grid: LaunchGrid<'_, 'py>,
        bound: bind::Bound<'py>,
        site: Option<&Site<'_, 'py>>,
    ) -> PyResult<()> {
        let (values, key, options) = self.specialize(py, backend, bound)?;
        let names: PerParam<&str> = self.params.iter().map(|p| p.name.as_str()).collect();
        let Some(mode) = check::mode() else {
            let (loaded, _) = self.launch_values(py, key, grid, &names, &values, &options)?;
            if let Some(plan) = site.and_then(|site| Plan::of(self, site, backend, &values, &loaded)) {
                self.keep_plan(plan);
            }
            return Ok(());
        };
        let before = check::before(&names, &values)?;
        let (loaded, grid) = self.launch_values(py, key, grid, &names, &values, &options)?;
        check::after(py, mode, &self.about(), &loaded, grid, &names, &values, before)
    }

    /// The bound arguments' options checked and values classified, and the specialization key
    /// they make on `backend`.
    fn specialize<'py>(
        &self,
        py: Python<'py>,
        backend: Backend,
        bound: bind::Bound<'py>,
    ) -> PyResult<(PerParam<Value<'py>>, Key, Options)> {
        let options = bound.options;
        self.check_options(py, &options)?;
        let mut values = PerParam::with_capacity(self.params.len());
        for (param, value) in self.params.iter().zip(bound.values) {
            values.push(values::classify(param, value)?);
        }
        let key = Key {
            backend,
            num_warps: options.num_warps,
            num_stages: options.num_stages,
            args: values.iter().map(|value| value.key(self.exact_ints)).collect(),
        };
        Ok((values, key, options))
    }

    /// Launches the loaded kernel of `key` (loading it first on a miss); returns it and the grid
    /// it ran over.
    fn launch_values<'py>(
        &self,
        py: Python<'py>,
        key: Key,
        grid: LaunchGrid<'_, 'py>,
        names: &[&str],
        values: &[Value<'py>],
        options: &Options,
    ) -> PyResult<(Rc<Loaded>, Grid)> {
        if let Some(loaded) = self.lookup(&key) {
            let dims = grid.dims(|object| self.grid(py, object, names, values, &loaded.meta))?;
            match launch::run(py, &self.about(), &loaded, dims, names, values, None)? {
                Outcome::Done => return Ok((loaded, dims)),
                Outcome::Stale => self.forget(&key),
            }
        }
        // The first launch of the specialization.
        let (loaded, launch, dims) = self.load(py, key, grid.object, names, values, options)?;
        self.reset_to_zero(&launch, &loaded, names, values)?;
        launch::run(py, &self.about(), &loaded, dims, names, values, Some(launch.buffers))?;
        Ok((loaded, dims))
    }

    fn about(&self) -> About<'_> {
        About { name: &self.name, path: &self.path, source: &self.source }
    }

    /// The kernel's plans for call site `site` on `backend`, on this thread, the latest first.
    fn plans(&self, site: &Site<'_, '_>, backend: Backend) -> SmallVec<[Rc<Plan>; MAX_PLANS]> {
        TABLES.with(|tables| {
            let tables = tables.borrow();
            let Some(table) = tables.0.get(&self.id) else { return SmallVec::new() };
            table.plans.iter().filter(|plan| plan.is_for(site, backend)).cloned().collect()
        })
    }

    fn lookup(&self, key: &Key) -> Option<Rc<Loaded>> {
        TABLES.with(|tables| tables.borrow_mut().0.get_mut(&self.id).and_then(|table| table.get(key)))
    }

    fn remember(&self, key: Key, loaded: Rc<Loaded>) {
        TABLES.with(|tables| tables.borrow_mut().0.entry(self.id).or_default().insert(key, loaded));
    }

    fn keep_plan(&self, plan: Plan) {
        TABLES.with(|tables| tables.borrow_mut().0.get_mut(&self.id).map(|table| table.keep_plan(plan)));
    }

    fn forget(&self, key: &Key) {
        TABLES.with(|tables| tables.borrow_mut().0.get_mut(&self.id).map(|table| table.remove(key)));
    }

    /// Refuses what trident cannot do with Triton's launch options, and warns about what it
    /// ignores.
    fn check_options(&self, py: Python<'_>, options: &Options) -> PyResult<()> {
        if options.num_ctas != 1 {
            return Err(errors::argument_error(
                py,
                format!("{}: num_ctas={}: trident launches one CTA per program", self.name, options.num_ctas),
            ));
        }
        if options.maxnreg {
            let warning = py.get_type::<pyo3::exceptions::PyUserWarning>();
            let message = format!("{}: maxnreg is not applied by trident yet", self.name);
            PyErr::warn(py, &warning, &std::ffi::CString::new(message).unwrap_or_default(), 2)?;
        }
        Ok(())
    }

    /// The grid of a launch with `values` and the meta-parameters `meta`.
    fn grid<'py>(
        &self,
        py: Python<'py>,
        grid: &Bound<'py, PyAny>,
        names: &[&str],
        values: &[Value<'py>],
        meta: &[(String, trident::ConstValue)],
    ) -> PyResult<trident_runtime::Grid> {
        if !grid.is_callable() {
            return grid::compute(py, &self.name, grid, &[], meta);
        }
        let objects = self.objects(py, names, values)?;
        let borrowed: Vec<(&str, &Bound<'py, PyAny>)> = objects.iter().map(|(n, o)| (*n, o)).collect();
        grid::compute(py, &self.name, grid, &borrowed, meta)
    }

    /// The given values as Python objects, by parameter name (what a grid function sees).
    fn objects<'a, 'py>(
        &self,
        py: Python<'py>,
        names: &[&'a str],
        values: &[Value<'py>],
    ) -> PyResult<Vec<(&'a str, Bound<'py, PyAny>)>> {
        let mut objects = Vec::with_capacity(values.len());
        for (name, value) in names.iter().zip(values) {
            let object = match value {
                Value::Missing | Value::Const(_) => continue,
                Value::Int { value, dtype: DType::I1 } => {
                    (*value != 0).into_pyobject(py)?.to_owned().into_any()
                }
                Value::Int { value, dtype: DType::U64 } => (*value as u64).into_pyobject(py)?.into_any(),
                Value::Int { value, .. } => value.into_pyobject(py)?.into_any(),
                Value::Float(value) => value.into_pyobject(py)?.into_any(),
                Value::Host(array) => array.object.clone(),
                Value::Torch(tensor) => tensor.object.clone(),
                Value::Descriptor(descriptor) => descriptor.object.clone(),
            };
            objects.push((*name, object));
        }
        Ok(objects)
    }

    /// Prepares the specialization `key` as `trident run` prepares a launch (autotuning included,
    /// on copies of the arguments) and keeps it; returns it with the prepared launch and its grid.
    fn load<'py>(
        &self,
        py: Python<'py>,
        key: Key,
        grid: &Bound<'py, PyAny>,
        names: &[&str],
        values: &[Value<'py>],
        options: &Options,
    ) -> PyResult<(Rc<Loaded>, trident::cli::args::Launch, Grid)> {
        let decorations = self.decorations.clone().map_err(|text| errors::kernel_error(py, text))?;
        let mut constexprs = Vec::new();
        let mut args = Vec::new();
        let mut buffers: Vec<Buffer> = Vec::new();
        for (name, value) in names.iter().zip(values) {
            let name = name.to_string();
            match value {
                Value::Missing => {}
                Value::Const(value) => constexprs.push((name, value.clone())),
                Value::Int { value, dtype } => {
                    args.push((name, ArgSpec::Int { value: *value, dtype: *dtype }, Binding::Int(*value)))
                }
                Value::Float(value) => args.push((
                    name,
                    ArgSpec::Float { value: *value, dtype: DType::F32 },
                    Binding::Float(*value),
                )),
                Value::Host(_) | Value::Torch(_) | Value::Descriptor(_) => {
                    let (dtype, aligned16, buffer) = read_memory(&name, value.memory())?;
                    let slot = buffers.len();
                    buffers.push(buffer);
                    let (spec, binding) = match value {
                        Value::Descriptor(descriptor) => (
                            ArgSpec::TensorDesc {
                                dtype,
                                aligned16,
                                strides16: descriptor.strides16(),
                                block_shape: descriptor.block_shape.clone(),
                                padding_nan: descriptor.padding_nan,
                            },
                            Binding::Descriptor {
                                buffer: slot,
                                shape: descriptor.shape.clone(),
                                strides: descriptor.strides.clone(),
                            },
                        ),
                        _ => (ArgSpec::Pointer { dtype, aligned16 }, Binding::Buffer(slot)),
                    };
                    args.push((name, spec, binding));
                }
            }
        }
        let objects: Vec<(String, Py<PyAny>)> = self
            .objects(py, names, values)?
            .into_iter()
            .map(|(name, object)| (name.to_string(), object.unbind()))
            .collect();
        let grid_error: Arc<Mutex<Option<PyErr>>> = Arc::default();
        let grid_fn = grid_function(self.name.clone(), grid.clone().unbind(), objects, grid_error.clone());
        let inputs = Inputs {
            path: self.path.clone(),
            source: self.source.clone(),
            kernel: self.name.clone(),
            params: Some(self.params.clone()),
            decorations,
            constexprs,
            args,
            buffers,
            num_warps: options.num_warps,
            num_stages: options.num_stages,
            config: None,
            grid: None,
            grid_expr: None,
            grid_fn: Some(grid_fn),
            pipeline: PipelineOptions::default(),
            cache: Cache::open(false),
        };
        let backend = key.backend.cli();
        let prepared = launch::without_gil(py, || prepare(inputs, backend, &self.params));
        let (launch, grid, loaded) = match prepared {
            Ok(prepared) => prepared,
            Err(error) => {
                let raised = grid_error.lock().unwrap_or_else(|p| p.into_inner()).take();
                return Err(raised.unwrap_or_else(|| errors::to_python(py, error)));
            }
        };
        let loaded = Rc::new(loaded);
        self.remember(key, loaded.clone());
        Ok((loaded, launch, grid))
    }

    /// As Triton's autotuner after timing the configs (and trident's after a tuning cache hit),
    /// zeroes the tensors of `reset_to_zero` before the real launch. Copied arguments were zeroed
    /// in the launch's buffers by the autotuner; CUDA tensors used in place are zeroed here.
    fn reset_to_zero(
        &self,
        launch: &trident::cli::args::Launch,
        loaded: &Loaded,
        names: &[&str],
        values: &[Value<'_>],
    ) -> PyResult<()> {
        let Some(tuning) = &launch.tuning else { return Ok(()) };
        let tuned = tuning.pinned.is_none() && tuning.autotune.configs.len() > 1;
        if !tuned || !matches!(loaded.target, devices::Chosen::Nvptx(_)) {
            return Ok(());
        }
        for (name, value) in names.iter().zip(values) {
            if let Value::Torch(tensor) = value.memory() {
                if tuning.autotune.reset_to_zero.iter().any(|n| n == name) {
                    tensor.tensor.call_method0("zero_")?;
                }
            }
        }
        Ok(())
    }
}

/// The native half of `trident.jit.JITFunction` (its base class): `kernel[grid]` without a Python
/// frame. It keeps the native [`Kernel`] (`_native`, made by the Python half's `_load` on the
/// first launch) and the last grid object with its launcher: a loop launching `kernel[grid](...)`
/// with one grid object gets the same launcher back (which reads the grid at each call, or once
/// where it cannot change).
#[pyclass(module = "trident._native", subclass)]
pub struct JitBase {
    native: Option<Py<Kernel>>,
    last: Option<(Py<PyAny>, Py<PyAny>)>,
}

#[pymethods]
impl JitBase {
    /// Takes the subclass's constructor arguments, which its `__init__` reads.
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> JitBase {
        JitBase { native: None, last: None }
    }

    #[getter(_native)]
    fn native(&self, py: Python<'_>) -> Option<Py<Kernel>> {
        self.native.as_ref().map(|native| native.clone_ref(py))
    }

    /// Setting the native kernel (`None` makes the next launch load it again) drops the launcher.
    #[setter(_native)]
    fn set_native(&mut self, native: Option<Py<Kernel>>) {
        self.native = native;
        self.last = None;
    }

    fn __getitem__(slf: &Bound<'_, Self>, grid: Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        if let Some((last, launcher)) = &slf.borrow().last {
            if last.is(&grid) {
                return Ok(launcher.clone_ref(py));
            }
        }
        let loaded = slf.borrow().native(py);
        let native = match loaded {
            Some(native) => native,
            None => slf.call_method0(pyo3::intern!(py, "_load"))?.extract::<Py<Kernel>>()?,
        };
        let launcher = Kernel::__getitem__(native.into_bound(py), grid.clone().unbind())?.unbind();
        slf.borrow_mut().last = Some((grid.unbind(), launcher.clone_ref(py)));
        Ok(launcher)
    }
}

/// `kernel[grid]`: calling it launches the kernel over the grid (`kernel[grid](*args, **kwargs)`).
/// A native object, so that a launch goes from Python straight into Rust.
#[pyclass(module = "trident._native", frozen)]
pub struct Launcher {
    kernel: Py<Kernel>,
    grid: Py<PyAny>,
    /// The grid's dimensions, once read, where they cannot change ([`grid::is_fixed`]).
    fixed: OnceLock<Grid>,
}

/// The grid of a launch: the object `kernel[grid]` was given, and its dimensions once read where
/// they cannot change (kept by the launcher, so a repeat launch reads nothing).
#[derive(Clone, Copy)]
struct LaunchGrid<'a, 'py> {
    object: &'a Bound<'py, PyAny>,
    fixed: &'a OnceLock<Grid>,
}

impl<'py> LaunchGrid<'_, 'py> {
    /// The dimensions: kept ones, else `read` of the object (kept when they cannot change).
    fn dims(self, read: impl FnOnce(&Bound<'py, PyAny>) -> PyResult<Grid>) -> PyResult<Grid> {
        if let Some(dims) = self.fixed.get() {
            return Ok(*dims);
        }
        let dims = read(self.object)?;
        if grid::is_fixed(self.object) {
            let _ = self.fixed.set(dims);
        }
        Ok(dims)
    }
}

#[pymethods]
impl Launcher {
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<()> {
        self.call(py, args.iter(), kwargs.into_iter().flat_map(|kwargs| kwargs.iter()))
    }
}

impl Launcher {
    /// A launch with the `positional` and `keywords` (name, value) arguments of the call.
    pub fn call<'py>(
        &self,
        py: Python<'py>,
        positional: impl ExactSizeIterator<Item = Bound<'py, PyAny>>,
        keywords: impl Iterator<Item = (Bound<'py, PyAny>, Bound<'py, PyAny>)>,
    ) -> PyResult<()> {
        let backend = current_backend()?;
        let kernel = self.kernel.get();
        let bound = bind::bind(&kernel.name, &kernel.params, &kernel.param_names, positional, keywords)?;
        let grid = LaunchGrid { object: self.grid.bind(py), fixed: &self.fixed };
        kernel.launch_on(py, backend, grid, bound, None)
    }

    /// A launch with the arguments as vectorcall passes them ([`crate::fastcall`]): `args`
    /// holds the `positional` values, then one value per name of `keywords`. A call that fits
    /// the kernel's plan ([`crate::plan`]) launches by it; any other goes as [`Launcher::call`]
    /// and leaves a plan for the next.
    pub fn call_vectored<'py>(
        &self,
        py: Python<'py>,
        args: &[Bound<'py, PyAny>],
        positional: usize,
        keywords: Option<&Bound<'py, PyTuple>>,
    ) -> PyResult<()> {
        let backend = current_backend()?;
        let kernel = self.kernel.get();
        let site = Site { grid: self.grid.bind(py), args, positional, keywords };
        if check::mode().is_none() {
            for plan in kernel.plans(&site, backend) {
                if let Some(planned) = plan.launch(&site, kernel.exact_ints) {
                    kernel.planned.fetch_add(1, Ordering::Relaxed);
                    let grid = LaunchGrid { object: site.grid, fixed: &self.fixed };
                    let dims = grid.dims(|_| plan.grid(kernel, &site))?;
                    return launch::run_planned(py, &kernel.about(), planned, dims);
                }
            }
        }
        let named =
            keywords.into_iter().flat_map(|names| names.iter()).zip(args[positional..].iter().cloned());
        let bound = bind::bind(
            &kernel.name,
            &kernel.params,
            &kernel.param_names,
            args[..positional].iter().cloned(),
            named,
        )?;
        let grid = LaunchGrid { object: site.grid, fixed: &self.fixed };
        kernel.launch_on(py, backend, grid, bound, Some(&site))
    }
}

/// The backend `trident.set_backend` chose, as [`Backend::code`] (0: none chosen).
static CHOSEN_BACKEND: AtomicU8 = AtomicU8::new(0);

/// `trident.set_backend(name)`: every later launch without an explicit backend runs on `name`;
/// `None` gives the choice back to `TRIDENT_BACKEND`.
#[pyfunction]
#[pyo3(signature = (name))]
pub fn set_backend(name: Option<&str>) -> PyResult<()> {
    let code = match name {
        None => 0,
        Some(name) => Backend::parse(name)
            .ok_or_else(|| {
                pyo3::exceptions::PyValueError::new_err(format!(
                    "unknown backend '{name}': auto, nvptx, spirv or interp"
                ))
            })?
            .code(),
    };
    CHOSEN_BACKEND.store(code, Ordering::Relaxed);
    Ok(())
}

/// `trident.get_backend()`: the name of the backend the next launch runs on.
#[pyfunction(name = "current_backend")]
pub fn current_backend_name() -> PyResult<&'static str> {
    Ok(current_backend()?.name())
}

/// The backend of a launch: [`set_backend`]'s, else `TRIDENT_BACKEND`, else `auto`.
fn current_backend() -> PyResult<Backend> {
    match Backend::from_code(CHOSEN_BACKEND.load(Ordering::Relaxed)) {
        Some(chosen) => Ok(chosen),
        None => environment_backend(),
    }
}

/// `TRIDENT_BACKEND`, else `auto`, as the environment is at this launch (`crate::env`: looked up
/// again only when the environment changed; `os.environ` writes reach the process's environment).
fn environment_backend() -> PyResult<Backend> {
    crate::env::with(crate::env::Var::Backend, |name| {
        let name = name.unwrap_or_default();
        if name.is_empty() {
            return Ok(Backend::Auto);
        }
        Backend::parse(name).ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "TRIDENT_BACKEND='{name}': auto, nvptx, spirv or interp"
            ))
        })
    })
}

/// Prepares a launch from its inputs as `trident run` does, up to the loaded kernel.
fn prepare(
    inputs: Inputs,
    backend: trident::cli::Backend,
    python_params: &[Param],
) -> Result<(trident::cli::args::Launch, trident_runtime::Grid, Loaded), CliError> {
    let mut launch = inputs::build(inputs, Front::Python)?;
    devices::require_built(backend)?;
    autotune::choose_config(&mut launch, backend, None)?;
    let grid = launch.require_grid()?;
    let (module, target) = run::compile_and_choose(&launch, backend, None)?;
    let meta = trident_frontend::specialize(&launch.path, &launch.source, &launch.kernel, &launch.spec)
        .map_err(CliError::Kernel)?
        .constexprs;
    let kernel = module.kernel().ok_or_else(|| {
        CliError::Internal(format!(
            "internal compiler error: the compiled module of {} has no kernel",
            launch.kernel
        ))
    })?;
    let mut bound = Vec::with_capacity(kernel.arg_names.len());
    for name in &kernel.arg_names {
        // A parameter of the Python function, or a field of a descriptor argument.
        let (param, field) = trident_frontend::descriptor_field(name);
        let index = python_params.iter().position(|p| p.name == param).ok_or_else(|| {
            CliError::Internal(format!(
                "internal compiler error: the compiled {} takes `{name}`, which is not a parameter",
                launch.kernel
            ))
        })?;
        bound.push((index, field));
    }
    Ok((launch, grid, Loaded { params: bound, meta, target, module }))
}

/// The launch's grid for the slow path, from the Python `grid` (a tuple or a function of the
/// arguments `objects` and the meta-parameters). An exception the function raises is kept in
/// `raised` (the launch then fails, and [`Kernel::load`] re-raises it).
fn grid_function(
    kernel: String,
    grid: Py<PyAny>,
    objects: Vec<(String, Py<PyAny>)>,
    raised: Arc<Mutex<Option<PyErr>>>,
) -> GridFn {
    GridFn(Arc::new(move |spec: &Specialization| {
        Python::attach(|py| {
            let bound: Vec<(String, Bound<'_, PyAny>)> =
                objects.iter().map(|(name, object)| (name.clone(), object.bind(py).clone())).collect();
            let values: Vec<(&str, &Bound<'_, PyAny>)> = bound.iter().map(|(n, o)| (n.as_str(), o)).collect();
            grid::compute(py, &kernel, grid.bind(py), &values, &spec.constexprs).map_err(|error| {
                let message = format!("the grid function raised {error}");
                *raised.lock().unwrap_or_else(|p| p.into_inner()) = Some(error);
                CliError::Failed(message)
            })
        })
    }))
}

/// What Triton's `CompiledKernel` tells of a compiled kernel, for `Kernel.warmup`: its name,
/// backend, warps and stages, shared (or workgroup) memory bytes, the registers, spills (local
/// memory words per thread, as Triton counts them) and most threads per block the CUDA driver
/// reports (None off nvptx), and its code (`asm`: the TTIR, and the PTX or the SPIR-V).
fn describe<'py>(
    py: Python<'py>,
    name: &str,
    loaded: &Loaded,
    options: &Options,
) -> PyResult<Bound<'py, PyDict>> {
    let info = PyDict::new(py);
    let asm = PyDict::new(py);
    asm.set_item("ttir", trident_midend::ir::printer::print_module(&loaded.module))?;
    info.set_item("name", name)?;
    info.set_item("backend", loaded.target.name())?;
    info.set_item("num_warps", options.num_warps)?;
    info.set_item("num_stages", options.num_stages)?;
    let (shared, registers) = match &loaded.target {
        devices::Chosen::Nvptx(gpu) => {
            asm.set_item("ptx", &gpu.artifact.ptx)?;
            let kernel = &gpu.kernel;
            (kernel.shared_bytes, Some((kernel.registers, kernel.local_bytes / 4, kernel.max_threads)))
        }
        devices::Chosen::Spirv(vulkan) => {
            let words = &vulkan.artifact.words;
            let bytes: Vec<u8> = words.iter().flat_map(|word| word.to_le_bytes()).collect();
            asm.set_item("spirv", pyo3::types::PyBytes::new(py, &bytes))?;
            (vulkan.artifact.workgroup_memory_bytes, None)
        }
        devices::Chosen::Interp => (0, None),
    };
    info.set_item("shared", shared)?;
    info.set_item("n_regs", registers.map(|r| r.0))?;
    info.set_item("n_spills", registers.map(|r| r.1))?;
    info.set_item("n_max_threads", registers.map(|r| r.2))?;
    info.set_item("asm", asm)?;
    Ok(info)
}

/// A pointer argument's element type, alignment and contents, read for a first launch: an array
/// is copied into a fresh device allocation (16-byte aligned); a CUDA tensor is read through the
/// host (autotuning times configs on copies, and spirv and interp run on one) and keeps its
/// address's alignment.
fn read_memory(name: &str, value: &Value<'_>) -> PyResult<(DType, bool, Buffer)> {
    match value {
        Value::Host(array) => Ok((array.dtype, true, array.read(name))),
        Value::Torch(tensor) => {
            Ok((tensor.dtype, tensor.data_ptr.is_multiple_of(16), tensor.to_host()?.1.read(name)))
        }
        _ => Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "internal error: {name} is not a tensor or an array"
        ))),
    }
}
