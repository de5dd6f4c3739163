//! trident: a Triton compiler. This crate is the command line (`src/main.rs`, [`cli`]) and the
//! Rust API that the command line and the tests share.
//!
//! The API is one step per stage, each a function over plain values:
//!
//! - [`compile_ttir`]: Python source + kernel name + [`Specialization`] -> TTIR [`Module`], the
//!   frontend followed by the TTIR pass pipeline. User errors come back as
//!   [`CompileError::User`] (spanned [`Diagnostics`], rendered with the Python line and a caret);
//!   a pass that fails is an internal compiler error, [`CompileError::Internal`], a different type
//!   of failure (STYLE rule 21).
//! - [`lower_to_ptx`] / [`compile_ptx`]: TTIR -> TTGIR (for an NVIDIA [`Target`]) -> PTX
//!   [`Artifact`] through `trident-backend-nvptx`. An op the backend has no rule for yet is a
//!   user-facing error rendered with its Python line, like a compile error; a module the
//!   backend calls invalid is an internal compiler error.
//! - [`run_interp`]: runs a compiled module on the reference interpreter, binding arguments by
//!   the compiled kernel's parameter names; [`kernel_args`] does the binding for other devices.
//!
//! Besides the stages, the command line keeps compiled kernels and autotune choices on disk between
//! commands through `trident_runtime::cache`, keyed by everything they depend on (the kernel's
//! file, the specialization, the target, the device, and this trident's version and build id):
//! the CLI decides what to look up and what to compile on a miss (`cli/cached.rs`,
//! `cli/autotune.rs`), the runtime stores, checks and lists the entries.
//!
//! The Python package (`python/`, `trident._native`) launches kernels through the same functions as
//! `trident run`: it builds a launch from Python values with [`cli::inputs`] (the checks both front
//! ends share, worded for each) and runs it with [`cli::run::launch_once`].
//!
//! What this crate does not do: lower anything itself. It glues `trident-frontend`,
//! `trident-midend` and `trident-runtime` together, parses command lines and formats results.
//! Only this crate parses command lines; the runtime owns devices, the files of a launch and the
//! cache directory.

pub mod allocator;
pub mod cli;
pub mod golden;

use std::fmt;

use trident_midend::ir::Module;
use trident_runtime::interp::RuntimeError;
use trident_runtime::{ArgValue, Buffer, Grid};

pub use trident_backend_nvptx::{Artifact, ParamAbi};
pub use trident_frontend::{ArgSpec, ConstValue, Diagnostic, Diagnostics, Specialization};
pub use trident_midend::pipeline::PipelineOptions;
pub use trident_midend::target::Target;
pub use trident_runtime::wgpu::{SpirvTarget, SPIRV_THREADS_PER_WARP};

/// Why a compilation failed.
#[derive(Debug, Clone)]
pub enum CompileError {
    /// The kernel is wrong: errors with spans into the Python source.
    User(Diagnostics),
    /// The compiler is wrong: a pass failed on IR the frontend produced.
    Internal {
        /// The stage that failed ("ttir pipeline", ...).
        stage: &'static str,
        message: String,
        /// A one-line command that reproduces the failure.
        repro: String,
    },
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileError::User(diagnostics) => f.write_str(&diagnostics.render()),
            CompileError::Internal { stage, message, repro } => {
                if message.starts_with("internal compiler error") {
                    writeln!(f, "{}", message.trim_end())?;
                } else {
                    writeln!(f, "internal compiler error in the {stage}: {}", message.trim_end())?;
                }
                writeln!(f, "this is a bug in trident, not in the kernel; reproduce it with:")?;
                write!(f, "    {repro}")
            }
        }
    }
}

impl std::error::Error for CompileError {}

/// Compiles kernel `kernel` of the Python file `path` (text `source`) to TTIR, specialized on
/// `spec`: the frontend, then the TTIR pass pipeline. This is what `trident compile --emit ttir`
/// prints and what the interpreter runs.
pub fn compile_ttir(
    path: &str,
    source: &str,
    kernel: &str,
    spec: &Specialization,
) -> Result<Module, CompileError> {
    compile_ttir_with(path, source, kernel, spec, &PipelineOptions::default())
}

/// [`compile_ttir`] with pipeline options (`--dump-after`, verification in release builds).
pub fn compile_ttir_with(
    path: &str,
    source: &str,
    kernel: &str,
    spec: &Specialization,
    options: &PipelineOptions,
) -> Result<Module, CompileError> {
    let mut module =
        trident_frontend::compile_kernel(path, source, kernel, spec).map_err(CompileError::User)?;
    if let Err(error) = trident_midend::pipeline::run_ttir(&mut module, options) {
        return Err(CompileError::Internal {
            stage: "ttir pipeline",
            message: error.to_string(),
            repro: format!("trident compile {path} --kernel {kernel} --emit ttir {}", spec_flags(spec)),
        });
    }
    Ok(module)
}

