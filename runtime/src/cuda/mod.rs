//! The CUDA device: loads the nvptx backend's PTX with the driver's JIT, launches it, times it.
//!
//! Data model. A [`CudaDevice`] is one GPU's primary context plus an in-memory cache of loaded
//! modules keyed by a hash of the PTX text. [`CudaDevice::load`] turns an [`Artifact`] into a
//! [`LoadedKernel`] (the JIT's error log goes into the error message); [`CudaDevice::launch`]
//! runs it once over host [`Buffer`]s: every buffer is copied to a fresh `cuMemAlloc`
//! allocation (never managed memory), parameters are packed per [`Artifact::params`], the
//! block is `threads_per_block` threads with `shared_bytes` of dynamic shared memory, the
//! launch is waited for with its error checked, and every buffer is copied back.
//! [`CudaDevice::bench`] keeps the buffers on the device and times launches with CUDA events.
//!
//! Invariants and promises:
//! - No driver call happens before `libcuda` is known to be loadable (cudarc panics otherwise);
//!   on a machine without a driver or GPU, [`CudaDevice::open`] returns `Ok(None)` and
//!   [`probe`] says why. The crate builds and its tests pass without CUDA anywhere.
//! - A kernel that faults never hangs the process: the wait after a launch has a deadline and
//!   the synchronize's error is checked and reported with the kernel's name; an illegal address
//!   tells the user to rerun with `--backend interp`, which names the failing Python line.
//! - The environment is read here, not in the backends: `TRIDENT_CUDA_DEVICE` picks the GPU
//!   (ordinal, default 0) and `TRIDENT_CUDA_TIMEOUT` bounds one launch (seconds, default 300).
//!
//! What it does not know: Triton, the IR, or how the PTX was made. A device is not `Send`
//! (CUDA contexts are bound to threads; every call makes the context current first).
//!
//! Module map: `driver.rs` holds every `unsafe` driver call; `params.rs` packs kernel
//! parameters; `graphs.rs` replays [`CudaDevice::launch_async`]'s repeat launches as one-node
//! graphs (cheaper for the host than `cuLaunchKernel`); `floor.rs` measures the host's cost of a
//! launch both ways; `selftest.rs` runs a hand-written PTX fixture to prove the path on a GPU.

mod driver;
mod floor;
mod graphs;
mod params;
pub mod selftest;

use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::rc::Rc;
use std::time::{Duration, Instant};

use trident_backend_nvptx::{Artifact, ParamAbi};

use crate::buffer::{ArgValue, Buffer, Grid};
use driver::{CUresult, Context, DriverError, Event, Memory, Module};
pub use floor::LaunchFloor;
pub use params::Params;

/// The environment variable that picks the GPU (an ordinal; default 0).
pub const DEVICE_ENV: &str = "TRIDENT_CUDA_DEVICE";
/// The environment variable that bounds one launch, in seconds (default 300).
pub const TIMEOUT_ENV: &str = "TRIDENT_CUDA_TIMEOUT";
/// The environment variable that, set to 0, makes [`CudaDevice::launch_async`] launch every
/// time with `cuLaunchKernel` instead of replaying hot launches from graphs (`graphs.rs`); read
/// when the device is opened.
pub const GRAPHS_ENV: &str = "TRIDENT_CUDA_GRAPHS";
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// Dynamic shared memory a kernel gets without opting in (`cuFuncSetAttribute`).
const DEFAULT_SHARED_BYTES: u32 = 48 * 1024;

/// What kind of failure a [`CudaError`] is, for callers that react differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The environment is wrong (`TRIDENT_CUDA_DEVICE` unparsable or out of range).
    Environment,
    /// A driver call failed outside a kernel (allocation, copy, context).
    Driver,
    /// The driver's JIT refused the PTX (the message holds its log).
    Jit,
    /// The artifact does not fit this device (threads per block, shared memory).
    Resources,
    /// The arguments do not match the kernel's parameters.
    Arguments,
    /// The kernel faulted on the GPU (illegal address, trap, assert); the context is unusable.
    KernelFault,
    /// The kernel ran past the deadline.
    Timeout,
}

/// A failure of the CUDA device, with a message written for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaError {
    pub kind: ErrorKind,
    pub message: String,
}

impl CudaError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> CudaError {
        CudaError { kind, message: message.into() }
    }

    fn driver(error: DriverError) -> CudaError {
        CudaError::new(ErrorKind::Driver, format!("CUDA driver error: {error}"))
    }
}

impl fmt::Display for CudaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CudaError {}

