//! trident-frontend: `@triton.jit` Python source -> TTIR.
//!
//! The frontend knows nothing of GPUs or backends. It parses a kernel file with Ruff's parser
//! (`program.rs`), finds the jit functions, module constants and imports, and lowers one kernel
//! for one [`Specialization`] (constexpr values and argument types) to a TTIR [`Module`]
//! (`lower/`), evaluating at compile time what Triton evaluates at compile time and calling into
//! the language surface in `builtins/`, then checks Triton's shape rules on every tensor the
//! module makes and trident's limit on the size of the kernel after inlining and unrolling
//! (`limits.rs`). Helpers called by the kernel become separate, specialized
//! functions reached by `tt.call` (the midend inlines them). User errors come back as
//! [`Diagnostics`] with spans into the source, rendered with the Python line and a caret.
//!
//! `@triton.autotune` and `@triton.heuristics` are read by `decorators/` without Python: the
//! configs are returned to the caller ([`kernel_decorations`]), which picks one and puts its
//! values in the [`Specialization`]; the heuristics run in [`compile_kernel`] where Triton runs
//! them: after the config when stacked below `@triton.autotune`, before it (blind to its
//! meta-parameters) when stacked above. [`specialize_before_config`] gives the caller what the
//! autotuner itself receives, for its key.

pub mod builtins;
pub mod decorators;
pub mod diagnostics;
pub mod limits;
pub mod lower;
pub mod program;
pub mod spec;
pub mod value;

pub use decorators::{Autotune, Config, Decorations};
pub use diagnostics::{Diagnostic, Diagnostics};
pub use spec::{descriptor_field, descriptor_fields, ArgSpec, ConstValue, DescriptorField, Specialization};

use trident_midend::ir::Module;

/// Lowers kernel `kernel` of the Python file `path` (with text `source`) to TTIR.
pub fn compile_kernel(
    path: &str,
    source: &str,
    kernel: &str,
    spec: &Specialization,
) -> Result<Module, Diagnostics> {
    let wrap = |d: Diagnostic| Diagnostics::single(path, source, d);
    let program = parse(path, source)?;
    // The heuristics complete the specialization before lowering (a missing kernel is reported
    // by `lower_kernel`, with the list of kernels).
    let spec = with_heuristics(&program, kernel, spec).map_err(wrap)?;
    let mut compiler = lower::Compiler::new(&program, &spec);
    compiler.lower_kernel(kernel).map_err(wrap)?;
    limits::check_tensor_shapes(&compiler.module).map_err(wrap)?;
    limits::check_kernel_size(&compiler.module, spec.num_warps).map_err(wrap)?;
    Ok(compiler.module)
}

/// The program of `source` (the file `path`); a syntax error rendered against it.
fn parse(path: &str, source: &str) -> Result<program::Program, Diagnostics> {
    program::Program::parse(path, source).map_err(|d| Diagnostics::single(path, source, d))
}

/// What `@triton.autotune` and `@triton.heuristics` say about kernel `kernel` of `path`. A file
/// that does not parse, or has no such jit function, has none: compiling it reports that.
pub fn kernel_decorations(path: &str, source: &str, kernel: &str) -> Result<Decorations, Diagnostics> {
    let Ok(program) = program::Program::parse(path, source) else { return Ok(Decorations::default()) };
    match program.function(kernel) {
        Some(def) => decorators::read(&program, def).map_err(|d| Diagnostics::single(path, source, d)),
        None => Ok(Decorations::default()),
    }
}

/// `spec` completed by the heuristics of kernel `kernel` (for what the launch needs besides the
/// compiled kernel: a grid written as an expression over the meta-parameters).
pub fn specialize(
    path: &str,
    source: &str,
    kernel: &str,
    spec: &Specialization,
) -> Result<Specialization, Diagnostics> {
    let wrap = |d: Diagnostic| Diagnostics::single(path, source, d);
    let program = parse(path, source)?;
    with_heuristics(&program, kernel, spec).map_err(wrap)
}

/// `spec`, the launch's own specialization before any config, completed by the heuristics stacked
/// above kernel `kernel`'s `@triton.autotune`: the arguments Triton's autotuner receives, which its
/// `key` may name. Without such heuristics, `spec` as it is.
pub fn specialize_before_config(
    path: &str,
    source: &str,
    kernel: &str,
    spec: &Specialization,
) -> Result<Specialization, Diagnostics> {
    let wrap = |d: Diagnostic| Diagnostics::single(path, source, d);
    let program = parse(path, source)?;
    let Some(def) = program.function(kernel) else { return Ok(spec.clone()) };
    let decorations = decorators::read(&program, def).map_err(wrap)?;
    decorators::apply_heuristics_before_config(&program, def, &decorations, spec).map_err(wrap)
}

/// `spec` with the values of kernel `kernel`'s heuristics (unchanged when it has none, or when
/// the file has no such kernel).
fn with_heuristics(
    program: &program::Program,
    kernel: &str,
    spec: &Specialization,
) -> Result<Specialization, Diagnostic> {
    match program.function(kernel) {
        Some(def) => {
            let decorations = decorators::read(program, def)?;
            decorators::apply_heuristics(program, def, &decorations, spec)
        }
        None => Ok(spec.clone()),
    }
}