/// Compiles kernel `kernel` of `path` all the way to PTX for compute capability `sm` (80 or 90)
/// with `num_warps` warps: the frontend, the TTIR pipeline, the TTGIR pipeline for
/// [`Target::nvidia`], then the nvptx backend.
pub fn compile_ptx(
    path: &str,
    source: &str,
    kernel: &str,
    spec: &Specialization,
    sm: u32,
    num_warps: u32,
) -> Result<Artifact, CompileError> {
    let module = compile_ttir(path, source, kernel, spec)?;
    let spec = Specialization { num_warps, ..spec.clone() };
    lower_to_ptx(&module, path, source, &spec, sm, &PipelineOptions::default())
}

/// Lowers a TTIR module (from [`compile_ttir`]) to PTX for compute capability `sm`, with the
/// warps of `spec`. `path`, `source` and `spec` serve the error messages; `options` are the
/// TTGIR pipeline's (`--dump-after`).
pub fn lower_to_ptx(
    ttir: &Module,
    path: &str,
    source: &str,
    spec: &Specialization,
    sm: u32,
    options: &PipelineOptions,
) -> Result<Artifact, CompileError> {
    let kernel = ttir.kernel().map_or("?", |f| f.name.as_str()).to_string();
    let target_flag = if sm >= 90 { "sm_90a" } else { "sm_80" };
    let repro = |emit: &str| {
        format!(
            "trident compile {path} --kernel {kernel} --emit {emit} --target {target_flag} {}",
            spec_flags(spec)
        )
    };
    let module = lower_to_ttgir(ttir, path, spec, sm, options)?;
    let options = trident_backend_nvptx::Options { sm, num_warps: spec.num_warps };
    trident_backend_nvptx::emit(&module, &options).map_err(|error| match error {
        trident_backend_nvptx::Error::Unsupported { op, detail, span } => {
            let message = format!("the nvptx backend does not support {op} yet: {detail}");
            let diagnostic = Diagnostic::error(message, span);
            CompileError::User(Diagnostics::single(path, source, diagnostic))
        }
        trident_backend_nvptx::Error::Resources { op, detail, span } => {
            let message = format!("{op} needs more than {target_flag} has: {detail}");
            CompileError::User(Diagnostics::single(path, source, Diagnostic::error(message, span)))
        }
        trident_backend_nvptx::Error::Invalid(m) => CompileError::Internal {
            stage: "nvptx backend",
            message: format!("invalid module for the nvptx backend: {m}"),
            repro: repro("ptx"),
        },
    })
}

/// Runs the TTGIR pipeline (layouts) on a TTIR module for an NVIDIA GPU of compute capability
/// `sm` with the warps of `spec`, with the pipeline `options` (`--dump-after` a TTGIR pass).
pub fn lower_to_ttgir(
    ttir: &Module,
    path: &str,
    spec: &Specialization,
    sm: u32,
    options: &PipelineOptions,
) -> Result<Module, CompileError> {
    let mut module = ttir.clone();
    let target = Target { num_stages: spec.num_stages, ..Target::nvidia(sm, spec.num_warps) };
    if let Err(error) = trident_midend::pipeline::run_ttgir(&mut module, &target, options) {
        let kernel = ttir.kernel().map_or("?", |f| f.name.as_str()).to_string();
        let target_flag = if sm >= 90 { "sm_90a" } else { "sm_80" };
        return Err(CompileError::Internal {
            stage: "ttgir pipeline",
            message: error.to_string(),
            repro: format!(
                "trident compile {path} --kernel {kernel} --emit ttgir --target {target_flag} {}",
                spec_flags(spec)
            ),
        });
    }
    Ok(module)
}

