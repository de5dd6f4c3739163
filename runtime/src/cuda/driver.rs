//! The CUDA driver API, wrapped: every `unsafe` driver call of the CUDA device lives here.
//!
//! cudarc's `sys` bindings load `libcuda` lazily and panic when the library or one of its
//! symbols is missing. So the rules of this file are: [`library_present`] is asked before any
//! other call (and [`init`] asks it itself); only driver entry points that every CUDA 12 and 13
//! driver exports are used (cuEventElapsedTime is resolved by name, see [`Event::elapsed_ms`]);
//! and every result code is checked and turned into a [`DriverError`] that names the call.
//!
//! Handles are RAII types: [`Context`] (a retained primary context), [`Memory`] (a `cuMemAlloc`
//! allocation; never managed memory), [`Module`], [`KernelGraph`] (a launch as an instantiated
//! one-node graph) and [`Event`]. Each holds an `Rc<Context>`, so
//! the context outlives everything created in it; each makes the context current before it
//! touches the driver, so the types work whatever thread last used the driver.
//!
//! A kernel left running past its deadline (an endless loop, a deadlock) keeps the GPU busy, and
//! freeing memory, unloading a module or releasing the context waits for the GPU: once
//! [`abandon_running_work`] has been called, the handles' drops leave their resources to the
//! process's exit instead, so that the timeout reaches the user rather than a hang.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};

use cudarc::driver::sys;

use super::DeviceInfo;

pub use sys::CUresult;

/// Set once a launch ran past its deadline: see the module docs.
static ABANDONED: AtomicBool = AtomicBool::new(false);

/// Leaves every handle dropped from now on to the process's exit (a kernel still runs that
/// their release would wait for).
pub fn abandon_running_work() {
    ABANDONED.store(true, Ordering::Relaxed);
}

/// Whether a drop may release its handle (no kernel was abandoned).
fn may_release() -> bool {
    !ABANDONED.load(Ordering::Relaxed)
}

/// A failed driver call: which call, and the driver's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DriverError {
    pub call: &'static str,
    pub code: CUresult,
}

impl DriverError {
    /// The driver's name for the code (`CUDA_ERROR_ILLEGAL_ADDRESS`).
    pub fn name(&self) -> String {
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: cuGetErrorName writes a pointer to a static string or fails.
        let ok = unsafe { sys::cuGetErrorName(self.code, &mut text) } == CUresult::CUDA_SUCCESS;
        if ok && !text.is_null() {
            // SAFETY: the driver returned a NUL-terminated static string.
            unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
        } else {
            format!("{:?}", self.code)
        }
    }

    /// The driver's one-line description of the code.
    pub fn description(&self) -> String {
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: as in `name`.
        let ok = unsafe { sys::cuGetErrorString(self.code, &mut text) } == CUresult::CUDA_SUCCESS;
        if ok && !text.is_null() {
            // SAFETY: as in `name`.
            unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
        } else {
            "unknown error".to_string()
        }
    }
}

impl std::fmt::Display for DriverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} failed: {} ({})", self.call, self.name(), self.description())
    }
}

/// Turns a result code into `Ok` or an error naming `call`.
fn check(call: &'static str, code: CUresult) -> Result<(), DriverError> {
    if code == CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(DriverError { call, code })
    }
}

/// Whether `libcuda` can be loaded. Nothing else in this file may be called when it cannot.
pub fn library_present() -> bool {
    // SAFETY: only tries to open the shared library; no driver call.
    unsafe { sys::is_culib_present() }
}

/// Whether the loaded driver exports `symbol` (so that calling it cannot panic).
fn has_symbol(symbol: &str) -> bool {
    // SAFETY: only looks the symbol up; `library_present` was checked by the caller.
    unsafe { sys::culib().get::<*const c_void>(symbol.as_bytes()).is_ok() }
}

/// `cuInit`, after checking that the library is there. `Err(None)` means no library.
pub fn init() -> Result<(), Option<DriverError>> {
    if !library_present() {
        return Err(None);
    }
    // SAFETY: the library is present; cuInit may be called any number of times.
    check("cuInit", unsafe { sys::cuInit(0) }).map_err(Some)
}

