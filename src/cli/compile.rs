//! `trident compile`: write an artifact (TTIR, PTX, cubin) to `-o PATH` or stdout; nothing
//! launched.
//!
//! PTX is compiled for `--target` or, without it, for the selected GPU when there is one
//! (sm_90a on compute capability 9.0, sm_80 on other GPUs), else sm_90a. A cubin is the PTX
//! assembled by `ptxas` (see [`super::ptxas`]), which must be installed; `--verbose` prints its
//! register and spill counts.
//!
//! `@FILE.npy` arguments are read only for their headers (dtype and alignment); `--grid` is
//! accepted and ignored, so that one command line serves `run` and `compile`. An autotuned kernel
//! is compiled for `--config N`, or config 0, and stderr says which.
//!
//! PTX, cubins and SPIR-V (also under `spvasm` and `wgsl`) come from the on-disk cache when it has
//! them ([`super::cached`]): a hit skips the frontend and prints the warnings the compilation
//! printed; `--verbose` says `cache: hit PATH` or `cache: stored PATH`. TTIR and TTGIR are always
//! compiled.

use std::path::Path;

use trident_midend::ir::print_module;
use trident_runtime::cache::artifacts::Compiled;
use trident_runtime::cuda::{self, Probe};

use super::args::{self, DataMode, Launch};
use super::autotune;
use super::cached::{self, Origin};
use super::error::{usage, CliError};
use super::{nvptx, ptxas, spirv, CompileArgs, Emit, Target};
use crate::Artifact;
use trident_backend_spirv::Mode;

