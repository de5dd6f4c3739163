//! The wgpu device: SPIR-V kernels on Vulkan adapters (Mesa's lavapipe on CPUs, desktop GPUs).
//!
//! [`WgpuDevice::open`] picks a Vulkan adapter (the first, or the one `--adapter` names by index
//! or by a part of its name) and creates a device with the adapter's own limits, plus
//! `PASSTHROUGH_SHADERS` where the adapter has it: then the backend's SPIR-V goes to the driver
//! as it is; elsewhere wgpu translates it through naga. `SHADER_FLOAT32_ATOMIC` is enabled where
//! the adapter has it too, so passed-through modules may add f32 atomically
//! ([`WgpuDevice::float32_atomic_add`]). Pipelines are cached in memory by their
//! SPIR-V words. A launch uploads every buffer (rounded up to whole 32-bit words), writes the
//! uniform block (grid, folded dispatch, scalar arguments; see `trident_backend_spirv`),
//! dispatches, and reads every buffer back. Device limits (binding size, workgroup memory,
//! invocations per workgroup, workgroups per dimension) are checked before any work and
//! reported in plain words.
//!
//! A buffer larger than one storage binding may be (but within the device's buffer size) is
//! bound as two windows when the kernel was compiled for it
//! (`trident_backend_spirv::Options::windowed_buffers`, which [`WgpuDevice::needs_windows`]
//! decides): the low window from byte 0, the high one from the split, the smallest offset at
//! the device's alignment that lets the high window reach the end. The environment variable
//! `TRIDENT_VULKAN_MAX_BINDING_BYTES` lowers the per-binding limit the device is opened with, so
//! tests exercise windows with small buffers (it never raises the adapter's limit).
//!
//! What a SPIR-V compilation for an adapter is built for (dialect, warp width, workgroup limits,
//! atomics, windowed buffers) is one value, [`SpirvTarget`] (`target.rs`), which the on-disk cache
//! keys artifacts by.
//!
//! A kernel that asserts or prints gets one more buffer each: the assertion report, read back
//! after the launch to fail it with the interpreter's message, and the print buffer
//! (`print.rs`), read back to print the interpreter's lines on stdout (in the interpreter's
//! order, before any failed assertion is reported).

mod naga_tools;
mod print;
mod target;
mod vulkan_extensions;

use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::rc::Rc;
use std::time::{Duration, Instant};

use trident_backend_spirv::{fold_grid, Artifact, HighWindow, Mode, ParamAbi, Storage16Bit};
use trident_midend::ir::Span;

use crate::{ArgValue, Buffer, Grid};

pub use naga_tools::{to_wgsl, validate_portable};
pub use print::PRINT_RECORDS_ENV;
pub use target::{layout_warp_width, SpirvTarget, SPIRV_THREADS_PER_WARP};

/// Why a wgpu operation failed.
#[derive(Clone, Debug, PartialEq)]
pub struct WgpuError {
    pub message: String,
    /// The Python source of the failure, for errors the kernel itself reports (a failed
    /// `tl.device_assert`).
    pub span: Option<Span>,
}

impl WgpuError {
    fn new(message: impl Into<String>) -> WgpuError {
        WgpuError { message: message.into(), span: None }
    }
}

impl fmt::Display for WgpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for WgpuError {}

/// What `trident devices` shows about one adapter.
#[derive(Clone, Debug, PartialEq)]
pub struct AdapterSummary {
    pub index: usize,
    pub name: String,
    pub driver: String,
    pub device_type: String,
    pub subgroup_size: u32,
    pub workgroup_memory_bytes: u32,
    pub max_binding_bytes: u64,
    pub passthrough: bool,
    /// f32 atomic add in storage buffers (`SHADER_FLOAT32_ATOMIC`, `VK_EXT_shader_atomic_float`).
    pub float32_atomic_add: bool,
    /// The largest subgroup the adapter may run (`subgroup_size` is the smallest).
    pub subgroup_max_size: u32,
    /// Subgroup operations in compute shaders (`SUBGROUP`: ballot, shuffles, arithmetic).
    pub subgroups: bool,
    /// f16 arithmetic and 16-bit storage buffer access (`SHADER_F16`).
    pub float16: bool,
    /// The subgroup-scope matrix shapes of `VK_KHR_cooperative_matrix` the adapter lists, every
    /// component type included (read from Vulkan, `vulkan_extensions.rs`); empty without it.
    pub cooperative_matrices: Vec<CooperativeMatrixShape>,
    /// bf16 cooperative matrices can be enabled (`VK_KHR_shader_bfloat16` with its type and
    /// cooperative-matrix features), which wgpu does not do itself (`vulkan_extensions.rs`).
    pub bfloat16_cooperative_matrices: bool,
    /// The workgroup-scope matrices of `VK_NV_cooperative_matrix2`, where the device has the
    /// extension with its workgroup-scope and flexible-dimension features (`vulkan_extensions.rs`).
    pub workgroup_matrices: Option<WorkgroupMatrices>,
    /// Per-element operations on cooperative matrices (`VK_NV_cooperative_matrix2`).
    pub per_element_matrix_operations: bool,
}

/// The workgroup-scope cooperative matrices of flexible dimensions (`VK_NV_cooperative_matrix2`)
/// an adapter offers: the shapes, and the limits on every one of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkgroupMatrices {
    pub shapes: Vec<WorkgroupMatrixShape>,
    /// The largest M, N or K of a matrix.
    pub max_dimension: u32,
    /// The largest workgroup that uses them.
    pub max_workgroup_size: u32,
    /// Workgroup memory the driver keeps for itself in a shader that uses them.
    pub reserved_shared_bytes: u32,
    /// They load and store slices of tensors (`cooperativeMatrixTensorAddressing`).
    pub tensor_addressing: bool,
    /// Their rows reduce and an accumulator converts into an operand
    /// (`cooperativeMatrixReductions` and `cooperativeMatrixConversions`).
    pub reductions_and_conversions: bool,
}

impl WorkgroupMatrices {
    /// The shapes whose types the spirv backend names (f16, bf16, f32), as it takes them.
    /// `per_element` says whether the device was opened with per-element operations.
    fn for_backend(&self, per_element: bool) -> trident_backend_spirv::WorkgroupMatrices {
        let granules = self
            .shapes
            .iter()
            .filter_map(|shape| {
                Some(trident_backend_spirv::MatrixGranule {
                    m: shape.m_granularity,
                    n: shape.n_granularity,
                    k: shape.k_granularity,
                    invocations: shape.invocations,
                    operand: trident_midend::ir::DType::from_ir_name(&shape.ab)?,
                    accumulator: trident_midend::ir::DType::from_ir_name(&shape.cr)?,
                })
            })
            .collect();
        trident_backend_spirv::WorkgroupMatrices {
            granules,
            max_dimension: self.max_dimension,
            element_operations: self.reductions_and_conversions && per_element,
        }
    }
}

