//! trident-frontend: `@triton.jit` Python source -> TTIR.
//!
//! The frontend knows nothing of GPUs or backends. It parses a kernel file with Ruff's parser
//! (`program.rs`), finds the jit functions, module constants and imports, and lowers one kernel
//! for one [`Specialization`] (constexpr values and argument types) to a TTIR [`Module`]
//! (`lower/`), evaluating at compile time what Triton evaluates at compile time and calling into
//! the language surface in `builtins/`. Helpers called by the kernel become separate, specialized
//! functions reached by `tt.call` (the midend inlines them). User errors come back as
//! [`Diagnostics`] with spans into the source, rendered with the Python line and a caret.

pub mod builtins;
pub mod diagnostics;
pub mod lower;
pub mod program;
pub mod spec;
pub mod value;

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
    let wrap = |d: Diagnostic| Diagnostics::single(path, source, d);
    let program = program::Program::parse(path, source).map_err(wrap)?;
    let mut compiler = lower::Compiler::new(&program, spec);
    compiler.lower_kernel(kernel).map_err(wrap)?;
    Ok(compiler.module)
}