/// Lowers a TTIR module through the TTGIR pipeline (with `options`) to SPIR-V for `target`.
pub fn lower_to_spirv(
    ttir: &Module,
    path: &str,
    source: &str,
    spec: &Specialization,
    target: SpirvTarget,
    options: &PipelineOptions,
) -> Result<trident_backend_spirv::Artifact, CompileError> {
    let kernel = ttir.kernel().map_or("?", |f| f.name.as_str()).to_string();
    let repro =
        |emit: &str| format!("trident compile {path} --kernel {kernel} --emit {emit} {}", spec_flags(spec));
    let mut module = ttir.clone();
    let threads_per_warp = target.threads_for(spec.num_warps);
    let backend = trident_backend_spirv::Options {
        mode: target.mode,
        threads_per_warp,
        num_warps: spec.num_warps,
        workgroup_memory_limit: target.workgroup_memory_bytes,
        float32_atomic_add: target.float32_atomic_add,
        windowed_buffers: target.windowed_buffers,
        storage_16bit: target.storage_16bit,
        wide_accesses: target.wide_accesses,
        subgroup_size: target.subgroup_size,
        cooperative_matrix_f16: target.cooperative_matrix_f16,
        cooperative_matrix_bf16: target.cooperative_matrix_bf16,
        workgroup_matrices: target.workgroup_matrices,
        cooperative_matrix_per_element: target.cooperative_matrix_per_element,
    };
    let gpu = Target {
        threads_per_warp,
        num_warps: spec.num_warps,
        compute_capability: None,
        shared_memory_bytes: target.workgroup_memory_bytes,
        num_stages: spec.num_stages,
        loads_dot_operands_whole: backend.workgroup_matrices.is_some(),
        loads_tf32_operands_whole: backend.splits_tf32_dots(),
    };
    if let Err(error) = trident_midend::pipeline::run_ttgir(&mut module, &gpu, options) {
        return Err(CompileError::Internal {
            stage: "ttgir pipeline",
            message: error.to_string(),
            repro: repro("ttgir"),
        });
    }
    trident_backend_spirv::emit(&module, &backend).map_err(|error| match error {
        trident_backend_spirv::Error::Unsupported { op, detail, span } => {
            let message = format!("the spirv backend does not support {op}: {detail}");
            CompileError::User(Diagnostics::single(path, source, Diagnostic::error(message, span)))
        }
        trident_backend_spirv::Error::Resources { op, detail, span } => {
            let message = format!("{op} needs more than the Vulkan target has: {detail}");
            CompileError::User(Diagnostics::single(path, source, Diagnostic::error(message, span)))
        }
        trident_backend_spirv::Error::Invalid(m) => CompileError::Internal {
            stage: "spirv backend",
            message: format!("invalid module for the spirv backend: {m}"),
            repro: repro("spvasm"),
        },
    })
}

/// Why a launch on the interpreter failed.
#[derive(Debug, Clone)]
pub enum LaunchError {
    /// A compiled kernel parameter with no argument bound to it.
    MissingArgument(String),
    /// The module has no kernel.
    NoKernel,
    /// The interpreter stopped: out-of-bounds access, ... (with the span of the op when known).
    Runtime(RuntimeError),
}

/// Runs the kernel of `module` on the interpreter. `bind` gives the argument for each parameter
/// name of the compiled kernel (which may have fewer parameters than the Python function:
/// integers equal to 1 are specialized away, constexprs are never parameters).
pub fn run_interp(
    module: &Module,
    grid: Grid,
    bind: impl Fn(&str) -> Option<ArgValue>,
    buffers: &mut [Buffer],
) -> Result<(), LaunchError> {
    let kernel = module.kernel().ok_or(LaunchError::NoKernel)?;
    let args = kernel_args(module, bind)?;
    trident_runtime::interp::run(module, &kernel.name, grid, &args, buffers).map_err(LaunchError::Runtime)
}

/// The arguments of the kernel of `module`, in its parameter order: `bind` gives the value for
/// each compiled parameter name. The PTX of the same module takes the same parameters.
pub fn kernel_args(
    module: &Module,
    bind: impl Fn(&str) -> Option<ArgValue>,
) -> Result<Vec<ArgValue>, LaunchError> {
    let kernel = module.kernel().ok_or(LaunchError::NoKernel)?;
    let mut args = Vec::with_capacity(kernel.arg_names.len());
    for name in &kernel.arg_names {
        args.push(bind(name).ok_or_else(|| LaunchError::MissingArgument(name.clone()))?);
    }
    Ok(args)
}

/// Renders a runtime error like a compile error: with the Python line and a caret when the
/// error has a span.
pub fn runtime_diagnostics(path: &str, source: &str, error: &RuntimeError) -> Diagnostics {
    Diagnostics::single(path, source, Diagnostic::error(error.message.clone(), error.span))
}

/// The command-line flags that give `spec` (for reproduction commands).
pub fn spec_flags(spec: &Specialization) -> String {
    let mut flags =
        vec![format!("--num-warps {}", spec.num_warps), format!("--num-stages {}", spec.num_stages)];
    for (name, value) in &spec.constexprs {
        let text = match value {
            ConstValue::Int(v) => v.to_string(),
            ConstValue::Float(v) => format!("{v:?}"),
            ConstValue::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            ConstValue::DType(d) => d.triton_name().to_string(),
            ConstValue::Str(s) => s.clone(),
            ConstValue::None => "None".to_string(),
        };
        flags.push(format!("--const {name}={text}"));
    }
    for (name, arg) in &spec.args {
        let text = match arg {
            ArgSpec::Pointer { dtype, .. } => format!("*{}", dtype.triton_name()),
            ArgSpec::Int { value, dtype } => format!("{value}:{}", dtype.ir_name()),
            ArgSpec::Float { value, dtype } => format!("{value:?}:{}", dtype.ir_name()),
            // No flag gives a descriptor: shown as Triton types it, for the reader.
            ArgSpec::TensorDesc { dtype, block_shape, .. } => {
                let block: Vec<String> = block_shape.iter().map(i64::to_string).collect();
                format!("tensordesc<{}[{}]>", dtype.triton_name(), block.join(", "))
            }
        };
        flags.push(format!("--arg {name}={text}"));
    }
    flags.join(" ")
}