/// The facts of one GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub ordinal: u32,
    pub name: String,
    /// (major, minor), e.g. (9, 0) for an H100.
    pub compute_capability: (u32, u32),
    pub sm_count: u32,
    pub total_memory_bytes: u64,
    /// The most dynamic shared memory one block may opt in to.
    pub max_shared_bytes_optin: u32,
    /// Registers one block may use, all its threads together.
    pub max_registers_per_block: u32,
    pub warp_size: u32,
    /// The SM clock and the memory clock (kHz), and the memory bus width (bits).
    pub clock_rate_khz: u32,
    pub memory_clock_rate_khz: u32,
    pub memory_bus_width: u32,
}

/// What this machine has: the GPUs, or why there are none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Probe {
    /// No usable driver or no GPU; the reason is one sentence for the user.
    Absent(String),
    Present {
        /// The driver's CUDA version (major, minor).
        driver_version: (u32, u32),
        devices: Vec<DeviceInfo>,
    },
}

/// Looks for a CUDA driver and GPUs without ever panicking.
pub fn probe() -> Probe {
    match driver::init() {
        Ok(()) => {}
        Err(None) => {
            return Probe::Absent(
                "no CUDA driver: libcuda could not be loaded (no NVIDIA driver here, or it is not on \
                 the library path)"
                    .to_string(),
            )
        }
        Err(Some(error)) if error.code == CUresult::CUDA_ERROR_NO_DEVICE => {
            return Probe::Absent("the CUDA driver found no GPU (cuInit: CUDA_ERROR_NO_DEVICE)".to_string())
        }
        Err(Some(error)) => return Probe::Absent(format!("the CUDA driver did not initialize: {error}")),
    }
    let count = match driver::device_count() {
        Ok(0) => return Probe::Absent("the CUDA driver found no GPU".to_string()),
        Ok(count) => count,
        Err(error) => return Probe::Absent(format!("the CUDA driver cannot count its GPUs: {error}")),
    };
    let mut devices = Vec::new();
    for ordinal in 0..count {
        match driver::device_info(ordinal) {
            Ok(info) => devices.push(info),
            Err(error) => return Probe::Absent(format!("cannot read the facts of GPU {ordinal}: {error}")),
        }
    }
    let driver_version = driver::driver_version().unwrap_or((0, 0));
    Probe::Present { driver_version, devices }
}

/// The GPU ordinal to use: `TRIDENT_CUDA_DEVICE`, or 0.
pub fn selected_ordinal() -> Result<u32, CudaError> {
    match std::env::var(DEVICE_ENV) {
        Err(_) => Ok(0),
        Ok(text) if text.trim().is_empty() => Ok(0),
        Ok(text) => text.trim().parse::<u32>().map_err(|_| {
            CudaError::new(
                ErrorKind::Environment,
                format!("{DEVICE_ENV}={text}: not a GPU ordinal (0, 1, ...)"),
            )
        }),
    }
}

/// The deadline of one launch: `TRIDENT_CUDA_TIMEOUT` seconds, or 300.
fn launch_timeout() -> Duration {
    std::env::var(TIMEOUT_ENV)
        .ok()
        .and_then(|text| text.trim().parse::<f64>().ok())
        .filter(|seconds| seconds.is_finite() && *seconds > 0.0)
        .map_or(DEFAULT_TIMEOUT, Duration::from_secs_f64)
}

/// A kernel loaded on a device, ready to launch.
#[derive(Debug)]
pub struct LoadedKernel {
    /// The graphs [`CudaDevice::launch_async`] replays. Declared before `module`, so that they
    /// are destroyed before it can be unloaded.
    graphs: RefCell<graphs::LaunchGraphs>,
    /// Keeps the module (and so `function`) alive.
    module: Rc<Module>,
    function: driver::Function,
    pub name: String,
    pub threads_per_block: u32,
    pub shared_bytes: u32,
    pub params: Vec<ParamAbi>,
    /// Global scratch bytes per program (tensor maps built on the device); the launch allocates
    /// them for the whole grid and passes the buffer as a last parameter.
    pub global_scratch_bytes: u32,
    /// The tensor maps each launch encodes on the host and passes after everything else.
    pub tensor_maps: Vec<trident_backend_nvptx::HostTensorMap>,
    /// For a persistent kernel ([`Artifact::persistent`]), the CTAs the GPU holds at once: a
    /// launch runs at most this many, each walking the program grid.
    pub resident_ctas: Option<u32>,
    /// Registers per thread, as the JIT allocated them (0 when the driver did not say).
    pub registers: u32,
    /// Local memory per thread, bytes: the JIT's spills (0 when the driver did not say).
    pub local_bytes: u32,
    /// The most threads per block its registers allow (0 when the driver did not say).
    pub max_threads: u32,
}

impl LoadedKernel {
    /// Whether two kernels come from the same loaded module (the cache hit).
    pub fn shares_module_with(&self, other: &LoadedKernel) -> bool {
        Rc::ptr_eq(&self.module, &other.module)
    }
}

