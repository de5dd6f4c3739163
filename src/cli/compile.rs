//! `trident compile`: write an artifact (today TTIR) to `-o PATH` or stdout; nothing launched.
//!
//! `@FILE.npy` arguments are read only for their headers (dtype and alignment); `--grid` is
//! accepted and ignored, so that one command line serves `run` and `compile`.

use trident_midend::ir::print_module;

use super::args::{self, DataMode};
use super::error::CliError;
use super::{CompileArgs, Emit};

pub fn compile(args: &CompileArgs) -> Result<(), CliError> {
    let text = emit(args)?;
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| CliError::Failed(format!("cannot write {}: {e}", path.display()))),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

/// The artifact's text. The kernel is compiled first, so that kernel errors come before "not
/// available yet" for the stages that do not exist.
pub fn emit(args: &CompileArgs) -> Result<String, CliError> {
    let launch = args::prepare(&args.spec, DataMode::HeaderOnly)?;
    let module = launch.compile()?;
    let missing = match args.emit {
        Emit::Ttir => return Ok(print_module(&module)),
        Emit::Ttgir => "--emit ttgir: the TTIR -> TTGIR conversion (layouts) is not built",
        Emit::Ptx | Emit::Cubin => "--emit ptx/cubin: the nvptx backend is not built",
        Emit::Spirv | Emit::Spvasm | Emit::Wgsl => "--emit spirv/spvasm/wgsl: the spirv backend is not built",
    };
    Err(CliError::Unavailable(missing.to_string()))
}

/// `trident compile FILE FLAGS... --emit ttir`, in process: the TTIR text or the error. The
/// golden tests use this, so they test exactly what the command prints.
pub fn emit_ttir_with_flags(file: &str, flags: &[String]) -> Result<String, CliError> {
    let argv = ["trident", "compile", file].into_iter().map(String::from);
    let argv = argv.chain(flags.iter().cloned()).chain(["--emit".to_string(), "ttir".to_string()]);
    match <super::Cli as clap::Parser>::try_parse_from(argv) {
        Ok(super::Cli { command: super::Command::Compile(args) }) => emit(&args),
        Ok(_) => Err(CliError::Internal("`trident compile` parsed as another command".into())),
        Err(error) => Err(CliError::Usage(error.to_string())),
    }
}