pub fn compile(args: &CompileArgs) -> Result<(), CliError> {
    if args.emit == Emit::Cubin {
        return cubin(args);
    }
    if args.emit == Emit::Spirv {
        return spirv_binary(args);
    }
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

/// The artifact's text. For the binary artifacts the kernel is compiled first, so that kernel
/// errors come before the usage error.
pub fn emit(args: &CompileArgs) -> Result<String, CliError> {
    let mut launch = args::prepare(&args.spec, DataMode::HeaderOnly)?;
    autotune::choose_for_compile(&mut launch)?;
    match args.emit {
        Emit::Ttir => Ok(print_module(&launch.compile()?)),
        Emit::Ptx => Ok(ptx(args, &launch)?.artifact.ptx),
        Emit::Cubin => {
            launch.compile()?;
            usage("--emit cubin writes a binary file: give -o FILE")
        }
        Emit::Ttgir => {
            let module = launch.compile()?;
            let sm = target_sm(args.target);
            let ttgir = crate::lower_to_ttgir(&module, &launch.path, &launch.spec, sm, &launch.pipeline)?;
            Ok(print_module(&ttgir))
        }
        Emit::Spirv => {
            launch.compile()?;
            usage("--emit spirv writes a binary file: give -o FILE")
        }
        Emit::Spvasm => {
            let artifact = spirv_artifact(args, &launch, None)?;
            Ok(trident_backend_spirv::disassemble(&artifact.words))
        }
        Emit::Wgsl => {
            let artifact = spirv_artifact(args, &launch, Some(Mode::Portable))?;
            trident_runtime::wgpu::to_wgsl(&artifact.words).map_err(|message| {
                CliError::Internal(format!(
                    "internal compiler error: the spirv backend's portable module does not translate to WGSL: \
                     {message}"
                ))
            })
        }
    }
}

/// Lowers the kernel to SPIR-V for the first Vulkan adapter here (its workgroup memory and
/// dialect), or for defaults (32 KiB, Vulkan) without one; from the cache when it has it.
fn spirv_artifact(
    args: &CompileArgs,
    launch: &Launch,
    mode: Option<Mode>,
) -> Result<trident_backend_spirv::Artifact, CliError> {
    let device = trident_runtime::wgpu::WgpuDevice::open(None).ok().flatten();
    let mode = mode.or(Some(Mode::Vulkan));
    let target = spirv::target_for(device.as_ref(), mode);
    let (compiled, origin) = cached::spirv(launch, None, target.clone())?;
    let artifact = compiled.artifact;
    if args.verbose {
        eprintln!("{}", origin.describe());
        eprintln!(
            "{}: {:?} SPIR-V, workgroup size {}, {} bytes of workgroup memory, {} threads per warp, {} bindings",
            artifact.entry_name,
            artifact.mode,
            artifact.workgroup_size[0],
            artifact.workgroup_memory_bytes,
            target.threads_for(launch.spec.num_warps),
            artifact.uniform_binding + 1
        );
    }
    Ok(artifact)
}

/// `--emit spirv -o FILE`: the SPIR-V binary.
fn spirv_binary(args: &CompileArgs) -> Result<(), CliError> {
    let Some(output) = args.output.as_deref() else {
        return usage("--emit spirv writes a binary file: give -o FILE");
    };
    let mut launch = args::prepare(&args.spec, DataMode::HeaderOnly)?;
    autotune::choose_for_compile(&mut launch)?;
    let artifact = spirv_artifact(args, &launch, None)?;
    let bytes: Vec<u8> = artifact.words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(output, bytes)
        .map_err(|e| CliError::Failed(format!("cannot write {}: {e}", output.display())))
}

/// The compute capability to compile for: `--target`, else the selected GPU's, else sm_90a.
fn target_sm(target: Option<Target>) -> u32 {
    match target {
        Some(Target::Sm80) => 80,
        Some(Target::Sm90a) => 90,
        None => {
            let Probe::Present { devices, .. } = cuda::probe() else { return 90 };
            let ordinal = cuda::selected_ordinal().unwrap_or(0);
            devices
                .iter()
                .find(|d| d.ordinal == ordinal)
                .and_then(|d| nvptx::sm_for(d.compute_capability).ok())
                .unwrap_or(90)
        }
    }
}

/// Lowers the kernel to PTX for the target the flags give, or takes it from the cache.
fn ptx(args: &CompileArgs, launch: &Launch) -> Result<Compiled<Artifact>, CliError> {
    let sm = target_sm(args.target);
    let (compiled, origin) = cached::ptx(launch, None, sm)?;
    let artifact = &compiled.artifact;
    if args.verbose {
        eprintln!("{}", origin.describe());
        eprintln!(
            "{}: .target {}, {} threads per block, {} bytes of dynamic shared memory, {} parameters",
            artifact.kernel_name,
            trident_backend_nvptx::Options { sm, num_warps: launch.spec.num_warps }.target_name(),
            artifact.threads_per_block,
            artifact.shared_bytes,
            artifact.params.len()
        );
    }
    Ok(compiled)
}

/// `--emit cubin -o FILE`: the PTX through ptxas (or the cubin from the cache); `--verbose`
/// prints registers and spills.
fn cubin(args: &CompileArgs) -> Result<(), CliError> {
    let Some(output) = args.output.as_deref() else {
        return usage("--emit cubin writes a binary file: give -o FILE");
    };
    let mut launch = args::prepare(&args.spec, DataMode::HeaderOnly)?;
    autotune::choose_for_compile(&mut launch)?;
    let sm = target_sm(args.target);
    let ptxas = match ptxas::find() {
        Ok(ptxas) => ptxas,
        Err(message) => {
            // Kernel errors come first: compile the PTX, then say that ptxas is missing.
            ptx(args, &launch)?;
            return Err(CliError::Failed(message));
        }
    };
    let gpu_name = cached::sm_name(sm);
    let assemble = |ptx: &str| {
        let kernels = ptxas::assemble(&ptxas, ptx, gpu_name, Path::new(output)).map_err(|message| {
            CliError::Internal(format!(
                "internal compiler error: the nvptx backend produced PTX that ptxas rejects\n{message}"
            ))
        })?;
        let bytes = std::fs::read(output)
            .map_err(|e| CliError::Failed(format!("cannot read back {}: {e}", output.display())))?;
        Ok((bytes, kernels))
    };
    let ptxas_id = cached::ptxas_identity(&ptxas);
    let (cubin, origin) = cached::cubin(&launch, sm, &ptxas_id, || ptx(args, &launch), assemble)?;
    if let Origin::Hit(_) = origin {
        std::fs::write(output, &cubin.bytes)
            .map_err(|e| CliError::Failed(format!("cannot write {}: {e}", output.display())))?;
    }
    if args.verbose {
        eprintln!("{}", origin.describe());
        for kernel in cubin.resources {
            println!(
                "{} ({gpu_name}): {} registers, {} bytes spill stores, {} bytes spill loads",
                kernel.kernel, kernel.registers, kernel.spill_store_bytes, kernel.spill_load_bytes
            );
        }
    }
    Ok(())
}

/// `trident compile FILE FLAGS... --emit ttir`, in process: the TTIR text or the error. The
/// golden tests use this, so they test exactly what the command prints.
pub fn emit_ttir_with_flags(file: &str, flags: &[String]) -> Result<String, CliError> {
    emit_with_flags(file, flags, &["--emit", "ttir"])
}

/// [`emit_ttir_with_flags`] for any stage: `stage` are the extra flags (`--emit ttgir --target
/// sm_90a`, ...). Used by the golden tests of every stage, which test the compiler: the on-disk
/// cache is neither read nor written (`--no-cache`).
pub fn emit_with_flags(file: &str, flags: &[String], stage: &[&str]) -> Result<String, CliError> {
    let argv = ["trident", "compile", file, "--no-cache"].into_iter().map(String::from);
    let argv = argv.chain(flags.iter().cloned()).chain(stage.iter().map(|s| s.to_string()));
    match <super::Cli as clap::Parser>::try_parse_from(argv) {
        Ok(super::Cli { command: super::Command::Compile(args) }) => emit(&args),
        Ok(_) => Err(CliError::Internal("`trident compile` parsed as another command".into())),
        Err(error) => Err(CliError::Usage(error.to_string())),
    }
}
