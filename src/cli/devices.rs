//! Backends and devices: what `--backend auto` picks, and what `trident devices` lists.
//!
//! Built today: the reference interpreter, nvptx on CUDA GPUs (when this machine has one; the
//! driver is loaded at run time) and spirv on Vulkan adapters (through wgpu). `auto` picks
//! nvptx when a GPU is present and the backend compiles the kernel, else spirv when a Vulkan
//! adapter is present and the backend compiles the kernel, else interp, and says which on
//! stderr, once per process (a Python program launches many times).

use trident_midend::ir::Module;
use trident_runtime::cuda::{self, Probe};

use super::args::Launch;
use super::error::CliError;
use super::notes;
use super::nvptx::{self, GpuKernel};
use super::spirv::{self, VulkanKernel};
use super::Backend;

/// Why a backend that is not built cannot run here, or `None` when it is built. Whether the
/// machine has the device is a separate question ([`choose`], [`print_devices`]).
pub fn unavailable_reason(backend: Backend) -> Option<&'static str> {
    match backend {
        Backend::Interp | Backend::Auto | Backend::Nvptx | Backend::Spirv => None,
    }
}

/// Refuses, before any work, a backend that is not built.
pub fn require_built(backend: Backend) -> Result<(), CliError> {
    match unavailable_reason(backend) {
        Some(reason) => Err(CliError::Unavailable(reason.to_string())),
        None => Ok(()),
    }
}

/// Where a launch runs.
pub enum Chosen {
    Interp,
    Nvptx(Box<GpuKernel>),
    Spirv(Box<VulkanKernel>),
}

impl Chosen {
    pub fn name(&self) -> &'static str {
        match self {
            Chosen::Interp => "interp",
            Chosen::Nvptx(_) => "nvptx",
            Chosen::Spirv(_) => "spirv",
        }
    }

    /// The backend and its device, as `run` reports them: `spirv (vulkan:0 llvmpipe ...)`.
    pub fn describe(&self) -> String {
        match self {
            Chosen::Interp => "interp (the reference interpreter, on the CPU)".to_string(),
            Chosen::Nvptx(gpu) => format!("nvptx ({})", nvptx::describe(&gpu.device)),
            Chosen::Spirv(kernel) => format!("spirv ({})", spirv::describe(&kernel.device)),
        }
    }
}

/// Picks the backend for a launch of `module` (TTIR). An explicit backend that cannot run is an
/// error saying why; `auto` falls back to interp with one note on stderr.
pub fn choose(
    backend: Backend,
    launch: &Launch,
    module: &Module,
    adapter: Option<&str>,
) -> Result<Chosen, CliError> {
    match backend {
        Backend::Interp => Ok(Chosen::Interp),
        Backend::Spirv => Ok(Chosen::Spirv(Box::new(spirv::prepare(launch, module, adapter)?))),
        Backend::Nvptx => Ok(Chosen::Nvptx(Box::new(nvptx::prepare(launch, module)?))),
        Backend::Auto => {
            let device = match nvptx::open_device()? {
                Ok(device) => device,
                Err(reason) => {
                    return auto_spirv(launch, module, adapter, &format!("no CUDA GPU ({reason})"))
                }
            };
            let artifact = match nvptx::compile_for(launch, module, &device) {
                Ok(artifact) => artifact,
                Err(CliError::Kernel(diagnostics)) => {
                    let first = diagnostics.render();
                    let first = first.lines().next().unwrap_or_default().trim_start_matches("error: ");
                    let why = format!("nvptx cannot compile {} ({first})", launch.kernel);
                    return auto_spirv(launch, module, adapter, &why);
                }
                Err(internal) => return Err(internal),
            };
            notes::once(&format!("note: --backend auto: running on nvptx ({})", nvptx::describe(&device)));
            Ok(Chosen::Nvptx(Box::new(nvptx::load(device, artifact)?)))
        }
    }
}

/// `auto` after nvptx: spirv when a Vulkan adapter is present and compiles the kernel, else
/// interp, with one note on stderr saying which and why.
fn auto_spirv(
    launch: &Launch,
    module: &Module,
    adapter: Option<&str>,
    why: &str,
) -> Result<Chosen, CliError> {
    let device = match spirv::open_device(adapter)? {
        Ok(device) => device,
        Err(reason) => {
            notes::once(&format!("note: --backend auto: {why}; {reason}; running on interp"));
            return Ok(Chosen::Interp);
        }
    };
    match spirv::compile_for(launch, module, &device) {
        Ok(artifact) => {
            notes::once(&format!(
                "note: --backend auto: {why}; running on spirv ({})",
                spirv::describe(&device)
            ));
            Ok(Chosen::Spirv(Box::new(VulkanKernel { device, artifact })))
        }
        Err(CliError::Kernel(diagnostics)) => {
            let first = diagnostics.render();
            let first = first.lines().next().unwrap_or_default().trim_start_matches("error: ").to_string();
            notes::once(&format!(
                "note: --backend auto: {why}; spirv cannot compile {} ({first}); running on interp",
                launch.kernel
            ));
            Ok(Chosen::Interp)
        }
        Err(internal) => Err(internal),
    }
}