/// Timings of [`CudaDevice::bench`], from CUDA events around each launch.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchStats {
    /// Timed launches (after warm-up).
    pub runs: usize,
    pub median_ms: f64,
    pub min_ms: f64,
}

/// How long [`CudaDevice::bench`] measures.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchOptions {
    /// Warm-up launches run for at least this long (and at least once).
    pub warmup: Duration,
    pub min_runs: usize,
    pub max_runs: usize,
    /// Timed launches stop once this much wall time has passed (after `min_runs`).
    pub budget: Duration,
}

/// Bytes written before each timed launch to evict the inputs from L2 (Triton's do_bench
/// clears a 256 MB buffer; an H100's L2 holds 50 MB).
pub const L2_FLUSH_BYTES: usize = 256 << 20;

impl Default for BenchOptions {
    fn default() -> Self {
        // Triton's do_bench warms up for 25 ms and measures for about 100 ms.
        BenchOptions {
            warmup: Duration::from_millis(25),
            min_runs: 5,
            max_runs: 1000,
            budget: Duration::from_millis(500),
        }
    }
}

/// A loaded module with its PTX text (kept to rule out hash collisions).
struct CachedModule {
    ptx: String,
    module: Rc<Module>,
}

/// One CUDA GPU with its context and module cache.
pub struct CudaDevice {
    info: DeviceInfo,
    context: Rc<Context>,
    /// Loaded modules by a hash of their PTX.
    modules: RefCell<HashMap<u64, Vec<CachedModule>>>,
    /// The global scratch of [`CudaDevice::launch_async`], per stream (launches on one stream
    /// run in order, so they can share it); grown when a launch needs more.
    scratch: RefCell<HashMap<u64, Memory>>,
    /// Whether [`CudaDevice::launch_async`] replays hot launches from graphs ([`GRAPHS_ENV`]).
    graph_launches: bool,
}

impl fmt::Debug for CudaDevice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CudaDevice").field("info", &self.info).finish_non_exhaustive()
    }
}

impl CudaDevice {
    /// Opens GPU `ordinal`. `Ok(None)` when there is no driver or no GPU at all ([`probe`] says
    /// why); an error when GPUs exist but `ordinal` is not one of them or the driver fails.
    pub fn open(ordinal: u32) -> Result<Option<CudaDevice>, CudaError> {
        let devices = match probe() {
            Probe::Absent(_) => return Ok(None),
            Probe::Present { devices, .. } => devices,
        };
        let Some(info) = devices.into_iter().find(|d| d.ordinal == ordinal) else {
            return Err(CudaError::new(
                ErrorKind::Environment,
                format!(
                    "there is no CUDA GPU {ordinal} here (see `trident devices`; {DEVICE_ENV} picks one)"
                ),
            ));
        };
        let context = Context::retain(ordinal).map_err(CudaError::driver)?;
        Ok(Some(CudaDevice {
            info,
            context,
            modules: RefCell::new(HashMap::new()),
            scratch: RefCell::new(HashMap::new()),
            graph_launches: std::env::var(GRAPHS_ENV).map_or(true, |value| value.trim() != "0"),
        }))
    }