/// One workgroup-scope shape: matrices whose M, N and K are multiples of the granularities, A
/// and B of `ab`, C and D of `cr`, in workgroups of exactly `invocations`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkgroupMatrixShape {
    pub m_granularity: u32,
    pub n_granularity: u32,
    pub k_granularity: u32,
    pub ab: String,
    pub cr: String,
    pub invocations: u32,
}

impl std::fmt::Display for WorkgroupMatrixShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}x{}x{} granules {}->{} at {} invocations",
            self.m_granularity, self.n_granularity, self.k_granularity, self.ab, self.cr, self.invocations
        )
    }
}

/// One shape of `VK_KHR_cooperative_matrix`: `D (m x n) = A (m x k) * B (k x n) + C (m x n)`, A
/// and B of `ab`, C and D of `cr` (names as Triton spells dtypes: `f16`, `bf16`, `i8`, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CooperativeMatrixShape {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub ab: String,
    pub cr: String,
}

impl std::fmt::Display for CooperativeMatrixShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}x{} {}->{}", self.m, self.n, self.k, self.ab, self.cr)
    }
}

impl CooperativeMatrixShape {
    /// Whether this is the 16 x 16 x 16 shape of `ab` x `ab` -> `cr` (the spirv backend's
    /// cooperative dots take f16 and bf16 -> f32).
    pub fn is_16x16x16(&self, ab: &str, cr: &str) -> bool {
        (self.m, self.n, self.k, self.ab.as_str(), self.cr.as_str()) == (16, 16, 16, ab, cr)
    }
}

/// `0` keeps `tl.dot` on the FMA path where the adapter has cooperative matrices (for comparing
/// the two paths); they are used by default where the adapter lists f16 x f16 -> f32 at 16x16x16.
pub const COOPERATIVE_MATRIX_ENV: &str = "TRIDENT_VULKAN_COOPERATIVE_MATRIX";

fn instance() -> wgpu::Instance {
    static QUIET_WAYLAND: std::sync::Once = std::sync::Once::new();
    QUIET_WAYLAND.call_once(give_wayland_a_runtime_dir);
    wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::VULKAN,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    })
}

/// Keeps libwayland quiet on machines without a desktop session (CI, containers, ssh).
///
/// wgpu enables `VK_KHR_wayland_surface` on every instance it creates, and Mesa's device-selection
/// layer (an implicit Vulkan layer installed with mesa-vulkan-drivers) then asks libwayland for the
/// default display to put its GPU first. Without an absolute `XDG_RUNTIME_DIR`, libwayland prints
/// "error: XDG_RUNTIME_DIR is invalid or not set in the environment." on stderr for each
/// enumeration, twice per spirv command, although a compute kernel needs no display. So when the
/// variable is unset or not absolute, it is pointed at a private directory of this user, as Qt
/// does (`/tmp/runtime-$USER`): `$TMPDIR/trident-runtime-UID`, mode 0700, created if missing and
/// used only when it is a directory that this user owns and nobody else may enter. libwayland
/// finds no display socket there and says nothing; the layer keeps its other ways of choosing
/// (`MESA_VK_DEVICE_SELECT`, `DRI_PRIME`, X11).
///
/// Called once, before the process creates its first Vulkan instance, so that no Vulkan thread
/// reads the environment while it changes. Anything that goes wrong leaves the environment as it
/// was (the messages come back; nothing else changes).
fn give_wayland_a_runtime_dir() {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
        let current = std::env::var_os("XDG_RUNTIME_DIR");
        if current.as_deref().is_some_and(|dir| std::path::Path::new(dir).is_absolute()) {
            return;
        }
        // SAFETY: geteuid has no preconditions and cannot fail.
        let uid = unsafe { libc::geteuid() };
        let dir = std::env::temp_dir().join(format!("trident-runtime-{uid}"));
        let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
        let Ok(metadata) = std::fs::symlink_metadata(&dir) else { return };
        let private =
            metadata.is_dir() && metadata.uid() == uid && metadata.permissions().mode() & 0o077 == 0;
        if private && dir.is_absolute() {
            std::env::set_var("XDG_RUNTIME_DIR", &dir);
        }
    }
}

fn summarize(index: usize, adapter: &wgpu::Adapter) -> AdapterSummary {
    let info = adapter.get_info();
    let limits = adapter.limits();
    AdapterSummary {
        index,
        name: info.name.clone(),
        driver: format!("{} {}", info.driver, info.driver_info).trim().to_string(),
        device_type: format!("{:?}", info.device_type),
        subgroup_size: info.subgroup_min_size.max(1),
        workgroup_memory_bytes: limits.max_compute_workgroup_storage_size,
        max_binding_bytes: limits.max_storage_buffer_binding_size,
        passthrough: adapter.features().contains(wgpu::Features::PASSTHROUGH_SHADERS),
        float32_atomic_add: adapter.features().contains(wgpu::Features::SHADER_FLOAT32_ATOMIC),
        subgroup_max_size: info.subgroup_max_size.max(info.subgroup_min_size).max(1),
        subgroups: adapter.features().contains(wgpu::Features::SUBGROUP),
        float16: adapter.features().contains(wgpu::Features::SHADER_F16),
        cooperative_matrices: vulkan_extensions::cooperative_matrices(adapter),
        bfloat16_cooperative_matrices: vulkan_extensions::bfloat16_cooperative_matrices(adapter),
        workgroup_matrices: vulkan_extensions::workgroup_matrices(adapter),
        per_element_matrix_operations: vulkan_extensions::per_element_operations(adapter),
    }
}

/// Every Vulkan adapter here (empty when there is no Vulkan driver).
pub fn adapters() -> Vec<AdapterSummary> {
    let adapters = pollster::block_on(instance().enumerate_adapters(wgpu::Backends::VULKAN));
    adapters.iter().enumerate().map(|(i, a)| summarize(i, a)).collect()
}

/// A compiled pipeline with its bind group layout.
struct Pipeline {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
}

