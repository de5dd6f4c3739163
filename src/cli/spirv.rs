//! The spirv backend on the command line: which Vulkan adapter, compile, launch.
//!
//! `--backend spirv` needs a Vulkan adapter (Mesa's lavapipe counts) and says why when there is
//! none; `--backend auto` takes it after nvptx. `--adapter` picks an adapter by index or by a
//! part of its name (`trident devices` lists them). The layouts are built for warps of 64
//! invocations (32 where the workgroup would be too large) whatever the adapter's subgroup size
//! (the backend uses no subgroup operations), and the SPIR-V dialect follows the adapter: the
//! full Vulkan one where wgpu can pass it through, the naga-portable one elsewhere. Float
//! `atomic_add` is native where the adapter has f32 atomics, a compare-and-swap loop elsewhere.

use trident_backend_spirv::{Artifact, Mode, Storage16Bit};
use trident_midend::ir::Module;
use trident_runtime::wgpu::{layout_warp_width, WgpuDevice};
use trident_runtime::{Buffer, Grid};

use super::args::Launch;
use super::cached;
use super::error::CliError;
use super::run::launch_error;
use crate::{kernel_args, SpirvTarget, SPIRV_THREADS_PER_WARP};

/// A kernel ready to run on a Vulkan adapter.
pub struct VulkanKernel {
    pub device: WgpuDevice,
    pub artifact: Artifact,
}

/// The adapter to run on: `Ok(Err(reason))` when this machine has no Vulkan adapter.
pub fn open_device(adapter: Option<&str>) -> Result<Result<WgpuDevice, String>, CliError> {
    match WgpuDevice::open(adapter) {
        Ok(Some(device)) => Ok(Ok(device)),
        Ok(None) => {
            Ok(Err("no Vulkan adapter found (install a Vulkan driver, e.g. mesa-vulkan-drivers)".into()))
        }
        Err(error) => Err(CliError::Failed(error.to_string())),
    }
}

/// The error of `--backend spirv` on a machine without a Vulkan adapter.
pub fn no_adapter(reason: &str) -> CliError {
    CliError::Failed(format!(
        "--backend spirv needs a Vulkan adapter, and there is none here: {reason}\n\
         (--backend interp runs the kernel on the CPU; `trident compile --emit spvasm` needs no device)"
    ))
}

/// The compilation target of a device, or the defaults without one (32 KiB, 1024 invocations,
/// float atomic add by compare-and-swap, which every Vulkan device runs).
/// Threads per warp are 32 on adapters whose subgroups are all 32 wide, [`SPIRV_THREADS_PER_WARP`]
/// elsewhere ([`layout_warp_width`]); reductions shuffle across the lanes of one subgroup where
/// the adapter runs subgroup operations (`subgroup_size`), so no layout depends on the subgroup
/// size for correctness.
pub fn target_for(device: Option<&WgpuDevice>, mode: Option<Mode>) -> SpirvTarget {
    match device {
        Some(d) => SpirvTarget {
            mode: mode.unwrap_or(d.mode()),
            threads_per_warp: layout_warp_width(
                d.summary().subgroups,
                d.summary().subgroup_size,
                d.summary().subgroup_max_size,
            ),
            max_workgroup_invocations: d.max_workgroup_invocations(),
            workgroup_memory_bytes: d.workgroup_memory_limit(),
            float32_atomic_add: d.float32_atomic_add(),
            windowed_buffers: Vec::new(),
            storage_16bit: d.storage_16bit(),
            wide_accesses: trident_runtime::wgpu::wide_accesses_enabled(),
            subgroup_size: if d.summary().subgroups { d.summary().subgroup_size } else { 0 },
            cooperative_matrix_f16: d.cooperative_matrix_f16(),
            cooperative_matrix_bf16: d.cooperative_matrix_bf16(),
            workgroup_matrices: d.workgroup_matrices().cloned(),
            cooperative_matrix_per_element: d.per_element_matrix_operations(),
        },
        None => SpirvTarget {
            mode: mode.unwrap_or(Mode::Vulkan),
            threads_per_warp: SPIRV_THREADS_PER_WARP,
            max_workgroup_invocations: 1024,
            workgroup_memory_bytes: 32 * 1024,
            float32_atomic_add: false,
            windowed_buffers: Vec::new(),
            storage_16bit: Storage16Bit::Words,
            wide_accesses: false,
            subgroup_size: 0,
            cooperative_matrix_f16: false,
            cooperative_matrix_bf16: false,
            workgroup_matrices: None,
            cooperative_matrix_per_element: false,
        },
    }
}