    /// Opens the GPU that `TRIDENT_CUDA_DEVICE` names (0 by default).
    pub fn open_selected() -> Result<Option<CudaDevice>, CudaError> {
        CudaDevice::open(selected_ordinal()?)
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    pub fn name(&self) -> &str {
        &self.info.name
    }

    pub fn compute_capability(&self) -> (u32, u32) {
        self.info.compute_capability
    }

    pub fn sm_count(&self) -> u32 {
        self.info.sm_count
    }

    /// The driver's CUDA version (major, minor); (0, 0) if the driver does not say.
    pub fn driver_version(&self) -> (u32, u32) {
        driver::driver_version().unwrap_or((0, 0))
    }

    /// Modules loaded so far (the cache's size).
    pub fn cached_modules(&self) -> usize {
        self.modules.borrow().values().map(Vec::len).sum()
    }

    /// JIT-loads the artifact's PTX (or finds it in the cache) and prepares its kernel.
    pub fn load(&self, artifact: &Artifact) -> Result<LoadedKernel, CudaError> {
        let name = &artifact.kernel_name;
        if artifact.threads_per_block == 0 || artifact.threads_per_block > 1024 {
            return Err(CudaError::new(
                ErrorKind::Resources,
                format!(
                    "kernel {name} asks for {} threads per block; CUDA allows 1 to 1024",
                    artifact.threads_per_block
                ),
            ));
        }
        if artifact.shared_bytes > self.info.max_shared_bytes_optin.max(DEFAULT_SHARED_BYTES) {
            return Err(CudaError::new(
                ErrorKind::Resources,
                format!(
                    "kernel {name} needs {} bytes of shared memory; {} allows at most {} per block \
                     (try fewer --num-stages or smaller blocks)",
                    artifact.shared_bytes, self.info.name, self.info.max_shared_bytes_optin
                ),
            ));
        }
        let module = self.module_for(&artifact.ptx, name)?;
        let function = module.function(name).map_err(|error| {
            CudaError::new(ErrorKind::Jit, format!("the PTX has no kernel named {name}: {error}"))
        })?;
        if artifact.shared_bytes > DEFAULT_SHARED_BYTES {
            function.set_max_dynamic_shared_bytes(artifact.shared_bytes).map_err(|error| {
                CudaError::new(
                    ErrorKind::Resources,
                    format!(
                        "cannot give kernel {name} {} bytes of shared memory: {error}",
                        artifact.shared_bytes
                    ),
                )
            })?;
        }
        let resident_ctas = if artifact.persistent {
            let per_sm = function
                .resident_blocks_per_sm(artifact.threads_per_block, artifact.shared_bytes)
                .map_err(CudaError::driver)?;
            if per_sm == 0 {
                return Err(CudaError::new(
                    ErrorKind::Resources,
                    format!("kernel {name}: not one block of it fits an SM of {}", self.info.name),
                ));
            }
            Some(per_sm * self.info.sm_count)
        } else {
            None
        };
        Ok(LoadedKernel {
            graphs: RefCell::default(),
            module,
            function,
            name: name.clone(),
            threads_per_block: artifact.threads_per_block,
            shared_bytes: artifact.shared_bytes,
            params: artifact.params.clone(),
            global_scratch_bytes: artifact.global_scratch_bytes,
            tensor_maps: artifact.tensor_maps.clone(),
            resident_ctas,
            registers: function.registers().unwrap_or(0),
            local_bytes: function.local_bytes().unwrap_or(0),
            max_threads: function.max_threads().unwrap_or(0),
        })
    }

    /// The loaded module of `ptx`, from the cache or JIT-compiled now.
    fn module_for(&self, ptx: &str, kernel: &str) -> Result<Rc<Module>, CudaError> {
        let mut hasher = DefaultHasher::new();
        ptx.hash(&mut hasher);
        let key = hasher.finish();
        if let Some(entries) = self.modules.borrow().get(&key) {
            if let Some(cached) = entries.iter().find(|cached| cached.ptx == ptx) {
                return Ok(cached.module.clone());
            }
        }
        let module = Module::load_ptx(&self.context, ptx).map_err(|failure| {
            let (major, minor) = self.info.compute_capability;
            let mut message = format!(
                "the CUDA driver could not compile the PTX of kernel {kernel} for {} (compute capability \
                 {major}.{minor}): {}",
                self.info.name, failure.error
            );
            if failure.error.code == CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION {
                message += "\nthe driver is older than the PTX ISA version this PTX declares; update the \
                            NVIDIA driver";
            }
            if !failure.log.is_empty() {
                message += &format!("\nJIT log:\n{}", failure.log);
            }
            CudaError::new(ErrorKind::Jit, message)
        })?;
        let module = Rc::new(module);
        self.modules
            .borrow_mut()
            .entry(key)
            .or_default()
            .push(CachedModule { ptx: ptx.to_string(), module: module.clone() });
        Ok(module)
    }

    /// Runs `kernel` once over `grid`: buffers in, launch, wait, buffers out.
    pub fn launch(
        &self,
        kernel: &LoadedKernel,
        grid: Grid,
        args: &[ArgValue],
        buffers: &mut [Buffer],
    ) -> Result<(), CudaError> {
        check_grid(kernel, grid)?;
        let memory = self.upload(buffers)?;
        let launched = launched_grid(kernel, grid)?;
        let (mut params, _scratch) = self.pack(kernel, grid, launched, args, &memory)?;
        if grid.programs() > 0 {
            let done = Event::new(&self.context).map_err(CudaError::driver)?;
            self.enqueue(kernel, launched, &mut params)?;
            done.record().map_err(|e| fault(kernel, e))?;
            self.wait(kernel, &done)?;
        }
        download(&memory, buffers)
    }

    /// Enqueues `kernel` once over `grid` on `stream` (a `CUstream` handle as an integer, 0 for
    /// the null stream) and returns without waiting: the caller's memory is used in place, so
    /// `ArgValue::Buffer(i)` is the device address `addresses[i]`, which must stay allocated until
    /// the launch has run (the Python package passes torch's CUDA tensors, on torch's current
    /// stream). The driver's refusal of the launch is reported here; a fault of the kernel shows
    /// at the caller's next synchronization, as in CUDA and in Triton.
    ///
    /// A kernel with global scratch gets this device's scratch for `stream`, allocated on first
    /// use and grown (after a synchronization) when a launch needs more.
    ///
    /// A kernel launched again and again over one grid on one stream is replayed from a one-node
    /// graph once that pair is hot (`graphs.rs`: half the host time of `cuLaunchKernel` on the
    /// H100 hosts measured), unless [`GRAPHS_ENV`] is 0 or the stream is being captured.
    pub fn launch_async(
        &self,
        kernel: &LoadedKernel,
        grid: Grid,
        args: &[ArgValue],
        addresses: &[u64],
        stream: u64,
    ) -> Result<(), CudaError> {
        self.launch_async_as(kernel, grid, args, addresses, stream, self.graph_launches)
    }

    /// [`CudaDevice::launch_async`], replaying hot launches from graphs or not (`replays`).
    fn launch_async_as(
        &self,
        kernel: &LoadedKernel,
        grid: Grid,
        args: &[ArgValue],
        addresses: &[u64],
        stream: u64,
        replays: bool,
    ) -> Result<(), CudaError> {
        check_grid(kernel, grid)?;
        if grid.programs() == 0 {
            return Ok(());
        }
        let launched = launched_grid(kernel, grid)?;
        let mut params = Params::pack(&kernel.params, args, addresses)
            .map_err(|e| CudaError::new(e.kind, format!("kernel {}: {}", kernel.name, e.message)))?;
        if kernel.global_scratch_bytes > 0 {
            let bytes = launched.programs() as usize * kernel.global_scratch_bytes as usize;
            let mut scratch = self.scratch.borrow_mut();
            if scratch.get(&stream).is_none_or(|memory| memory.bytes() < bytes) {
                // The old scratch may still be in use by launches in flight.
                if scratch.remove(&stream).is_some() {
                    self.context.synchronize().map_err(|e| fault(kernel, e))?;
                }
                let memory = Memory::alloc(&self.context, bytes).map_err(|error| {
                    CudaError::new(
                        ErrorKind::Driver,
                        format!(
                            "cannot allocate {bytes} bytes of global scratch for kernel {}: {error}",
                            kernel.name
                        ),
                    )
                })?;
                scratch.insert(stream, memory);
            }
            params.push_address(scratch[&stream].address());
        }
        push_program_grid(kernel, grid, &mut params);
        params
            .encode_tensor_maps(&kernel.tensor_maps, args, addresses)
            .map_err(|e| CudaError::new(e.kind, format!("kernel {}: {}", kernel.name, e.message)))?;
        self.context.make_current().map_err(CudaError::driver)?;
        let mut pointers = params.pointers();
        let block = [kernel.threads_per_block, 1, 1];
        if replays {
            let launch = graphs::Launch {
                function: kernel.function,
                target: graphs::Target { grid: launched.0, stream },
                block,
                shared_bytes: kernel.shared_bytes,
                params: &params,
                pointers: &mut pointers,
            };
            // SAFETY: as for the direct launch below; the graphs live in `kernel`, which keeps
            // the function's module alive and destroys them first.
            let replayed = unsafe { kernel.graphs.borrow_mut().launch(&self.context, launch) };
            if replayed.map_err(|error| launch_error(kernel, launched, error))? {
                return Ok(());
            }
        }
        // SAFETY: `pointers` point into `params`, which outlives the call and holds one 8-byte
        // slot per parameter of `kernel` (packed against its ABI); the device addresses among
        // them are the caller's live allocations (its promise) or this device's scratch; the
        // module of the function is alive; `stream` is the caller's stream of this context.
        let result = unsafe {
            kernel.function.launch_on(stream, launched.0, block, kernel.shared_bytes, &mut pointers)
        };
        result.map_err(|error| launch_error(kernel, launched, error))
    }

    /// Times `kernel`: warm-up launches, then launches bracketed by CUDA events until
    /// `options` says stop. Buffers stay on the device between launches (each launch sees the
    /// previous one's outputs, as in Triton's do_bench) and are copied back at the end.
    ///
    /// As in do_bench, each timed launch follows a write of [`L2_FLUSH_BYTES`] of zeros: the
    /// launch starts with a cold L2, like Triton's, and the GPU is busy with the write while
    /// the host enqueues the start event and the launch, so the host's launch latency is not
    /// timed (an idle GPU would fire the start event before the launch had even been enqueued).
    pub fn bench(
        &self,
        kernel: &LoadedKernel,
        grid: Grid,
        args: &[ArgValue],
        buffers: &mut [Buffer],
        options: &BenchOptions,
    ) -> Result<BenchStats, CudaError> {
        check_grid(kernel, grid)?;
        if grid.programs() == 0 {
            return Err(CudaError::new(ErrorKind::Arguments, "cannot time a launch of an empty grid"));
        }
        let memory = self.upload(buffers)?;
        let launched = launched_grid(kernel, grid)?;
        let (mut params, _scratch) = self.pack(kernel, grid, launched, args, &memory)?;
        let grid = launched;
        let start = Event::new(&self.context).map_err(CudaError::driver)?;
        let end = Event::new(&self.context).map_err(CudaError::driver)?;

        let warmup_started = Instant::now();
        loop {
            self.enqueue(kernel, grid, &mut params)?;
            end.record().map_err(|e| fault(kernel, e))?;
            self.wait(kernel, &end)?;
            if warmup_started.elapsed() >= options.warmup {
                break;
            }
        }

        // Without the flush buffer (a GPU short of memory) launches are still timed, from a
        // warm L2 and with the launch latency.
        let flush = Memory::alloc(&self.context, L2_FLUSH_BYTES).ok();
        let mut times_ms = Vec::new();
        let started = Instant::now();
        while times_ms.len() < options.min_runs.max(1)
            || (times_ms.len() < options.max_runs && started.elapsed() < options.budget)
        {
            if let Some(flush) = &flush {
                flush.zero_async().map_err(CudaError::driver)?;
            }
            start.record().map_err(|e| fault(kernel, e))?;
            self.enqueue(kernel, grid, &mut params)?;
            end.record().map_err(|e| fault(kernel, e))?;
            self.wait(kernel, &end)?;
            let ms = end.elapsed_ms(&start).map_err(CudaError::driver)?;
            times_ms.push(ms as f64);
        }
        download(&memory, buffers)?;
        times_ms.sort_by(f64::total_cmp);
        Ok(BenchStats { runs: times_ms.len(), median_ms: median(&times_ms), min_ms: times_ms[0] })
    }

    /// Packs the parameters of one launch over the program grid `grid`, run as the CTAs
    /// `launched` ([`launched_grid`]): the arguments against the kernel's ABI, then the global
    /// scratch (allocated here, per launched CTA) when the kernel takes one, a persistent
    /// kernel's program grid and the tensor maps. The scratch must outlive the launches that use
    /// `Params`.
    fn pack(
        &self,
        kernel: &LoadedKernel,
        grid: Grid,
        launched: Grid,
        args: &[ArgValue],
        memory: &[Memory],
    ) -> Result<(Params, Option<Memory>), CudaError> {
        let addresses: Vec<u64> = memory.iter().map(Memory::address).collect();
        let named = |e: CudaError| CudaError::new(e.kind, format!("kernel {}: {}", kernel.name, e.message));
        let mut params = Params::pack(&kernel.params, args, &addresses).map_err(named)?;
        if kernel.global_scratch_bytes == 0 {
            push_program_grid(kernel, grid, &mut params);
            params.encode_tensor_maps(&kernel.tensor_maps, args, &addresses).map_err(named)?;
            return Ok((params, None));
        }
        let bytes = (launched.programs() as usize).max(1) * kernel.global_scratch_bytes as usize;
        let scratch = Memory::alloc(&self.context, bytes).map_err(|error| {
            CudaError::new(
                ErrorKind::Driver,
                format!(
                    "cannot allocate {bytes} bytes of global scratch for kernel {}: {error}",
                    kernel.name
                ),
            )
        })?;
        params.push_address(scratch.address());
        push_program_grid(kernel, grid, &mut params);
        params.encode_tensor_maps(&kernel.tensor_maps, args, &addresses).map_err(named)?;
        Ok((params, Some(scratch)))
    }

    /// Allocates one device buffer per host buffer and copies the host bytes in.
    fn upload(&self, buffers: &[Buffer]) -> Result<Vec<Memory>, CudaError> {
        let mut memory = Vec::with_capacity(buffers.len());
        for buffer in buffers {
            let allocation = Memory::alloc(&self.context, buffer.bytes.len()).map_err(|error| {
                CudaError::new(
                    ErrorKind::Driver,
                    format!(
                        "cannot allocate {} bytes on the GPU for buffer {}: {error}",
                        buffer.bytes.len(),
                        buffer.name
                    ),
                )
            })?;
            allocation.copy_from_host(&buffer.bytes).map_err(CudaError::driver)?;
            memory.push(allocation);
        }
        Ok(memory)
    }

    /// Enqueues one launch (asynchronous).
    fn enqueue(&self, kernel: &LoadedKernel, grid: Grid, params: &mut Params) -> Result<(), CudaError> {
        self.context.make_current().map_err(CudaError::driver)?;
        let mut pointers = params.pointers();
        let block = [kernel.threads_per_block, 1, 1];
        // SAFETY: `pointers` point into `params`, which outlives the call and holds one 8-byte
        // slot per parameter of `kernel` (packed against its ABI); the device addresses among
        // them are live allocations of the caller; the module of the function is alive.
        let launched = unsafe { kernel.function.launch(grid.0, block, kernel.shared_bytes, &mut pointers) };
        launched.map_err(|error| launch_error(kernel, grid, error))
    }

    /// Waits for the work before `event` with the launch deadline, then synchronizes the context
    /// with its error checked: a fault is reported, never a hang.
    fn wait(&self, kernel: &LoadedKernel, event: &Event) -> Result<(), CudaError> {
        let timeout = launch_timeout();
        let started = Instant::now();
        let mut pause = Duration::from_micros(20);
        loop {
            match event.is_done() {
                Ok(true) => break,
                Ok(false) => {}
                Err(error) => return Err(fault(kernel, error)),
            }
            if started.elapsed() > timeout {
                // The kernel still runs: releasing anything would wait for it.
                driver::abandon_running_work();
                return Err(CudaError::new(
                    ErrorKind::Timeout,
                    format!(
                        "kernel {} did not finish within {:.0} s (an endless loop or a deadlock?); \
                         {TIMEOUT_ENV} sets the limit; --backend interp runs it on the CPU",
                        kernel.name,
                        timeout.as_secs_f64()
                    ),
                ));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(2));
        }
        event.synchronize().map_err(|e| fault(kernel, e))?;
        self.context.synchronize().map_err(|e| fault(kernel, e))
    }
}

/// Copies every device buffer back into its host buffer.
fn download(memory: &[Memory], buffers: &mut [Buffer]) -> Result<(), CudaError> {
    for (allocation, buffer) in memory.iter().zip(buffers.iter_mut()) {
        allocation.copy_to_host(&mut buffer.bytes).map_err(|error| {
            CudaError::new(
                ErrorKind::Driver,
                format!("cannot copy buffer {} back from the GPU: {error}", buffer.name),
            )
        })?;
    }
    Ok(())
}

/// The CTAs a launch of `kernel` over the program grid `grid` runs ([`ctas_for`]).
fn launched_grid(kernel: &LoadedKernel, grid: Grid) -> Result<Grid, CudaError> {
    ctas_for(kernel.resident_ctas, grid)
        .map_err(|message| CudaError::new(ErrorKind::Arguments, format!("kernel {}: {message}", kernel.name)))
}

/// The CTAs a launch over the program grid `grid` runs: the grid itself, or, for a persistent
/// kernel (`resident`: the CTAs the GPU holds at once), that many CTAs along x at most, one per
/// program at most (each walks the programs `cta, cta + ctas, ...` in the grid's linear order).
/// A persistent kernel numbers programs with 32-bit integers.
fn ctas_for(resident: Option<u32>, grid: Grid) -> Result<Grid, String> {
    let Some(resident) = resident else { return Ok(grid) };
    let programs = grid.programs();
    if programs > i32::MAX as u64 {
        return Err(format!(
            "a persistent kernel walks at most 2^31 - 1 programs; the grid {:?} has {programs}",
            grid.0
        ));
    }
    Ok(Grid([programs.min(u64::from(resident)).max(1) as u32, 1, 1]))
}

/// A persistent kernel's last parameters before its tensor maps: the program grid it walks.
fn push_program_grid(kernel: &LoadedKernel, grid: Grid, params: &mut Params) {
    if kernel.resident_ctas.is_some() {
        for programs in grid.0 {
            params.push_u32(programs);
        }
    }
}

/// Refuses grids CUDA cannot launch, with the limits in the message.
fn check_grid(kernel: &LoadedKernel, grid: Grid) -> Result<(), CudaError> {
    grid.within_limits()
        .map_err(|message| CudaError::new(ErrorKind::Arguments, format!("kernel {}: {message}", kernel.name)))
}

/// The error of a launch the driver refused (before the kernel ran).
fn launch_error(kernel: &LoadedKernel, grid: Grid, error: DriverError) -> CudaError {
    let name = &kernel.name;
    let [x, y, z] = grid.0;
    match error.code {
        CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES => CudaError::new(
            ErrorKind::Resources,
            format!(
                "kernel {name} needs more registers than a block of {} threads can have ({} registers per \
                 thread): try fewer --num-warps ({error})",
                kernel.threads_per_block, kernel.registers
            ),
        ),
        CUresult::CUDA_ERROR_INVALID_VALUE => CudaError::new(
            ErrorKind::Resources,
            format!(
                "the driver refused to launch {name} with grid ({x}, {y}, {z}), {} threads per block and {} \
                 bytes of shared memory ({error})",
                kernel.threads_per_block, kernel.shared_bytes
            ),
        ),
        _ => fault(kernel, error),
    }
}

/// The error of a kernel that failed while (or after) running.
fn fault(kernel: &LoadedKernel, error: DriverError) -> CudaError {
    let name = &kernel.name;
    let interp = "run the same command with --backend interp to get the failing Python line";
    let unusable = "the CUDA context is unusable after this error";
    let (kind, what) = match error.code {
        CUresult::CUDA_ERROR_ILLEGAL_ADDRESS => (
            ErrorKind::KernelFault,
            format!(
                "kernel {name} accessed an illegal address on the GPU: a load or store out of bounds \
                 (usually a missing or wrong mask); {interp}"
            ),
        ),
        CUresult::CUDA_ERROR_MISALIGNED_ADDRESS => (
            ErrorKind::KernelFault,
            format!("kernel {name} made a misaligned memory access on the GPU; {interp}"),
        ),
        CUresult::CUDA_ERROR_ASSERT => {
            (ErrorKind::KernelFault, format!("a device-side assert failed in kernel {name}; {interp}"))
        }
        CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION
        | CUresult::CUDA_ERROR_HARDWARE_STACK_ERROR
        | CUresult::CUDA_ERROR_INVALID_PC
        | CUresult::CUDA_ERROR_LAUNCH_FAILED => (
            ErrorKind::KernelFault,
            format!(
                "kernel {name} failed on the GPU; this is likely a trident code-generation bug when \
                 --backend interp runs it correctly"
            ),
        ),
        CUresult::CUDA_ERROR_LAUNCH_TIMEOUT => (
            ErrorKind::Timeout,
            format!("kernel {name} ran longer than the display watchdog allows; {interp}"),
        ),
        _ => (ErrorKind::Driver, format!("kernel {name} failed")),
    };
    let mut message = format!("{what} ({})", error.name());
    if kind == ErrorKind::KernelFault {
        message += &format!("; {unusable}");
    }
    message += &format!("\n  driver: {error}");
    CudaError::new(kind, message)
}

/// The median of sorted, non-empty samples.
fn median(sorted: &[f64]) -> f64 {
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A persistent kernel runs as many CTAs as the GPU holds, fewer for a small grid, and
    /// refuses a grid its 32-bit program numbers cannot walk; others run their grid.
    #[test]
    fn persistent_kernels_launch_the_resident_ctas() {
        assert_eq!(ctas_for(None, Grid([16, 64, 1])), Ok(Grid([16, 64, 1])));
        assert_eq!(ctas_for(Some(132), Grid([16, 64, 1])), Ok(Grid([132, 1, 1])));
        assert_eq!(ctas_for(Some(132), Grid([5, 2, 3])), Ok(Grid([30, 1, 1])));
        assert_eq!(ctas_for(Some(264), Grid([1, 1, 1])), Ok(Grid([1, 1, 1])));
        let error = ctas_for(Some(132), Grid([1 << 20, 1 << 12, 1])).unwrap_err();
        assert!(error.contains("2^31 - 1 programs"), "{error}");
    }

    /// Prints a `SKIP ...` line to the stderr handle, past the harness's capture of `println!`
    /// and `eprintln!`, so that a plain `cargo test` shows it.
    fn show_skip(line: &str) {
        use std::io::Write;
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }

    /// Whether the tests must find a CUDA GPU (`TRIDENT_REQUIRE_DEVICES` names nvptx or cuda).
    fn gpu_required() -> bool {
        std::env::var("TRIDENT_REQUIRE_DEVICES")
            .unwrap_or_default()
            .split(',')
            .any(|device| matches!(device.trim(), "nvptx" | "cuda"))
    }

    #[test]
    fn open_without_a_gpu_is_none_not_a_panic() {
        let probe = probe();
        let opened = CudaDevice::open(0);
        match probe {
            Probe::Absent(reason) => {
                assert!(!reason.is_empty());
                assert!(matches!(opened, Ok(None)), "{opened:?}");
                assert!(!gpu_required(), "TRIDENT_REQUIRE_DEVICES asks for a CUDA GPU, but: {reason}");
                show_skip(&format!(
                    "SKIP open_without_a_gpu_is_none_not_a_panic (GPU part): no CUDA GPU ({reason})"
                ));
            }
            Probe::Present { devices, .. } => {
                let device = opened.expect("GPU 0 opens").expect("GPU 0 is present");
                assert_eq!(device.info(), &devices[0]);
                assert!(device.sm_count() > 0);
            }
        }
    }

    #[test]
    fn cuda_runs_handwritten_ptx() {
        match selftest::run(selftest::Fault::Skip) {
            Ok(selftest::Outcome::Passed(lines)) => {
                for line in lines {
                    println!("{line}");
                }
            }
            Ok(selftest::Outcome::NoGpu(reason)) => {
                assert!(!gpu_required(), "TRIDENT_REQUIRE_DEVICES asks for a CUDA GPU, but: {reason}");
                show_skip(&format!("SKIP cuda_runs_handwritten_ptx: no CUDA GPU ({reason})"));
            }
            Err(failure) => panic!("the CUDA self-test failed:\n{failure}"),
        }
    }

    #[test]
    fn median_of_samples() {
        assert_eq!(median(&[1.0, 2.0, 4.0]), 2.0);
        assert_eq!(median(&[1.0, 3.0]), 2.0);
    }
}