/// A cache entry: the SPIR-V words, the specialization constants' values (`SpecId`, value) and
/// their pipeline.
type CachedPipeline = (Vec<u32>, Vec<(u32, u32)>, Rc<Pipeline>);

/// A scalar argument as its parameter holds it: (bytes, first uniform word, bits), the low word
/// first; `None` for buffers. The uniform block and the specialization constants read it alike.
fn scalar_bits(abi: &ParamAbi, arg: &ArgValue) -> Option<(u32, u32, u64)> {
    Some(match (*abi, arg) {
        (ParamAbi::Int { bytes, word }, ArgValue::Int(v)) => (bytes, word, *v as u64),
        (ParamAbi::Int { bytes, word }, ArgValue::Float(v)) => (bytes, word, *v as i64 as u64),
        (ParamAbi::Float { bytes: 4, word }, ArgValue::Float(v)) => (4, word, (*v as f32).to_bits() as u64),
        (ParamAbi::Float { bytes: 4, word }, ArgValue::Int(v)) => (4, word, (*v as f32).to_bits() as u64),
        (ParamAbi::Float { bytes, word }, ArgValue::Float(v)) => (bytes, word, v.to_bits()),
        (ParamAbi::Float { bytes, word }, ArgValue::Int(v)) => (bytes, word, (*v as f64).to_bits()),
        _ => return None,
    })
}

/// When [`WgpuDevice::bench`] stops: after one warm-up launch, timed launches run until at least
/// `min_runs` have run and either `max_runs` have or `budget` has passed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BenchLimits {
    pub min_runs: usize,
    pub max_runs: usize,
    pub budget: Duration,
}

/// Timings of [`WgpuDevice::bench`].
#[derive(Clone, Debug, PartialEq)]
pub struct BenchStats {
    pub runs: usize,
    pub median_ms: f64,
    pub min_ms: f64,
    /// The times are GPU timestamps around the compute pass (else the wall clock from submit to
    /// completion, which includes the driver's submission overhead).
    pub gpu_timestamps: bool,
}

/// Two timestamp queries around a compute pass and the buffers that bring them back.
struct PassTimer {
    queries: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    readback: wgpu::Buffer,
}

/// One Vulkan adapter opened through wgpu.
pub struct WgpuDevice {
    summary: AdapterSummary,
    device: wgpu::Device,
    queue: wgpu::Queue,
    limits: wgpu::Limits,
    passthrough: bool,
    /// `SHADER_FLOAT32_ATOMIC` is enabled on the device.
    float32_atomic_add: bool,
    /// Which 16-bit accesses use 16-bit storage-buffer access: none where the device lacks it
    /// (wgpu turns on `storageBuffer16BitAccess` with `SHADER_F16` or `SHADER_I16`), else what
    /// [`STORAGE_16BIT_ENV`] asks for (lone stores by default).
    storage_16bit: Storage16Bit,
    /// `TIMESTAMP_QUERY` is enabled on the device: `bench` times passes on the GPU.
    timestamps: bool,
    /// Cooperative matrices are enabled on the device, with the f16 x f16 -> f32 16x16x16 shape,
    /// on subgroups of one fixed size.
    cooperative_matrix_f16: bool,
    /// bf16 ones too (the 16x16x16 bf16 -> f32 shape, the device opened with
    /// `VK_KHR_shader_bfloat16`).
    cooperative_matrix_bf16: bool,
    /// What `VK_NV_cooperative_matrix2` offers at workgroup scope, where the device was opened
    /// with its workgroup-scope matrices of flexible dimensions and tensor addressing
    /// ([`WORKGROUP_MATRICES_ENV`]).
    workgroup_matrices: Option<trident_backend_spirv::WorkgroupMatrices>,
    /// The device was opened with per-element operations on cooperative matrices (see
    /// `trident_backend_spirv::Options::cooperative_matrix_per_element`).
    per_element_matrix_operations: bool,
    /// Compiled pipelines by a hash of their SPIR-V (words kept to rule out collisions).
    pipelines: RefCell<HashMap<u64, Vec<CachedPipeline>>>,
}

impl fmt::Debug for WgpuDevice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WgpuDevice").field("adapter", &self.summary).finish_non_exhaustive()
    }
}

/// Buffers of one launch on the device.
struct Resident {
    storage: Vec<wgpu::Buffer>,
    sizes: Vec<u64>,
    /// Per buffer, where its high window starts (bytes) when it is bound as two windows.
    splits: Vec<Option<u64>>,
    /// The kernel's assertion report buffer (see [`Artifact::assert_binding`]), zeroed.
    asserts: Option<wgpu::Buffer>,
    /// The kernel's print buffer (see [`Artifact::print_binding`]) and its capacity in records;
    /// each dispatch resets its header.
    prints: Option<(wgpu::Buffer, u32)>,
}

/// Bytes of the assertion report buffer: the failed site plus one, then the program id.
const ASSERT_REPORT_BYTES: u64 = 16;

/// The error of a failed `tl.device_assert`, from the words of the assertion report buffer, in
/// the interpreter's words: `device assertion failed in program (x, y, z): MESSAGE`, with the
/// assertion's span. None when no assertion failed.
fn failed_assertion(artifact: &Artifact, words: &[u32]) -> Option<WgpuError> {
    let site = artifact.asserts.get((*words.first()? as usize).checked_sub(1)?);
    let [x, y, z] = [1, 2, 3].map(|i| words.get(i).copied().unwrap_or(0));
    let (message, span) = match site {
        Some(site) => (site.message.as_str(), Some(site.span).filter(|s| !s.is_none())),
        None => ("assertion failed (an unknown site: the report buffer was overwritten)", None),
    };
    Some(WgpuError {
        message: format!("device assertion failed in program ({x}, {y}, {z}): {message}"),
        span,
    })
}

/// The environment variable that lowers the per-binding limit (see the module docs).
pub const MAX_BINDING_ENV: &str = "TRIDENT_VULKAN_MAX_BINDING_BYTES";

/// `1` turns on 16-bit storage buffer access for loads and stores (f16/bf16/i16 tensors loaded
/// and stored as 16-bit elements, `trident_backend_spirv::Storage16Bit`) where the
/// adapter has it; `0` turns it off altogether. By default only 16-bit elements stored alone use
/// it (`Storage16Bit::Stores`): loads through it were slower on an H100
/// than wide accesses over 32-bit words (layernorm forward f16 0.49 of Triton against 0.58),
/// while a lone 16-bit store through words takes two atomics.
pub const STORAGE_16BIT_ENV: &str = "TRIDENT_VULKAN_16BIT_STORAGE";

