//! trident-frontend: `@triton.jit` Python source -> TTIR.
//!
//! The frontend knows nothing of GPUs or backends. It parses a kernel file with Ruff's parser,
//! finds the jit functions, module constants and imports, and lowers one kernel for one
//! [`Specialization`] (constexpr values and argument types) to a TTIR [`Module`], evaluating at
//! compile time what Triton evaluates at compile time. Helpers called by the kernel become
//! separate, specialized functions reached by `tt.call` (the midend inlines them). User errors
//! come back as [`Diagnostics`] with spans into the source, rendered with the Python line and a
//! caret.

pub mod diagnostics;
pub mod spec;

pub use diagnostics::{Diagnostic, Diagnostics};
pub use spec::{ArgSpec, ConstValue, Specialization};

use trident_midend::ir::Module;

/// Lowers kernel `kernel` of the Python file `path` (with text `source`) to TTIR.
pub fn compile_kernel(
    path: &str,
    source: &str,
    kernel: &str,
    spec: &Specialization,
) -> Result<Module, Diagnostics> {
    let _ = (source, kernel, spec);
    Err(Diagnostics::single(path, source, Diagnostic::error("the frontend is not written yet", None)))
}
