//! The `trident` command line: `run`, `compile`, `check`, `bench`, `tune`, `cache` and `devices`
//! (and the hidden `selftest-cuda`, which proves the CUDA device path on a GPU machine).
//!
//! The grammar is ARCHITECTURE.md's "Command line" and the corpus README's "CLI contract". This
//! module holds the clap definitions and the dispatcher; each verb has its own file, and
//! [`args`] turns the shared specialization flags (`--const`, `--arg`, `--grid`, ...) into a
//! [`crate::Specialization`] plus the buffers and scalars of a launch.
//!
//! Exit codes: 0 on success; 1 when the kernel is wrong (a compile error rendered with the Python
//! line and a caret, then its message again on the last line), fails at run time, or asks for
//! something not built yet; 2 when the command line is wrong (an unknown argument name, a missing
//! `--arg` or `--const`, a bad grid, an unreadable file, a bad dtype). Nothing
//! a user types should make trident panic; if a bug does, [`ice`] reports it as an internal
//! compiler error with the command that reproduces it, and the exit code is 101.

pub mod args;
pub mod autotune;
pub mod bench;
pub mod cache;
pub mod cached;
pub mod check;
pub mod compare;
pub mod compile;
pub mod devices;
pub mod error;
pub mod ice;
pub mod inputs;
pub mod notes;
pub mod nvptx;
pub mod ptxas;
pub mod run;
pub mod selftest;
pub mod signature;
pub mod spirv;
pub mod tune;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub use error::CliError;

const ARG_HELP: &str = "A runtime argument of the kernel, by parameter name: NAME=@FILE.npy[:DTYPE] \
(a buffer read from the file; DTYPE overrides the element type: bf16 over uint16 data, fp8e4nv/fp8e5 \
over uint8 data), NAME=*DTYPE (a pointer to DTYPE without data, for `compile`), or NAME=VALUE[:DTYPE] \
(a scalar: i32 for ints, i64 when the value needs it, f32 for floats, unless typed \
:i32 :i64 :u32 :u64 :f32 :f64)";

const CONST_HELP: &str = "A tl.constexpr parameter: NAME=VALUE with an int, a float, True/False, None \
or a dtype name (fp16 bf16 fp32 fp64 i8 i16 i32 i64 u8 u16 u32 u64 fp8e4nv fp8e5)";

/// A Triton compiler: runs unmodified @triton.jit kernels.
#[derive(Parser, Debug)]
#[command(name = "trident", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Compile a kernel, launch it once and write every buffer to DIR/NAME.npy.
    Run(RunArgs),
    /// Compile a kernel and write an artifact (IR, PTX, SPIR-V); nothing is launched.
    Compile(CompileArgs),
    /// Run a kernel on every available backend and compare each buffer with interp.
    Check(CheckArgs),
    /// Time launches: warm-up, then the median of several; last line `BENCH median_ms=...`.
    Bench(BenchArgs),
    /// Time every @triton.autotune config, print them fastest first, store the winner.
    Tune(BenchArgs),
    /// The on-disk cache of compiled kernels and autotune choices: dir, list, clear.
    Cache {
        #[command(subcommand)]
        action: CacheAction,
    },
    /// List the backends and devices found on this machine.
    Devices,
    /// Prove the CUDA device path with hand-written PTX (for GPU machines; SKIP without a GPU).
    #[command(name = "selftest-cuda", hide = true)]
    SelftestCuda,
}

/// The flags that fix a compilation: kernel, constexprs, argument types, warps and stages.
#[derive(Args, Debug, Clone)]
pub struct SpecFlags {
    /// The Python file holding the @triton.jit kernel.
    pub file: PathBuf,
    /// The name of the @triton.jit function to compile.
    #[arg(long)]
    pub kernel: String,
    /// Launch grid: X[,Y[,Z]] programs, or a Python expression over the scalar arguments and
    /// meta-parameters (`cdiv(n_elements, BLOCK_SIZE)`; evaluated per autotune config).
    #[arg(long)]
    pub grid: Option<String>,
    /// For a kernel with @triton.autotune: use config N (0-based) instead of timing them all.
    #[arg(long, value_name = "N")]
    pub config: Option<usize>,
    /// Warps per program (Triton's num_warps).
    #[arg(long, default_value_t = 4)]
    pub num_warps: u32,
    /// Software-pipelining stages (Triton's num_stages).
    #[arg(long, default_value_t = 3)]
    pub num_stages: u32,
    #[arg(long = "const", value_name = "NAME=VALUE", help = CONST_HELP)]
    pub consts: Vec<String>,
    #[arg(long = "arg", value_name = "NAME=ARG", help = ARG_HELP)]
    pub args: Vec<String>,
    /// Print the IR to stderr after the pass with this name (TTIR: canonicalize, cse, dce, ...;
    /// TTGIR, where the kernel is lowered for nvptx or spirv: coalesce, accelerate-matmul, ...).
    /// The compiled-kernel cache is not used then, so that the passes run.
    #[arg(long, value_name = "PASS")]
    pub dump_after: Option<String>,
    /// Neither read nor write the on-disk cache (compiled kernels, autotune choices); see
    /// `trident cache dir`.
    #[arg(long)]
    pub no_cache: bool,
}