/// `0` turns off wide accesses (loads and stores of up to 16 bytes through `uvec4` views,
/// `trident_backend_spirv::Options::wide_accesses`), which are on by default: element-at-a-time
/// accesses are then used everywhere, for comparing the two paths. (They were opt-in for a while:
/// two `trident check` tests failed on NVIDIA's driver with them on, but the tests were wrong,
/// expecting a closing line that named one backend where two agreed; every buffer agreed.)
pub const WIDE_ACCESS_ENV: &str = "TRIDENT_VULKAN_WIDE_ACCESS";

/// `0` opens the device without `VK_NV_cooperative_matrix2`'s workgroup-scope matrices. By
/// default it is opened with them (flexible dimensions and tensor addressing) where the adapter
/// offers them and cooperative matrices are on: the spirv backend then runs GEMM loops on them
/// (`trident_backend_spirv::Options::workgroup_matrices`; H100: the corpus' 4096^3 fp16 GEMM
/// at 280 TFLOP/s against 193 on subgroup-scope matrices), and SPIR-V written by hand against
/// the runtime may use them (`examples/workgroup_matrix_gemm.rs`).
pub const WORKGROUP_MATRICES_ENV: &str = "TRIDENT_VULKAN_WORKGROUP_MATRICES";

/// Whether wide accesses are on: unless `TRIDENT_VULKAN_WIDE_ACCESS=0`.
pub fn wide_accesses_enabled() -> bool {
    std::env::var(WIDE_ACCESS_ENV).map_or(true, |v| v.trim() != "0")
}