/// Compiles for `device` and the launch's buffers, through the on-disk cache: a buffer larger than
/// one of the device's storage bindings is bound as two windows. A kernel the backend cannot
/// compile is a [`CliError::Kernel`].
pub fn compile_for(launch: &Launch, module: &Module, device: &WgpuDevice) -> Result<Artifact, CliError> {
    let mut target = target_for(Some(device), None);
    target.windowed_buffers = windowed_buffers(launch, module, device);
    Ok(cached::spirv(launch, Some(module), target)?.0.artifact)
}

/// The pointer arguments (by ordinal among them) whose buffers exceed one binding of `device`.
fn windowed_buffers(launch: &Launch, module: &Module, device: &WgpuDevice) -> Vec<u32> {
    let Some(kernel) = module.kernel() else { return Vec::new() };
    let pointers = kernel.params().iter().enumerate().filter(|&(_, &p)| {
        let ty = kernel.body.ty(p);
        ty.is_ptr() && !ty.is_tensor()
    });
    let mut windowed = Vec::new();
    for (ordinal, (index, _)) in pointers.enumerate() {
        let name = kernel.arg_names.get(index).map(String::as_str).unwrap_or_default();
        if let Some(trident_runtime::ArgValue::Buffer(buffer)) = launch.arg_value(name) {
            if launch.buffers.get(buffer).is_some_and(|b| device.needs_windows(b.bytes.len())) {
                windowed.push(ordinal as u32);
            }
        }
    }
    windowed
}

/// `--backend spirv`: open, compile, or fail saying why.
pub fn prepare(launch: &Launch, module: &Module, adapter: Option<&str>) -> Result<VulkanKernel, CliError> {
    let device = match open_device(adapter)? {
        Ok(device) => device,
        Err(reason) => return Err(no_adapter(&reason)),
    };
    let artifact = compile_for(launch, module, &device)?;
    Ok(VulkanKernel { device, artifact })
}

pub fn args(launch: &Launch, module: &Module) -> Result<Vec<trident_runtime::ArgValue>, CliError> {
    kernel_args(module, |name| launch.arg_value(name)).map_err(|error| launch_error(launch, error))
}

/// One launch on the adapter; every buffer comes back.
pub fn launch_on_device(
    launch: &Launch,
    module: &Module,
    kernel: &VulkanKernel,
    grid: Grid,
    buffers: &mut [Buffer],
) -> Result<(), CliError> {
    let args = args(launch, module)?;
    kernel.device.launch(&kernel.artifact, grid, &args, buffers).map_err(|error| device_error(launch, error))
}

/// A failure on the adapter: the kernel's own (a failed `tl.device_assert`, which has a span)
/// renders with its Python line, as the interpreter's errors do; the driver's is one message.
pub fn device_error(launch: &Launch, error: trident_runtime::wgpu::WgpuError) -> CliError {
    match error.span {
        Some(span) => {
            let error = trident_runtime::interp::RuntimeError { message: error.message, span: Some(span) };
            CliError::Kernel(crate::runtime_diagnostics(&launch.path, &launch.source, &error))
        }
        None => CliError::Failed(error.message),
    }
}

/// A one-line description of the adapter.
pub fn describe(device: &WgpuDevice) -> String {
    let s = device.summary();
    format!("vulkan:{} {}, subgroup size {}", s.index, s.name, s.subgroup_size)
}