/// The driver's CUDA version as (major, minor), e.g. (12, 8).
pub fn driver_version() -> Result<(u32, u32), DriverError> {
    let mut version: c_int = 0;
    // SAFETY: writes one int.
    check("cuDriverGetVersion", unsafe { sys::cuDriverGetVersion(&mut version) })?;
    Ok(((version / 1000) as u32, ((version % 1000) / 10) as u32))
}

/// How many CUDA devices the driver sees.
pub fn device_count() -> Result<u32, DriverError> {
    let mut count: c_int = 0;
    // SAFETY: writes one int; cuInit succeeded.
    check("cuDeviceGetCount", unsafe { sys::cuDeviceGetCount(&mut count) })?;
    Ok(count.max(0) as u32)
}

/// Reads the facts of device `ordinal` (cuInit must have succeeded).
pub fn device_info(ordinal: u32) -> Result<DeviceInfo, DriverError> {
    let device = device_handle(ordinal)?;
    let mut name = [0 as c_char; 256];
    // SAFETY: the buffer is 256 bytes and the length says so.
    check("cuDeviceGetName", unsafe {
        sys::cuDeviceGetName(name.as_mut_ptr(), name.len() as c_int, device)
    })?;
    // SAFETY: the driver NUL-terminates the name within the buffer.
    let name = unsafe { CStr::from_ptr(name.as_ptr()) }.to_string_lossy().trim().to_string();
    let attribute = |attribute: sys::CUdevice_attribute| -> Result<u32, DriverError> {
        let mut value: c_int = 0;
        // SAFETY: writes one int.
        check("cuDeviceGetAttribute", unsafe { sys::cuDeviceGetAttribute(&mut value, attribute, device) })?;
        Ok(value.max(0) as u32)
    };
    use sys::CUdevice_attribute as A;
    let major = attribute(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
    let minor = attribute(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
    let sm_count = attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    let max_shared_bytes_optin = attribute(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?;
    let mut total: usize = 0;
    // SAFETY: writes one size_t.
    check("cuDeviceTotalMem", unsafe { sys::cuDeviceTotalMem_v2(&mut total, device) })?;
    Ok(DeviceInfo {
        ordinal,
        name,
        compute_capability: (major, minor),
        sm_count,
        total_memory_bytes: total as u64,
        max_shared_bytes_optin,
        max_registers_per_block: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)?,
        warp_size: attribute(A::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
        clock_rate_khz: attribute(A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?,
        memory_clock_rate_khz: attribute(A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)?,
        memory_bus_width: attribute(A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)?,
    })
}

fn device_handle(ordinal: u32) -> Result<sys::CUdevice, DriverError> {
    let mut device: sys::CUdevice = 0;
    // SAFETY: writes one device handle.
    check("cuDeviceGet", unsafe { sys::cuDeviceGet(&mut device, ordinal as c_int) })?;
    Ok(device)
}

/// The retained primary context of one device, released on drop.
#[derive(Debug)]
pub struct Context {
    device: sys::CUdevice,
    context: sys::CUcontext,
}

impl Context {
    /// Retains the primary context of device `ordinal` and makes it current.
    pub fn retain(ordinal: u32) -> Result<Rc<Context>, DriverError> {
        let device = device_handle(ordinal)?;
        let mut context: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: writes one context handle.
        check("cuDevicePrimaryCtxRetain", unsafe { sys::cuDevicePrimaryCtxRetain(&mut context, device) })?;
        let context = Rc::new(Context { device, context });
        context.make_current()?;
        Ok(context)
    }

    /// Makes this context the calling thread's current one. Asks first: every launch calls this,
    /// and reading the thread's current context is cheaper than setting it (which also takes
    /// the driver's locks), and it is nearly always current already.
    pub fn make_current(&self) -> Result<(), DriverError> {
        let mut current: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: writes one context handle.
        check("cuCtxGetCurrent", unsafe { sys::cuCtxGetCurrent(&mut current) })?;
        if current == self.context {
            return Ok(());
        }
        // SAFETY: the context is retained for as long as `self` lives.
        check("cuCtxSetCurrent", unsafe { sys::cuCtxSetCurrent(self.context) })
    }

    /// Waits for all work in the context; the error of a failed kernel surfaces here.
    pub fn synchronize(&self) -> Result<(), DriverError> {
        self.make_current()?;
        // SAFETY: no arguments; the context is current.
        check("cuCtxSynchronize", unsafe { sys::cuCtxSynchronize() })
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        if may_release() {
            // SAFETY: balances the retain in `Context::retain`. Errors cannot be reported from drop.
            let _ = unsafe { sys::cuDevicePrimaryCtxRelease_v2(self.device) };
        }
    }
}

/// One device allocation made with plain `cuMemAlloc` (never managed memory), freed on drop.
#[derive(Debug)]
pub struct Memory {
    context: Rc<Context>,
    pointer: sys::CUdeviceptr,
    bytes: usize,
}

impl Memory {
    /// Allocates `bytes` (at least one byte, since the driver refuses zero).
    pub fn alloc(context: &Rc<Context>, bytes: usize) -> Result<Memory, DriverError> {
        context.make_current()?;
        let mut pointer: sys::CUdeviceptr = 0;
        // SAFETY: writes one device pointer.
        check("cuMemAlloc", unsafe { sys::cuMemAlloc_v2(&mut pointer, bytes.max(1)) })?;
        Ok(Memory { context: context.clone(), pointer, bytes })
    }

    /// The device address kernels receive.
    pub fn address(&self) -> u64 {
        self.pointer
    }

    /// The size of the allocation in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Copies `data` (exactly `bytes` long) to the device.
    pub fn copy_from_host(&self, data: &[u8]) -> Result<(), DriverError> {
        debug_assert_eq!(data.len(), self.bytes);
        if data.is_empty() {
            return Ok(());
        }
        self.context.make_current()?;
        let length = data.len().min(self.bytes);
        // SAFETY: the allocation and the slice both hold `length` bytes.
        check("cuMemcpyHtoD", unsafe {
            sys::cuMemcpyHtoD_v2(self.pointer, data.as_ptr() as *const c_void, length)
        })
    }

    /// Enqueues, on the null stream, a write of zeros over the whole allocation (whole 32-bit
    /// words).
    pub fn zero_async(&self) -> Result<(), DriverError> {
        self.context.make_current()?;
        // SAFETY: the allocation holds `bytes` bytes, at least `bytes / 4` words; the null stream.
        check("cuMemsetD32Async", unsafe {
            sys::cuMemsetD32Async(self.pointer, 0, self.bytes / 4, std::ptr::null_mut())
        })
    }

    /// Copies the allocation back into `data` (exactly `bytes` long); synchronous.
    pub fn copy_to_host(&self, data: &mut [u8]) -> Result<(), DriverError> {
        if data.is_empty() {
            return Ok(());
        }
        self.context.make_current()?;
        let length = data.len().min(self.bytes);
        // SAFETY: the allocation and the slice both hold `length` bytes.
        check("cuMemcpyDtoH", unsafe {
            sys::cuMemcpyDtoH_v2(data.as_mut_ptr() as *mut c_void, self.pointer, length)
        })
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        if may_release() && self.context.make_current().is_ok() {
            // SAFETY: the pointer came from cuMemAlloc in this context and is freed once.
            let _ = unsafe { sys::cuMemFree_v2(self.pointer) };
        }
    }
}

/// A loaded module (JIT-compiled from PTX), unloaded on drop.
#[derive(Debug)]
pub struct Module {
    context: Rc<Context>,
    module: sys::CUmodule,
}

/// Why a module did not load: the driver error and the JIT's error log.
#[derive(Clone, Debug)]
pub struct LoadError {
    pub error: DriverError,
    pub log: String,
}

/// Bytes of each JIT log buffer.
const JIT_LOG_BYTES: usize = 16 * 1024;

impl Module {
    /// JIT-compiles PTX text with `cuModuleLoadDataEx`, capturing the JIT's error log.
    pub fn load_ptx(context: &Rc<Context>, ptx: &str) -> Result<Module, LoadError> {
        let fail = |error: DriverError| LoadError { error, log: String::new() };
        context.make_current().map_err(fail)?;
        let image = CString::new(ptx).map_err(|_| {
            let error = DriverError { call: "cuModuleLoadDataEx", code: CUresult::CUDA_ERROR_INVALID_IMAGE };
            LoadError { error, log: "the PTX text contains a NUL byte".to_string() }
        })?;
        let mut error_log = vec![0u8; JIT_LOG_BYTES];
        let mut options = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        // Option values are pointer-sized: a buffer, then its size passed as the pointer's value.
        let mut values = [error_log.as_mut_ptr() as *mut c_void, JIT_LOG_BYTES as *mut c_void];
        let mut module: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: the image is NUL-terminated; options and values have the same length; the
        // log buffer outlives the call and its size is given.
        let code = unsafe {
            sys::cuModuleLoadDataEx(
                &mut module,
                image.as_ptr() as *const c_void,
                options.len() as c_uint,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        };
        if let Err(error) = check("cuModuleLoadDataEx", code) {
            let end = error_log.iter().position(|&b| b == 0).unwrap_or(error_log.len());
            let log = String::from_utf8_lossy(&error_log[..end]).trim().to_string();
            return Err(LoadError { error, log });
        }
        Ok(Module { context: context.clone(), module })
    }

    /// The kernel named `name` (the PTX `.entry`).
    pub fn function(&self, name: &str) -> Result<Function, DriverError> {
        let c_name = CString::new(name)
            .map_err(|_| DriverError { call: "cuModuleGetFunction", code: CUresult::CUDA_ERROR_NOT_FOUND })?;
        self.context.make_current()?;
        let mut function: sys::CUfunction = std::ptr::null_mut();
        // SAFETY: the module is loaded; the name is NUL-terminated.
        check("cuModuleGetFunction", unsafe {
            sys::cuModuleGetFunction(&mut function, self.module, c_name.as_ptr())
        })?;
        Ok(Function { function })
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        if may_release() && self.context.make_current().is_ok() {
            // SAFETY: the module was loaded in this context and is unloaded once.
            let _ = unsafe { sys::cuModuleUnload(self.module) };
        }
    }
}

/// A kernel of a loaded module. Valid while its [`Module`] lives (the caller keeps both).
#[derive(Clone, Copy, Debug)]
pub struct Function {
    function: sys::CUfunction,
}

impl Function {
    /// Allows up to `bytes` of dynamic shared memory (needed above 48 KiB).
    pub fn set_max_dynamic_shared_bytes(&self, bytes: u32) -> Result<(), DriverError> {
        let attribute = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
        // SAFETY: a valid function handle and a plain int attribute.
        check("cuFuncSetAttribute", unsafe {
            sys::cuFuncSetAttribute(self.function, attribute, bytes as c_int)
        })
    }

    /// How many blocks of `threads` threads with `shared_bytes` of dynamic shared memory one SM
    /// holds at once.
    pub fn resident_blocks_per_sm(&self, threads: u32, shared_bytes: u32) -> Result<u32, DriverError> {
        let mut blocks: c_int = 0;
        // SAFETY: a valid function handle; writes one int.
        check("cuOccupancyMaxActiveBlocksPerMultiprocessor", unsafe {
            sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut blocks,
                self.function,
                threads as c_int,
                shared_bytes as usize,
            )
        })?;
        Ok(blocks.max(0) as u32)
    }

    /// Registers per thread, as the JIT allocated them.
    pub fn registers(&self) -> Result<u32, DriverError> {
        self.attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)
    }

    /// Local memory per thread (bytes): where the JIT spilled registers (and local arrays).
    pub fn local_bytes(&self) -> Result<u32, DriverError> {
        self.attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
    }

    /// The most threads a block of this function may have (its registers allowing).
    pub fn max_threads(&self) -> Result<u32, DriverError> {
        self.attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
    }

    fn attribute(&self, attribute: sys::CUfunction_attribute) -> Result<u32, DriverError> {
        let mut value: c_int = 0;
        // SAFETY: writes one int.
        check("cuFuncGetAttribute", unsafe {
            sys::cuFuncGetAttribute(&mut value, attribute, self.function)
        })?;
        Ok(value.max(0) as u32)
    }

    /// Enqueues one launch on the null stream. `params` holds one pointer per kernel
    /// parameter, each to a value of the parameter's size.
    ///
    /// # Safety
    /// Every pointer in `params` must point to a live value of the size the kernel's
    /// parameter has, and every device address among them must be a live allocation.
    pub unsafe fn launch(
        &self,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        params: &mut [*mut c_void],
    ) -> Result<(), DriverError> {
        // SAFETY: the caller's promises; the null stream always exists.
        unsafe { self.launch_on(0, grid, block, shared_bytes, params) }
    }

    /// Enqueues one launch on `stream` (a `CUstream` handle as an integer; 0 is the null
    /// stream).
    ///
    /// # Safety
    /// As [`Function::launch`], and `stream` must be 0 or a live stream of the current context.
    pub unsafe fn launch_on(
        &self,
        stream: u64,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        params: &mut [*mut c_void],
    ) -> Result<(), DriverError> {
        check("cuLaunchKernel", unsafe {
            sys::cuLaunchKernel(
                self.function,
                grid[0],
                grid[1],
                grid[2],
                block[0],
                block[1],
                block[2],
                shared_bytes,
                stream as sys::CUstream,
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        })
    }
}

/// One kernel launch as an instantiated one-node graph: replayed by [`KernelGraph::launch`],
/// its parameters replaced by [`KernelGraph::set_params`]. Destroyed on drop (a replay still in
/// flight is freed by the driver once it completes).
#[derive(Debug)]
pub struct KernelGraph {
    context: Rc<Context>,
    graph: sys::CUgraph,
    /// The kernel node, as `cuGraphExecKernelNodeSetParams_v2` names it (a node of `graph`).
    node: sys::CUgraphNode,
    exec: sys::CUgraphExec,
}

impl KernelGraph {
    /// Instantiates a graph of one launch of `function` (the arguments as
    /// [`Function::launch_on`]'s; the driver copies the parameter values).
    ///
    /// # Safety
    /// As [`Function::launch`]: every pointer in `params` points to a live value of its
    /// parameter's size; `function`'s module outlives the graph.
    pub unsafe fn new(
        context: &Rc<Context>,
        function: Function,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        params: &mut [*mut c_void],
    ) -> Result<KernelGraph, DriverError> {
        context.make_current()?;
        let mut graph: sys::CUgraph = std::ptr::null_mut();
        // SAFETY: writes one graph handle.
        check("cuGraphCreate", unsafe { sys::cuGraphCreate(&mut graph, 0) })?;
        let mut made = KernelGraph {
            context: context.clone(),
            graph,
            node: std::ptr::null_mut(),
            exec: std::ptr::null_mut(),
        };
        let node_params = kernel_node(function, grid, block, shared_bytes, params);
        // SAFETY: a live graph, no dependencies; the parameters as the caller promised.
        check("cuGraphAddKernelNode_v2", unsafe {
            sys::cuGraphAddKernelNode_v2(&mut made.node, graph, std::ptr::null(), 0, &node_params)
        })?;
        // SAFETY: writes one executable graph handle of a live graph.
        check("cuGraphInstantiateWithFlags", unsafe {
            sys::cuGraphInstantiateWithFlags(&mut made.exec, graph, 0)
        })?;
        Ok(made)
    }

    /// Replaces the parameters of the next replays (replays already enqueued keep theirs).
    ///
    /// # Safety
    /// As [`KernelGraph::new`], with the function, grid, block and shared memory it was made with.
    pub unsafe fn set_params(
        &self,
        function: Function,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        params: &mut [*mut c_void],
    ) -> Result<(), DriverError> {
        let node_params = kernel_node(function, grid, block, shared_bytes, params);
        // SAFETY: the node belongs to the graph `exec` was instantiated from.
        check("cuGraphExecKernelNodeSetParams_v2", unsafe {
            sys::cuGraphExecKernelNodeSetParams_v2(self.exec, self.node, &node_params)
        })
    }

    /// Enqueues one replay on `stream`.
    ///
    /// # Safety
    /// `stream` must be 0 or a live stream of the graph's context, and the device addresses among
    /// the parameters last set must be live allocations.
    pub unsafe fn launch(&self, stream: u64) -> Result<(), DriverError> {
        // SAFETY: the caller's promises; the executable graph lives as long as `self`.
        check("cuGraphLaunch", unsafe { sys::cuGraphLaunch(self.exec, stream as sys::CUstream) })
    }
}

impl Drop for KernelGraph {
    fn drop(&mut self) {
        if may_release() && self.context.make_current().is_ok() {
            // SAFETY: each handle was made here and is destroyed once (null ones were never made).
            unsafe {
                if !self.exec.is_null() {
                    let _ = sys::cuGraphExecDestroy(self.exec);
                }
                let _ = sys::cuGraphDestroy(self.graph);
            }
        }
    }
}

/// The node parameters of one launch (the driver reads `function`, not a library kernel).
fn kernel_node(
    function: Function,
    grid: [u32; 3],
    block: [u32; 3],
    shared_bytes: u32,
    params: &mut [*mut c_void],
) -> sys::CUDA_KERNEL_NODE_PARAMS {
    sys::CUDA_KERNEL_NODE_PARAMS {
        func: function.function,
        gridDimX: grid[0],
        gridDimY: grid[1],
        gridDimZ: grid[2],
        blockDimX: block[0],
        blockDimY: block[1],
        blockDimZ: block[2],
        sharedMemBytes: shared_bytes,
        kernelParams: params.as_mut_ptr(),
        extra: std::ptr::null_mut(),
        kern: std::ptr::null_mut(),
        ctx: std::ptr::null_mut(),
    }
}

/// Whether `stream` is being captured into a graph (a capture takes launches, not graphs); an
/// error (the legacy stream while another thread captures globally) counts as capturing.
pub fn stream_is_capturing(stream: u64) -> bool {
    let mut status = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    // SAFETY: writes one status; an invalid stream is an error code, not undefined behaviour.
    let code = unsafe { sys::cuStreamIsCapturing(stream as sys::CUstream, &mut status) };
    code != CUresult::CUDA_SUCCESS || status != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE
}

/// A tensor map (`CUtensorMap`, 128 bytes), encoded on the host for a kernel parameter.
pub type TensorMap = sys::CUtensorMap;

/// The shape of a tiled tensor map, innermost dimension first (the driver's order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledMap {
    /// The global address of the first element (16-byte aligned).
    pub base: u64,
    /// Bytes per element: 1, 2 or 4 (read as unsigned integers of that size).
    pub elem_bytes: u32,
    pub dims: Vec<u64>,
    /// Byte strides of every dimension but the innermost (multiples of 16).
    pub byte_strides: Vec<u64>,
    pub box_dims: Vec<u32>,
    /// 0, 32, 64 or 128.
    pub swizzle_bytes: u32,
}

/// Encodes `map` with `cuTensorMapEncodeTiled`: out-of-bounds elements read as zero, no
/// interleave, no L2 promotion (the fields the kernels' own `tensormap.replace` writes).
pub fn encode_tiled(map: &TiledMap) -> Result<TensorMap, DriverError> {
    use sys::{
        CUtensorMapDataType_enum as Type, CUtensorMapFloatOOBfill_enum as Fill,
        CUtensorMapInterleave_enum as Interleave, CUtensorMapL2promotion_enum as L2,
        CUtensorMapSwizzle_enum as Swizzle,
    };
    let invalid = DriverError { call: "cuTensorMapEncodeTiled", code: CUresult::CUDA_ERROR_INVALID_VALUE };
    let data_type = match map.elem_bytes {
        1 => Type::CU_TENSOR_MAP_DATA_TYPE_UINT8,
        2 => Type::CU_TENSOR_MAP_DATA_TYPE_UINT16,
        4 => Type::CU_TENSOR_MAP_DATA_TYPE_UINT32,
        _ => return Err(invalid),
    };
    let swizzle = match map.swizzle_bytes {
        0 => Swizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
        32 => Swizzle::CU_TENSOR_MAP_SWIZZLE_32B,
        64 => Swizzle::CU_TENSOR_MAP_SWIZZLE_64B,
        128 => Swizzle::CU_TENSOR_MAP_SWIZZLE_128B,
        _ => return Err(invalid),
    };
    let rank = map.dims.len();
    if rank == 0 || rank > 5 || map.byte_strides.len() + 1 != rank || map.box_dims.len() != rank {
        return Err(invalid);
    }
    let element_strides = vec![1u32; rank];
    let mut encoded = TensorMap { opaque: [0; 16] };
    // SAFETY: every array holds `rank` entries (`rank - 1` strides), as the call reads them;
    // the base is only recorded in the map, not dereferenced.
    check("cuTensorMapEncodeTiled", unsafe {
        sys::cuTensorMapEncodeTiled(
            &mut encoded,
            data_type,
            rank as u32,
            map.base as *mut c_void,
            map.dims.as_ptr(),
            map.byte_strides.as_ptr(),
            map.box_dims.as_ptr(),
            element_strides.as_ptr(),
            Interleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzle,
            L2::CU_TENSOR_MAP_L2_PROMOTION_NONE,
            Fill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    })?;
    Ok(encoded)
}

/// A CUDA event for timing and for waiting with a deadline, destroyed on drop.
#[derive(Debug)]
pub struct Event {
    context: Rc<Context>,
    event: sys::CUevent,
}

impl Event {
    pub fn new(context: &Rc<Context>) -> Result<Event, DriverError> {
        context.make_current()?;
        let mut event: sys::CUevent = std::ptr::null_mut();
        // SAFETY: writes one event handle; flags 0 = CU_EVENT_DEFAULT (timing enabled).
        check("cuEventCreate", unsafe { sys::cuEventCreate(&mut event, 0) })?;
        Ok(Event { context: context.clone(), event })
    }

    /// Records the event on the null stream.
    pub fn record(&self) -> Result<(), DriverError> {
        // SAFETY: a live event; the null stream.
        check("cuEventRecord", unsafe { sys::cuEventRecord(self.event, std::ptr::null_mut()) })
    }

    /// `Ok(true)` when the work before the event is done, `Ok(false)` while it runs.
    pub fn is_done(&self) -> Result<bool, DriverError> {
        // SAFETY: a live event.
        match unsafe { sys::cuEventQuery(self.event) } {
            CUresult::CUDA_SUCCESS => Ok(true),
            CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            code => Err(DriverError { call: "cuEventQuery", code }),
        }
    }

    /// Blocks until the work before the event is done.
    pub fn synchronize(&self) -> Result<(), DriverError> {
        // SAFETY: a live event.
        check("cuEventSynchronize", unsafe { sys::cuEventSynchronize(self.event) })
    }

    /// Milliseconds between `start` and this event (both recorded and complete).
    pub fn elapsed_ms(&self, start: &Event) -> Result<f32, DriverError> {
        let mut ms: f32 = 0.0;
        // CUDA 13 drivers renamed the call (cuEventElapsedTime_v2); CUDA 12 drivers have only the
        // old name. Ask which one the driver exports, so that cudarc never panics on a missing
        // symbol.
        let code = if has_symbol("cuEventElapsedTime_v2") {
            // SAFETY: writes one float; both events are live.
            unsafe { sys::cuEventElapsedTime_v2(&mut ms, start.event, self.event) }
        } else {
            // SAFETY: as above.
            unsafe { sys::cuEventElapsedTime(&mut ms, start.event, self.event) }
        };
        check("cuEventElapsedTime", code)?;
        Ok(ms)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        if may_release() && self.context.make_current().is_ok() {
            // SAFETY: the event was created in this context and is destroyed once.
            let _ = unsafe { sys::cuEventDestroy_v2(self.event) };
        }
    }
}
