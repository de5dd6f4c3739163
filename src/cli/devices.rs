//! Backends and devices: what `--backend auto` picks, and what `trident devices` lists.
//!
//! Built today: the reference interpreter, and nvptx on CUDA GPUs (when this machine has one;
//! the driver is loaded at run time). spirv is planned: asking for it is an error that says so.
//! `auto` picks nvptx when a GPU is present and the backend compiles the kernel, else interp,
//! and says which on stderr, once.

use trident_midend::ir::Module;
use trident_runtime::cuda::{self, Probe};

use super::args::Launch;
use super::error::CliError;
use super::nvptx::{self, GpuKernel};
use super::Backend;
use crate::CompileError;

/// Why a backend that is not built cannot run here, or `None` when it is built. Whether the
/// machine has the device is a separate question ([`choose`], [`print_devices`]).
pub fn unavailable_reason(backend: Backend) -> Option<&'static str> {
    match backend {
        Backend::Interp | Backend::Auto | Backend::Nvptx => None,
        Backend::Spirv => {
            Some("the spirv backend is not built (SPIR-V emission and the Vulkan device are planned)")
        }
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
}

impl Chosen {
    pub fn name(&self) -> &'static str {
        match self {
            Chosen::Interp => "interp",
            Chosen::Nvptx(_) => "nvptx",
        }
    }
}

/// Picks the backend for a launch of `module` (TTIR). An explicit backend that cannot run is an
/// error saying why; `auto` falls back to interp with one note on stderr.
pub fn choose(backend: Backend, launch: &Launch, module: &Module) -> Result<Chosen, CliError> {
    match backend {
        Backend::Interp => Ok(Chosen::Interp),
        Backend::Spirv => {
            require_built(backend)?;
            Ok(Chosen::Interp)
        }
        Backend::Nvptx => Ok(Chosen::Nvptx(Box::new(nvptx::prepare(launch, module)?))),
        Backend::Auto => {
            let device = match nvptx::open_device()? {
                Ok(device) => device,
                Err(reason) => {
                    eprintln!("note: --backend auto: no CUDA GPU ({reason}); running on interp");
                    return Ok(Chosen::Interp);
                }
            };
            let artifact = match nvptx::compile_for(launch, module, &device) {
                Ok(artifact) => artifact,
                Err(CompileError::User(diagnostics)) => {
                    let first = diagnostics.render();
                    let first = first.lines().next().unwrap_or_default().trim_start_matches("error: ");
                    eprintln!(
                        "note: --backend auto: nvptx cannot compile {} ({first}); running on interp",
                        launch.kernel
                    );
                    return Ok(Chosen::Interp);
                }
                Err(internal) => return Err(internal.into()),
            };
            eprintln!("note: --backend auto: running on nvptx ({})", nvptx::describe(&device));
            Ok(Chosen::Nvptx(Box::new(nvptx::load(device, artifact)?)))
        }
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
    let reason = unavailable_reason(Backend::Spirv).unwrap_or_default();
    println!("spirv   not built yet  {reason}");
}
