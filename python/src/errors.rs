//! trident's failures as Python exceptions.
//!
//! The exception classes live in Python (`trident/errors.py`), where one can derive from two bases
//! (`ArgumentError` is a `TypeError` too); this module picks the class and gives it the text that
//! the command line prints for the same failure:
//! - the kernel is wrong, at compile time or at run time: `KernelError`, with the file, the line,
//!   the Python line and a caret, then the one-line summary;
//! - the launch is wrong (a missing argument, a bad grid, conflicting meta-parameters):
//!   `ArgumentError`;
//! - the backend cannot run here (no GPU, no Vulkan adapter) or anything else stops the launch:
//!   `TridentError`;
//! - trident itself is wrong: `InternalError`, with the command that reproduces it;
//! - `TRIDENT_CHECK` found a backend's result that differs from interp's: `CheckError`.

use pyo3::prelude::*;
use trident::cli::error::CliError;

/// The exception for `error`.
pub fn to_python(py: Python<'_>, error: CliError) -> PyErr {
    let class = match &error {
        CliError::Kernel(_) => "KernelError",
        CliError::Usage(_) => "ArgumentError",
        CliError::Internal(_) => "InternalError",
        CliError::Unavailable(_) | CliError::Failed(_) => "TridentError",
    };
    let mut text = error.render();
    if let Some(summary) = error.summary() {
        text.push_str(&summary);
    }
    raise(py, class, text.trim_end().to_string())
}

/// A `KernelError` with `message` (already rendered).
pub fn kernel_error(py: Python<'_>, message: String) -> PyErr {
    raise(py, "KernelError", message)
}

/// A `CheckError` (`TRIDENT_CHECK` found a disagreement) with `message`.
pub fn check_error(py: Python<'_>, message: String) -> PyErr {
    raise(py, "CheckError", message)
}

/// An `ArgumentError` with `message`.
pub fn argument_error(py: Python<'_>, message: String) -> PyErr {
    raise(py, "ArgumentError", message)
}

/// An exception of class `trident.errors.<class>` with `message`.
fn raise(py: Python<'_>, class: &str, message: String) -> PyErr {
    let class = py.import("trident.errors").and_then(|module| module.getattr(class));
    match class {
        Ok(class) => {
            PyErr::from_type(class.cast_into().expect("trident.errors holds exception classes"), message)
        }
        // Without the pure-Python package (the extension imported on its own), a RuntimeError.
        Err(_) => pyo3::exceptions::PyRuntimeError::new_err(message),
    }
}