/// What `trident cache` does.
#[derive(Subcommand, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheAction {
    /// Print the cache directory (TRIDENT_CACHE_DIR, else the platform's cache directory).
    Dir,
    /// List the entries: kind, kernel, backend, target or device, size, age.
    List,
    /// Remove every entry, saying which.
    Clear,
}

/// Where a kernel runs.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// nvptx if a CUDA device is present, else spirv if a Vulkan adapter is, else interp.
    Auto,
    /// NVIDIA GPUs through PTX (needs a CUDA GPU; TRIDENT_CUDA_DEVICE picks one).
    Nvptx,
    /// Vulkan through SPIR-V (needs a Vulkan adapter; --adapter picks one).
    Spirv,
    /// The reference interpreter on the CPU.
    Interp,
}

#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    #[command(flatten)]
    pub spec: SpecFlags,
    /// Where the kernel runs.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    pub backend: Backend,
    /// Directory for the output buffers, written as DIR/NAME.npy and created if missing
    /// [run: default trident-out; check: the interp buffers, only when given].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The Vulkan adapter for --backend spirv: its index or part of its name (see `trident devices`).
    #[arg(long, value_name = "ADAPTER")]
    pub adapter: Option<String>,
}

/// What `compile` writes.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Emit {
    Ttir,
    Ttgir,
    Ptx,
    Cubin,
    Spirv,
    Spvasm,
    Wgsl,
}

/// An NVIDIA target for `--emit ptx|cubin`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    #[value(name = "sm_80")]
    Sm80,
    #[value(name = "sm_90a")]
    Sm90a,
}

#[derive(Args, Debug, Clone)]
pub struct CompileArgs {
    #[command(flatten)]
    pub spec: SpecFlags,
    /// The artifact to produce.
    #[arg(long, value_enum)]
    pub emit: Emit,
    /// The NVIDIA target for ptx and cubin [default: the GPU's when there is one, else sm_90a].
    #[arg(long, value_enum)]
    pub target: Option<Target>,
    /// Write the artifact here instead of stdout.
    #[arg(short = 'o', value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Print what the backend and ptxas report (launch metadata, registers, spills).
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Absolute tolerance for every buffer [default: by dtype: exact for integers, 1e-5 fp32,
    /// 1e-2 fp16, 2e-2 bf16, 1e-12 fp64].
    #[arg(long)]
    pub atol: Option<f64>,
    /// Relative tolerance for every buffer [default: as --atol].
    #[arg(long)]
    pub rtol: Option<f64>,
    /// Test-only: change element INDEX of buffer BUFFER in BACKEND's output before comparing
    /// (`interp` adds a second interp run to perturb), to prove disagreements are caught.
    #[arg(long, hide = true, value_name = "BACKEND:BUFFER:INDEX")]
    pub perturb: Option<String>,
}

#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Bytes one launch moves; adds GB/s to the BENCH line.
    #[arg(long)]
    pub bytes: Option<u64>,
    /// Floating-point operations of one launch; adds TFLOP/s to the BENCH line.
    #[arg(long)]
    pub flops: Option<u64>,
}

/// Parses `argv` and runs the command; returns the process exit code.
pub fn main(argv: impl IntoIterator<Item = std::ffi::OsString>) -> ExitCode {
    let argv: Vec<std::ffi::OsString> = argv.into_iter().collect();
    ice::install(&argv);
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(error) => {
            // clap prints help/version to stdout with code 0 and usage errors with code 2.
            let _ = error.print();
            return ExitCode::from(error.exit_code().clamp(0, 255) as u8);
        }
    };
    let result = match cli.command {
        Command::Run(args) => run::run(&args),
        Command::Compile(args) => compile::compile(&args),
        Command::Check(args) => check::check(&args),
        Command::Bench(args) => bench::bench(&args),
        Command::Tune(args) => tune::tune(&args),
        Command::Cache { action } => cache::cache(&action),
        Command::Devices => {
            devices::print_devices();
            Ok(())
        }
        Command::SelftestCuda => selftest::selftest_cuda(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprint!("{}", error.render());
            if let Some(summary) = error.summary() {
                eprintln!("{summary}");
            }
            ExitCode::from(error.exit_code())
        }
    }
}