/// The name of a backend as the command line spells it.
pub fn backend_name(backend: Backend) -> &'static str {
    match backend {
        Backend::Auto => "auto",
        Backend::Nvptx => "nvptx",
        Backend::Spirv => "spirv",
        Backend::Interp => "interp",
    }
}

/// `trident devices`: one line per backend, then one line per GPU under nvptx. The first two
/// words of a backend's line are its name and `available` when it can run here.
pub fn print_devices() {
    println!("interp  available      the reference interpreter (CPU)");
    match cuda::probe() {
        Probe::Absent(reason) => println!("nvptx   unavailable    {reason}"),
        Probe::Present { driver_version: (major, minor), devices } => {
            let plural = if devices.len() == 1 { "" } else { "s" };
            println!("nvptx   available      CUDA driver {major}.{minor}, {} GPU{plural}", devices.len());
            for info in devices {
                let (cc_major, cc_minor) = info.compute_capability;
                let target = match nvptx::sm_for(info.compute_capability) {
                    Ok(90) => "PTX target sm_90a".to_string(),
                    Ok(_) => "PTX target sm_80".to_string(),
                    Err(reason) => reason,
                };
                println!(
                    "        cuda:{} {}: compute capability {cc_major}.{cc_minor}, {} SMs, {:.1} GiB, {} KiB \
                     shared memory per block; {target}",
                    info.ordinal,
                    info.name,
                    info.sm_count,
                    info.total_memory_bytes as f64 / (1u64 << 30) as f64,
                    info.max_shared_bytes_optin / 1024,
                );
            }
        }
    }
    let adapters = trident_runtime::wgpu::adapters();
    if adapters.is_empty() {
        println!("spirv   unavailable    no Vulkan adapter found (install a Vulkan driver, e.g. mesa-vulkan-drivers)");
    } else {
        let plural = if adapters.len() == 1 { "" } else { "s" };
        println!("spirv   available      Vulkan, {} adapter{plural}", adapters.len());
        let yes_no = |b: bool| if b { "yes" } else { "no" };
        for a in adapters {
            let subgroup = if a.subgroup_max_size > a.subgroup_size {
                format!("{} to {}", a.subgroup_size, a.subgroup_max_size)
            } else {
                a.subgroup_size.to_string()
            };
            let shapes: Vec<String> = a.cooperative_matrices.iter().map(|s| s.to_string()).collect();
            println!(
                "        vulkan:{} {} ({}, {}): subgroup size {subgroup}, {} KiB workgroup memory, {} MiB per \
                 binding, passthrough {}, f32 atomic add {}, subgroup operations {}, f16 and 16-bit storage {}, \
                 VK_NV_cooperative_matrix2 {}, per-element matrix operations {}, cooperative matrices {}{}",
                a.index,
                a.name,
                a.device_type,
                a.driver,
                a.workgroup_memory_bytes / 1024,
                a.max_binding_bytes >> 20,
                yes_no(a.passthrough),
                yes_no(a.float32_atomic_add),
                yes_no(a.subgroups),
                yes_no(a.float16),
                match &a.workgroup_matrices {
                    None => "no".to_string(),
                    Some(m) if m.shapes.is_empty() => "offered without workgroup-scope shapes".to_string(),
                    Some(m) => format!(
                        "workgroup scope {} (dimensions up to {}, workgroups up to {}, tensor addressing {}, \
                         reductions and conversions {}, {} bytes of workgroup memory kept by the driver; GEMM \
                         loops and attention on them unless TRIDENT_VULKAN_WORKGROUP_MATRICES=0)",
                        m.shapes.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "),
                        m.max_dimension,
                        m.max_workgroup_size,
                        yes_no(m.tensor_addressing),
                        yes_no(m.reductions_and_conversions),
                        m.reserved_shared_bytes
                    ),
                },
                yes_no(a.per_element_matrix_operations),
                if shapes.is_empty() { "none".to_string() } else { shapes.join(", ") },
                if a.bfloat16_cooperative_matrices { " (bf16 through VK_KHR_shader_bfloat16)" } else { "" }
            );
        }
    }
}