impl WgpuDevice {
    /// Opens the adapter `selector` names (an index, or part of its name; the first without).
    /// `Ok(None)` when this machine has no Vulkan adapter at all.
    pub fn open(selector: Option<&str>) -> Result<Option<WgpuDevice>, WgpuError> {
        let all = pollster::block_on(instance().enumerate_adapters(wgpu::Backends::VULKAN));
        if all.is_empty() {
            return Ok(None);
        }
        let index = match selector {
            None => 0,
            Some(text) => {
                let by_index = text.trim().parse::<usize>().ok().filter(|&i| i < all.len());
                let lower = text.to_lowercase();
                let by_name = all.iter().position(|a| a.get_info().name.to_lowercase().contains(&lower));
                match by_index.or(by_name) {
                    Some(i) => i,
                    None => {
                        let names: Vec<String> = all
                            .iter()
                            .enumerate()
                            .map(|(i, a)| format!("{i}: {}", a.get_info().name))
                            .collect();
                        return Err(WgpuError::new(format!(
                            "no Vulkan adapter matches --adapter {text}; the adapters here are: {}",
                            names.join(", ")
                        )));
                    }
                }
            }
        };
        let adapter = &all[index];
        let summary = summarize(index, adapter);
        let mut wanted = wgpu::Features::PASSTHROUGH_SHADERS
            | wgpu::Features::SHADER_FLOAT32_ATOMIC
            | wgpu::Features::TIMESTAMP_QUERY
            | wgpu::Features::SHADER_F16
            | wgpu::Features::SHADER_I16;
        // Cooperative matrices where the spirv backend can use them: the shape it takes, f16
        // shaders, passthrough (they enable the Vulkan memory model the modules then declare),
        // and subgroup operations on subgroups of one fixed size (a workgroup is then whole
        // subgroups, which a cooperative matrix needs).
        let cooperative = summary.cooperative_matrices.iter().any(|shape| shape.is_16x16x16("f16", "f32"))
            && adapter.features().contains(wgpu::Features::SHADER_F16 | wgpu::Features::PASSTHROUGH_SHADERS)
            && summary.subgroups
            && summary.subgroup_size == summary.subgroup_max_size
            && std::env::var(COOPERATIVE_MATRIX_ENV).map_or(true, |v| v.trim() != "0");
        if cooperative {
            wanted |= wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX;
        }
        // bf16 dots take the same path where the adapter lists bf16 x bf16 -> f32 at 16x16x16 and
        // the device can be opened with VK_KHR_shader_bfloat16, which trident adds itself.
        let bfloat16 = cooperative
            && summary.bfloat16_cooperative_matrices
            && summary.cooperative_matrices.iter().any(|shape| shape.is_16x16x16("bf16", "f32"));
        let features = adapter.features() & wanted;
        let mut limits = adapter.limits();
        if let Some(cap) = std::env::var(MAX_BINDING_ENV).ok().and_then(|v| v.trim().parse::<u64>().ok()) {
            let cap = (cap & !3).max(4);
            limits.max_storage_buffer_binding_size = limits.max_storage_buffer_binding_size.min(cap);
        }
        let descriptor = wgpu::DeviceDescriptor {
            label: Some("trident"),
            required_features: features,
            required_limits: limits.clone(),
            // SAFETY: the one experimental feature asked for is cooperative matrices, and only the
            // spirv backend's passthrough modules use them, as SPV_KHR_cooperative_matrix defines
            // (wgpu validates nothing of passthrough SPIR-V either way).
            experimental_features: if cooperative {
                unsafe { wgpu::ExperimentalFeatures::enabled() }
            } else {
                wgpu::ExperimentalFeatures::disabled()
            },
            ..Default::default()
        };
        // Workgroup-scope matrices (with tensor addressing where offered) where the adapter has
        // them and they are asked for.
        let workgroup = summary
            .workgroup_matrices
            .as_ref()
            .filter(|offered| cooperative && !offered.shapes.is_empty())
            .filter(|_| std::env::var(WORKGROUP_MATRICES_ENV).map_or(true, |v| v.trim() != "0"));
        let additions = vulkan_extensions::Additions {
            bfloat16,
            workgroup_matrices: workgroup.is_some(),
            tensor_addressing: workgroup.is_some_and(|offered| offered.tensor_addressing),
            reductions_and_conversions: workgroup.is_some_and(|offered| offered.reductions_and_conversions),
            per_element_operations: cooperative && summary.per_element_matrix_operations,
        };
        // A device the driver will not create with the extensions added is opened as wgpu opens
        // it, its bf16 dots then on FMA.
        let plain = vulkan_extensions::Additions::default();
        let opened = match vulkan_extensions::open_device(adapter, &descriptor, additions) {
            Err(_) if additions != plain => {
                vulkan_extensions::open_device(adapter, &descriptor, plain).map(|opened| (opened, plain))
            }
            result => result.map(|opened| (opened, additions)),
        };
        let ((device, queue), additions) = opened
            .map_err(|e| WgpuError::new(format!("cannot open Vulkan adapter {}: {e}", summary.name)))?;
        let bfloat16 = additions.bfloat16;
        let storage_16bit = if features.intersects(wgpu::Features::SHADER_F16 | wgpu::Features::SHADER_I16) {
            match std::env::var(STORAGE_16BIT_ENV).as_deref().map(str::trim) {
                Ok("1") => Storage16Bit::LoadsAndStores,
                Ok("0") => Storage16Bit::Words,
                _ => Storage16Bit::Stores,
            }
        } else {
            Storage16Bit::Words
        };
        Ok(Some(WgpuDevice {
            passthrough: features.contains(wgpu::Features::PASSTHROUGH_SHADERS),
            float32_atomic_add: features.contains(wgpu::Features::SHADER_FLOAT32_ATOMIC),
            storage_16bit,
            timestamps: features.contains(wgpu::Features::TIMESTAMP_QUERY),
            cooperative_matrix_f16: features.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX),
            cooperative_matrix_bf16: bfloat16,
            workgroup_matrices: workgroup
                .filter(|_| additions.workgroup_matrices && additions.tensor_addressing)
                .map(|offered| offered.for_backend(additions.per_element_operations)),
            per_element_matrix_operations: additions.per_element_operations,
            summary,
            device,
            queue,
            limits,
            pipelines: RefCell::new(HashMap::new()),
        }))
    }

    pub fn summary(&self) -> &AdapterSummary {
        &self.summary
    }

    /// The adapter's subgroup size (its minimum). The spirv layouts do not depend on it; reductions
    /// shuffle across the lanes a subgroup of this size holds (`SpirvTarget::subgroup_size`).
    pub fn threads_per_warp(&self) -> u32 {
        self.summary.subgroup_size
    }

    pub fn workgroup_memory_limit(&self) -> u32 {
        self.limits.max_compute_workgroup_storage_size
    }

    /// The largest storage binding, in bytes.
    pub fn max_binding_bytes(&self) -> u64 {
        self.limits.max_storage_buffer_binding_size
    }

    /// Whether a buffer of `len` bytes needs two windows: it is larger than one binding. (Whether
    /// two windows reach it, the launch checks.)
    pub fn needs_windows(&self, len: usize) -> bool {
        Self::bound_size(len) > self.max_binding_bytes()
    }

    /// The bytes a buffer of `len` bytes takes on the device: whole words, at least one.
    fn bound_size(len: usize) -> u64 {
        (len as u64).div_ceil(4).max(1) * 4
    }

    /// Where the high window of a buffer of `size` bytes starts: the smallest offset at the
    /// device's storage-buffer alignment from which one binding reaches the end. `None` when
    /// the low window, which must cover everything below that offset, cannot.
    fn split_for(&self, size: u64) -> Option<u64> {
        let window = self.max_binding_bytes();
        let align = u64::from(self.limits.min_storage_buffer_offset_alignment).max(4);
        let split = size.saturating_sub(window).div_ceil(align) * align;
        (split <= window).then_some(split)
    }

    /// The most invocations one workgroup may have.
    pub fn max_workgroup_invocations(&self) -> u32 {
        self.limits.max_compute_invocations_per_workgroup
    }

    /// The SPIR-V dialect this device runs: passthrough takes the full Vulkan one.
    pub fn mode(&self) -> Mode {
        if self.passthrough {
            Mode::Vulkan
        } else {
            Mode::Portable
        }
    }

    /// Whether kernels may add f32 atomically (`OpAtomicFAddEXT` on storage buffers). Only modules
    /// passed through use it: a portable module keeps its compare-and-swap loop.
    pub fn float32_atomic_add(&self) -> bool {
        self.float32_atomic_add
    }

    /// Whether storage buffers may be read and written 16 bits at a time (`storageBuffer16BitAccess`).
    /// Only modules passed through use it: a portable module keeps the word path.
    /// `tl.dot` of f16 may take cooperative matrices of 16x16x16 with f32 accumulators (see
    /// `trident_backend_spirv::Options::cooperative_matrix_f16`).
    pub fn cooperative_matrix_f16(&self) -> bool {
        self.cooperative_matrix_f16
    }

    /// Whether `tl.dot` of bf16 may run on cooperative matrices (see
    /// `trident_backend_spirv::Options::cooperative_matrix_bf16`).
    pub fn cooperative_matrix_bf16(&self) -> bool {
        self.cooperative_matrix_bf16
    }

    /// The workgroup-scope matrices the device was opened with ([`WORKGROUP_MATRICES_ENV`]), as
    /// the spirv backend takes them.
    pub fn workgroup_matrices(&self) -> Option<&trident_backend_spirv::WorkgroupMatrices> {
        self.workgroup_matrices.as_ref()
    }

    /// Whether the device runs per-element operations on its cooperative matrices (see
    /// `trident_backend_spirv::Options::cooperative_matrix_per_element`).
    pub fn per_element_matrix_operations(&self) -> bool {
        self.per_element_matrix_operations
    }

    /// Which 16-bit accesses use the device's 16-bit storage (`STORAGE_16BIT_ENV`).
    pub fn storage_16bit(&self) -> Storage16Bit {
        self.storage_16bit
    }

    /// Pipelines compiled so far (the cache's size).
    pub fn cached_pipelines(&self) -> usize {
        self.pipelines.borrow().values().map(Vec::len).sum()
    }

    /// The pipeline of `artifact` for a launch with `args`: its words with the specialization
    /// constants set from the arguments (a pipeline per set of values; the words are rewritten
    /// only when that pipeline is created).
    fn pipeline(&self, artifact: &Artifact, args: &[ArgValue]) -> Result<Rc<Pipeline>, WgpuError> {
        // Most modules have no specialization constants: the launch then reads no argument here.
        let values: Vec<(u32, u32)> = match artifact.specialized_words.is_empty() {
            true => Vec::new(),
            false => artifact
                .params
                .iter()
                .zip(args)
                .filter_map(|(abi, arg)| scalar_bits(abi, arg))
                .filter(|(_, word, _)| artifact.specialized_words.contains(word))
                .map(|(_, word, bits)| (word, bits as u32))
                .collect(),
        };
        let mut hasher = DefaultHasher::new();
        artifact.words.hash(&mut hasher);
        artifact.entry_name.hash(&mut hasher);
        values.hash(&mut hasher);
        let key = hasher.finish();
        if let Some(entries) = self.pipelines.borrow().get(&key) {
            if let Some((.., p)) = entries.iter().find(|(w, v, _)| *w == artifact.words && *v == values) {
                return Ok(p.clone());
            }
        }
        let specialized;
        let words = if values.is_empty() {
            artifact.words.as_slice()
        } else {
            specialized = trident_backend_spirv::specialize(&artifact.words, &values);
            specialized.as_slice()
        };
        let name = &artifact.entry_name;
        let [x, y, z] = artifact.workgroup_size;
        if x * y * z > self.limits.max_compute_invocations_per_workgroup {
            return Err(WgpuError::new(format!(
                "kernel {name} needs {} invocations per workgroup; {} allows {} (use fewer --num-warps)",
                x * y * z,
                self.summary.name,
                self.limits.max_compute_invocations_per_workgroup
            )));
        }
        if artifact.workgroup_memory_bytes > self.limits.max_compute_workgroup_storage_size {
            return Err(WgpuError::new(format!(
                "kernel {name} needs {} bytes of workgroup memory; {} allows {} (use smaller blocks)",
                artifact.workgroup_memory_bytes,
                self.summary.name,
                self.limits.max_compute_workgroup_storage_size
            )));
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = if self.passthrough && artifact.mode == Mode::Vulkan {
            let entry =
                wgpu::PassthroughShaderEntryPoint { name: name.clone().into(), workgroup_size: (x, y, z) };
            let descriptor = wgpu::ShaderModuleDescriptorPassthrough {
                label: Some(name),
                entry_points: vec![entry].into(),
                spirv: Some(words.into()),
                ..Default::default()
            };
            // SAFETY: the words come from trident's SPIR-V backend, whose modules pass spirv-val
            // (the CI checks every generated module), and declare the bindings created below.
            unsafe { self.device.create_shader_module_passthrough(descriptor) }
        } else {
            self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(name),
                source: wgpu::ShaderSource::SpirV(words.into()),
            })
        };
        let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer { ty, has_dynamic_offset: false, min_binding_size: None },
            count: None,
        };
        let storage = wgpu::BufferBindingType::Storage { read_only: false };
        // Every storage binding: the buffers, their high windows, the assertion and print buffers.
        let mut entries: Vec<wgpu::BindGroupLayoutEntry> = artifact
            .params
            .iter()
            .filter_map(|abi| match abi {
                ParamAbi::Buffer { binding, high } => {
                    Some(std::iter::once(*binding).chain(high.map(|h| h.binding)))
                }
                _ => None,
            })
            .flatten()
            .chain(artifact.assert_binding)
            .chain(artifact.print_binding)
            .map(|binding| entry(binding, storage))
            .collect();
        entries.push(entry(artifact.uniform_binding, wgpu::BufferBindingType::Uniform));
        let layout = self.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(name),
            entries: &entries,
        });
        let pipeline_layout = self.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(name),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(name),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some(name),
            compilation_options: Default::default(),
            cache: None,
        });
        if let Some(error) = pollster::block_on(scope.pop()) {
            return Err(WgpuError::new(format!(
                "{} rejected the SPIR-V of kernel {name}: {error}",
                self.summary.name
            )));
        }
        let p = Rc::new(Pipeline { pipeline, layout });
        self.pipelines.borrow_mut().entry(key).or_default().push((artifact.words.clone(), values, p.clone()));
        Ok(p)
    }

    /// The uniform block: grid, folded dispatch, the scalar arguments, then the split (in words)
    /// of each windowed buffer.
    fn uniform_words(
        artifact: &Artifact,
        grid: Grid,
        dispatch: [u32; 3],
        args: &[ArgValue],
        resident: &Resident,
    ) -> Vec<u32> {
        let mut words =
            vec![0u32; artifact.uniform_words.max(trident_backend_spirv::FIRST_PARAM_WORD) as usize];
        words[..3].copy_from_slice(&grid.0);
        words[3] = dispatch[0];
        words[4] = dispatch[1];
        for (bytes, word, bits) in
            artifact.params.iter().zip(args).filter_map(|(abi, arg)| scalar_bits(abi, arg))
        {
            words[word as usize] = bits as u32;
            if bytes == 8 {
                words[word as usize + 1] = (bits >> 32) as u32;
            }
        }
        let highs = artifact.params.iter().filter_map(|abi| match abi {
            ParamAbi::Buffer { high, .. } => Some(high),
            _ => None,
        });
        for (high, split) in highs.zip(&resident.splits) {
            if let (Some(HighWindow { split_word, .. }), Some(split)) = (high, split) {
                words[*split_word as usize] = (split / 4) as u32;
            }
        }
        words
    }

    fn upload(
        &self,
        artifact: &Artifact,
        args: &[ArgValue],
        buffers: &[Buffer],
    ) -> Result<Resident, WgpuError> {
        let max_binding = self.max_binding_bytes();
        let mut storage = Vec::new();
        let mut sizes = Vec::new();
        let mut splits = Vec::new();
        for (abi, arg) in artifact.params.iter().zip(args) {
            let ParamAbi::Buffer { high, .. } = abi else { continue };
            let ArgValue::Buffer(index) = arg else {
                return Err(WgpuError::new(format!(
                    "kernel {}: a pointer argument got a scalar",
                    artifact.entry_name
                )));
            };
            let buffer = &buffers[*index];
            let size = Self::bound_size(buffer.bytes.len());
            if size > self.limits.max_buffer_size {
                return Err(WgpuError::new(format!(
                    "buffer {} is {} bytes; {} allows buffers of at most {} bytes",
                    buffer.name,
                    buffer.bytes.len(),
                    self.summary.name,
                    self.limits.max_buffer_size
                )));
            }
            let split = match high {
                None if size > max_binding => {
                    return Err(WgpuError::new(format!(
                        "buffer {} is {} bytes; {} allows at most {max_binding} bytes per storage binding \
                         (the kernel was not compiled to bind it as two windows)",
                        buffer.name,
                        buffer.bytes.len(),
                        self.summary.name,
                    )));
                }
                None => None,
                Some(_) => match self.split_for(size) {
                    Some(split) => Some(split),
                    None => {
                        return Err(WgpuError::new(format!(
                            "buffer {} is {} bytes; two windows of {} reach at most {} bytes \
                             ({max_binding} bytes per storage binding)",
                            buffer.name,
                            buffer.bytes.len(),
                            self.summary.name,
                            2 * max_binding
                                - u64::from(self.limits.min_storage_buffer_offset_alignment).max(4)
                        )));
                    }
                },
            };
            let mut bytes = buffer.bytes.clone();
            bytes.resize(size as usize, 0);
            let gpu = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&buffer.name),
                size,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            self.queue.write_buffer(&gpu, 0, &bytes);
            storage.push(gpu);
            sizes.push(size);
            splits.push(split);
        }
        let asserts = artifact.assert_binding.map(|_| {
            let report = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("trident device asserts"),
                size: ASSERT_REPORT_BYTES,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            self.queue.write_buffer(&report, 0, &[0; ASSERT_REPORT_BYTES as usize]);
            report
        });
        let prints = artifact.print_binding.map(|_| {
            let capacity = print::capacity(self.max_binding_bytes().min(self.limits.max_buffer_size));
            let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("trident device prints"),
                size: print::buffer_bytes(capacity),
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            (buffer, capacity)
        });
        Ok(Resident { storage, sizes, splits, asserts, prints })
    }

    /// Records and submits one dispatch.
    fn dispatch(
        &self,
        artifact: &Artifact,
        pipeline: &Pipeline,
        resident: &Resident,
        grid: Grid,
        args: &[ArgValue],
        timer: Option<&PassTimer>,
    ) -> Result<wgpu::SubmissionIndex, WgpuError> {
        grid.within_limits().map_err(WgpuError::new)?;
        let max = self.limits.max_compute_workgroups_per_dimension;
        let Some(dispatch) = fold_grid(grid.0, max) else {
            return Err(WgpuError::new(format!(
                "a grid of {} programs is more than {} can dispatch ({max} per dimension, 3 dimensions)",
                grid.programs(),
                self.summary.name
            )));
        };
        let words = Self::uniform_words(artifact, grid, dispatch, args, resident);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let uniform = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("trident uniforms"),
            size: bytes.len() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.queue.write_buffer(&uniform, 0, &bytes);
        let mut entries: Vec<wgpu::BindGroupEntry> = Vec::new();
        let mut next = 0;
        for abi in &artifact.params {
            let ParamAbi::Buffer { binding, high } = abi else { continue };
            let (buffer, size) = (&resident.storage[next], resident.sizes[next]);
            match (high, resident.splits[next]) {
                (Some(high), Some(split)) => {
                    let window = |offset: u64, bytes: u64| {
                        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer,
                            offset,
                            size: wgpu::BufferSize::new(bytes),
                        })
                    };
                    let low_bytes = size.min(self.max_binding_bytes());
                    entries.push(wgpu::BindGroupEntry { binding: *binding, resource: window(0, low_bytes) });
                    entries.push(wgpu::BindGroupEntry {
                        binding: high.binding,
                        resource: window(split, size - split),
                    });
                }
                _ => entries
                    .push(wgpu::BindGroupEntry { binding: *binding, resource: buffer.as_entire_binding() }),
            }
            next += 1;
        }
        if let (Some(binding), Some(report)) = (artifact.assert_binding, &resident.asserts) {
            entries.push(wgpu::BindGroupEntry { binding, resource: report.as_entire_binding() });
        }
        if let (Some(binding), Some((buffer, capacity))) = (artifact.print_binding, &resident.prints) {
            // No records yet, and the capacity: each dispatch prints afresh.
            let header: Vec<u8> = [0, *capacity].iter().flat_map(|w: &u32| w.to_le_bytes()).collect();
            self.queue.write_buffer(buffer, 0, &header);
            entries.push(wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() });
        }
        entries.push(wgpu::BindGroupEntry {
            binding: artifact.uniform_binding,
            resource: uniform.as_entire_binding(),
        });
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&artifact.entry_name),
            layout: &pipeline.layout,
            entries: &entries,
        });
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        if grid.programs() > 0 {
            let timestamp_writes = timer.map(|t| wgpu::ComputePassTimestampWrites {
                query_set: &t.queries,
                beginning_of_pass_write_index: Some(0),
                end_of_pass_write_index: Some(1),
            });
            let mut pass =
                encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes });
            pass.set_pipeline(&pipeline.pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(dispatch[0], dispatch[1], dispatch[2]);
        }
        if let Some(t) = timer {
            encoder.resolve_query_set(&t.queries, 0..2, &t.resolved, 0);
            encoder.copy_buffer_to_buffer(&t.resolved, 0, &t.readback, 0, 16);
        }
        Ok(self.queue.submit([encoder.finish()]))
    }

    fn wait(&self) -> Result<(), WgpuError> {
        self.device
            .poll(wgpu::PollType::Wait { submission_index: None, timeout: Some(Duration::from_secs(300)) })
            .map(|_| ())
            .map_err(|e| WgpuError::new(format!("waiting for the Vulkan device failed: {e}")))
    }

    fn download(
        &self,
        resident: &Resident,
        args: &[ArgValue],
        artifact: &Artifact,
        buffers: &mut [Buffer],
    ) -> Result<(), WgpuError> {
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        let mut staging = Vec::new();
        let report_sizes = resident.asserts.iter().map(|_| ASSERT_REPORT_BYTES);
        for (gpu, size) in resident
            .storage
            .iter()
            .zip(resident.sizes.iter().copied())
            .chain(resident.asserts.iter().zip(report_sizes))
        {
            let s = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("trident readback"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            encoder.copy_buffer_to_buffer(gpu, 0, &s, 0, size);
            staging.push(s);
        }
        self.queue.submit([encoder.finish()]);
        for s in &staging {
            s.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        }
        self.wait()?;
        let indices = artifact.params.iter().zip(args).filter_map(|(abi, arg)| match (abi, arg) {
            (ParamAbi::Buffer { .. }, ArgValue::Buffer(i)) => Some(*i),
            _ => None,
        });
        for (s, index) in staging.iter().zip(indices) {
            let data = s.slice(..).get_mapped_range().map_err(|e| {
                WgpuError::new(format!("cannot read buffer back from the Vulkan device: {e}"))
            })?;
            let n = buffers[index].bytes.len();
            buffers[index].bytes.copy_from_slice(&data[..n]);
        }
        match (&resident.asserts, staging.last()) {
            (Some(_), Some(report)) => {
                let data = report.slice(..).get_mapped_range().map_err(|e| {
                    WgpuError::new(format!(
                        "cannot read the assertion report back from the Vulkan device: {e}"
                    ))
                })?;
                let words: Vec<u32> =
                    data.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
                failed_assertion(artifact, &words).map_or(Ok(()), Err)
            }
            _ => Ok(()),
        }
    }

    /// Runs `artifact` once over `grid`: buffers in, dispatch, wait, buffers out.
    pub fn launch(
        &self,
        artifact: &Artifact,
        grid: Grid,
        args: &[ArgValue],
        buffers: &mut [Buffer],
    ) -> Result<(), WgpuError> {
        let pipeline = self.pipeline(artifact, args)?;
        let resident = self.upload(artifact, args, buffers)?;
        self.dispatch(artifact, &pipeline, &resident, grid, args, None)?;
        self.wait()?;
        self.show_prints(&resident, artifact, grid, args)?;
        self.download(&resident, args, artifact, buffers)
    }

    /// Prints what the last dispatch's `tl.device_print`s recorded, on stdout, and says on
    /// stderr how many lines the print buffer had no room for.
    fn show_prints(
        &self,
        resident: &Resident,
        artifact: &Artifact,
        grid: Grid,
        args: &[ArgValue],
    ) -> Result<(), WgpuError> {
        let Some((buffer, capacity)) = &resident.prints else { return Ok(()) };
        let header = self.read_words(buffer, 0, 4 * trident_backend_spirv::PRINT_HEADER_WORDS as u64)?;
        let attempted = header.first().copied().unwrap_or(0);
        let written = attempted.min(*capacity) as u64;
        let record_bytes = 4 * trident_backend_spirv::PRINT_RECORD_WORDS as u64;
        let words = if written == 0 {
            Vec::new()
        } else {
            let start = 4 * trident_backend_spirv::PRINT_HEADER_WORDS as u64;
            self.read_words(buffer, start, written * record_bytes)?
        };
        let buffer_of = |binding: u32| {
            artifact.params.iter().zip(args).find_map(|(abi, arg)| match (abi, arg) {
                (ParamAbi::Buffer { binding: b, .. }, ArgValue::Buffer(index)) if *b == binding => {
                    Some(*index)
                }
                _ => None,
            })
        };
        let out = print::printout(artifact, grid.0, attempted, &words, &buffer_of);
        {
            use std::io::Write;
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            for line in &out.lines {
                let _ = writeln!(lock, "{line}");
            }
            let _ = lock.flush();
        }
        if out.dropped > 0 {
            eprintln!(
                "warning: tl.device_print: {} of {attempted} lines were dropped: the print buffer holds {capacity} \
                 (set {PRINT_RECORDS_ENV} to hold more)",
                out.dropped
            );
        }
        Ok(())
    }

    /// Words `[offset, offset + bytes)` of a device buffer, copied back through a staging buffer.
    fn read_words(&self, buffer: &wgpu::Buffer, offset: u64, bytes: u64) -> Result<Vec<u32>, WgpuError> {
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("trident readback"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        encoder.copy_buffer_to_buffer(buffer, offset, &staging, 0, bytes);
        self.queue.submit([encoder.finish()]);
        staging.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        self.wait()?;
        let data = staging.slice(..).get_mapped_range().map_err(|e| {
            WgpuError::new(format!("cannot read the print buffer back from the Vulkan device: {e}"))
        })?;
        Ok(data.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect())
    }

    /// Times `artifact`: a warm-up launch, then timed launches as `limits` say. Buffers stay on
    /// the device between launches and come back at the end.
    pub fn bench(
        &self,
        artifact: &Artifact,
        grid: Grid,
        args: &[ArgValue],
        buffers: &mut [Buffer],
        limits: BenchLimits,
    ) -> Result<BenchStats, WgpuError> {
        let pipeline = self.pipeline(artifact, args)?;
        let resident = self.upload(artifact, args, buffers)?;
        let timer = (self.timestamps && grid.programs() > 0).then(|| self.pass_timer());
        self.dispatch(artifact, &pipeline, &resident, grid, args, None)?;
        self.wait()?;
        let mut times = Vec::new();
        let start = Instant::now();
        while times.len() < limits.min_runs
            || (times.len() < limits.max_runs && start.elapsed() < limits.budget)
        {
            let t = Instant::now();
            self.dispatch(artifact, &pipeline, &resident, grid, args, timer.as_ref())?;
            self.wait()?;
            let ms = match &timer {
                Some(timer) => self.read_timer(timer)?,
                None => t.elapsed().as_secs_f64() * 1e3,
            };
            times.push(ms);
        }
        self.show_prints(&resident, artifact, grid, args)?;
        self.download(&resident, args, artifact, buffers)?;
        times.sort_by(|a, b| a.total_cmp(b));
        Ok(BenchStats {
            runs: times.len(),
            median_ms: times[times.len() / 2],
            min_ms: times[0],
            gpu_timestamps: timer.is_some(),
        })
    }

    fn pass_timer(&self) -> PassTimer {
        let queries = self.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("trident pass time"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let buffer = |usage| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("trident timestamps"),
                size: 16,
                usage,
                mapped_at_creation: false,
            })
        };
        PassTimer {
            queries,
            resolved: buffer(wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC),
            readback: buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST),
        }
    }

    /// The milliseconds between the two timestamps of the last timed pass (already completed).
    fn read_timer(&self, timer: &PassTimer) -> Result<f64, WgpuError> {
        let slice = timer.readback.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        self.wait()?;
        let ticks = {
            let data = slice
                .get_mapped_range()
                .map_err(|e| WgpuError::new(format!("cannot read the pass timestamps back: {e}")))?;
            let word = |i: usize| u64::from_le_bytes(data[8 * i..8 * i + 8].try_into().expect("8 bytes"));
            word(1).saturating_sub(word(0))
        };
        timer.readback.unmap();
        Ok(ticks as f64 * self.queue.get_timestamp_period() as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::{CooperativeMatrixShape, WorkgroupMatrixShape};

    #[test]
    fn a_cooperative_matrix_shape_reads_m_n_k_then_types() {
        let shape = CooperativeMatrixShape { m: 16, n: 8, k: 16, ab: "f16".into(), cr: "f32".into() };
        assert_eq!(shape.to_string(), "16x8x16 f16->f32");
    }

    #[test]
    fn a_workgroup_matrix_shape_reads_granules_types_then_invocations() {
        let shape = WorkgroupMatrixShape {
            m_granularity: 32,
            n_granularity: 16,
            k_granularity: 16,
            ab: "f16".into(),
            cr: "f32".into(),
            invocations: 128,
        };
        assert_eq!(shape.to_string(), "32x16x16 granules f16->f32 at 128 invocations");
    }
}
