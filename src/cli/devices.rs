//! Backends and devices: what `--backend auto` picks, and what `trident devices` lists.
//!
//! Today only the reference interpreter is built. The nvptx and spirv backends (and the CUDA and
//! Vulkan devices behind them) are planned; asking for them explicitly is an error that says so,
//! and `auto` falls back to interp with one note on stderr.

use super::error::CliError;
use super::Backend;

/// Why a backend cannot run here, or `None` when it can.
pub fn unavailable_reason(backend: Backend) -> Option<&'static str> {
    match backend {
        Backend::Interp | Backend::Auto => None,
        Backend::Nvptx => {
            Some("the nvptx backend is not built (PTX emission and the CUDA device are planned)")
        }
        Backend::Spirv => {
            Some("the spirv backend is not built (SPIR-V emission and the Vulkan device are planned)")
        }
    }
}

/// The backend a launch runs on. `auto` prefers nvptx, then spirv, then interp, and says on
/// stderr when it falls back; an explicit backend that is not built is an error.
pub fn resolve(backend: Backend) -> Result<Backend, CliError> {
    match backend {
        Backend::Auto => {
            eprintln!(
                "note: --backend auto: no CUDA or Vulkan backend is built into this trident; running on interp"
            );
            Ok(Backend::Interp)
        }
        Backend::Interp => Ok(Backend::Interp),
        other => Err(CliError::Unavailable(unavailable_reason(other).unwrap_or_default().to_string())),
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

/// `trident devices`: one line per backend.
pub fn print_devices() {
    println!("interp  available      the reference interpreter (CPU)");
    for backend in [Backend::Nvptx, Backend::Spirv] {
        let reason = unavailable_reason(backend).unwrap_or_default();
        println!("{:<7} not built yet  {reason}", backend_name(backend));
    }
}
