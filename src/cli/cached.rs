//! Compiled kernels through the on-disk cache ([`trident_runtime::cache`]): look the kernel up, and on a
//! miss compile it and store it.
//!
//! Two callers, two ways to get the TTIR:
//! - `run`, `bench`, `check` and autotuning compile the TTIR first (the interpreter runs it, the
//!   launch binds arguments by its parameter names, and kernel errors must come before anything
//!   about devices), and pass it in: a hit saves the TTGIR pipeline and the backend;
//! - `trident compile` passes none: a hit skips the frontend too, and prints the warnings the
//!   compilation printed when it was stored (loop hints not applied), so that stderr is the same.
//!   What it cannot replay is `tl.static_print`, which, as in Triton, prints only when the kernel
//!   is compiled.
//!
//! The key needs the specialization the frontend compiles, which for a kernel with
//! `@triton.heuristics` includes their values: those are evaluated first (a parse of the file,
//! well under a millisecond). When they fail, the cache is skipped and the compilation reports the
//! error. `--dump-after` skips the cache too, so that the passes it asks to see run.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use trident_backend_spirv::Artifact as SpirvArtifact;
use trident_midend::ir::Module;
use trident_runtime::cache::artifacts::{self, Compiled, Cubin, KernelResources};
use trident_runtime::cache::keys::{self, Key, Target};
use trident_runtime::cache::{About, Kind};

use super::args::Launch;
use super::error::CliError;
use crate::{lower_to_ptx, lower_to_spirv, Artifact, SpirvTarget};

/// Where a compiled kernel came from, for `trident compile --verbose`.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// Loaded from this entry.
    Hit(PathBuf),
    /// Compiled now and stored in this entry.
    Stored(PathBuf),
    /// Compiled now, not stored (`--no-cache`, `--dump-after`, or the write failed).
    Compiled,
}

impl Origin {
    /// One line for stderr: `cache: hit PATH`, `cache: stored PATH`, `cache: not used`.
    pub fn describe(&self) -> String {
        match self {
            Origin::Hit(path) => format!("cache: hit {}", path.display()),
            Origin::Stored(path) => format!("cache: stored {}", path.display()),
            Origin::Compiled => "cache: not used".to_string(),
        }
    }
}

/// The key of the launch's kernel for `target`, or `None` when the cache is not used.
fn key(launch: &Launch, target: &Target) -> Option<Key> {
    if !launch.cache.is_on() || launch.pipeline.dump_after.is_some() {
        return None;
    }
    let spec = if launch.has_heuristics {
        let spec = trident_frontend::specialize(&launch.path, &launch.source, &launch.kernel, &launch.spec);
        Cow::Owned(spec.ok()?)
    } else {
        Cow::Borrowed(&launch.spec)
    };
    Some(keys::artifact(&launch.source, &launch.kernel, &spec, target))
}

/// The TTIR: `given`, or compiled now with its warnings printed. Returns the module and its
/// warnings.
fn ttir<'m>(launch: &Launch, given: Option<&'m Module>) -> Result<(Cow<'m, Module>, Vec<String>), CliError> {
    let module = match given {
        Some(module) => Cow::Borrowed(module),
        None => Cow::Owned(launch.compile_quietly()?),
    };
    let warnings = launch.warnings(&module);
    if given.is_none() {
        for warning in &warnings {
            eprint!("{warning}");
        }
    }
    Ok((module, warnings))
}

/// The compiled kernel's parameter names.
fn arg_names(module: &Module) -> Vec<String> {
    module.kernel().map(|kernel| kernel.arg_names.clone()).unwrap_or_default()
}

/// Prints the warnings of a kernel loaded from the cache, unless the caller compiled its TTIR
/// (and printed them) already.
fn replay(ttir_given: bool, warnings: &[String]) {
    if !ttir_given {
        for warning in warnings {
            eprint!("{warning}");
        }
    }
}

/// What `trident cache list` says about an entry's target.
fn about_target(launch: &Launch, target: &str) -> String {
    format!("{target}, {} warps, {} stages", launch.spec.num_warps, launch.spec.num_stages)
}

/// `sm_90a` or `sm_80`.
pub fn sm_name(sm: u32) -> &'static str {
    if sm >= 90 {
        "sm_90a"
    } else {
        "sm_80"
    }
}

/// The launch's kernel as PTX for compute capability `sm` (80 or 90), from the cache or compiled
/// from `module` (the TTIR; compiled here when `None`).
pub fn ptx(
    launch: &Launch,
    module: Option<&Module>,
    sm: u32,
) -> Result<(Compiled<Artifact>, Origin), CliError> {
    let key = key(launch, &Target::Ptx { sm });
    if let Some(key) = &key {
        if let Some(hit) = launch.cache.load(Kind::Ptx, key, artifacts::decode_ptx) {
            replay(module.is_some(), &hit.value.warnings);
            return Ok((hit.value, Origin::Hit(hit.path)));
        }
    }
    let (module, warnings) = ttir(launch, module)?;
    let artifact = lower_to_ptx(&module, &launch.path, &launch.source, &launch.spec, sm, &launch.pipeline)?;
    let compiled = Compiled { artifact, arg_names: arg_names(&module), warnings };
    let about = about_target(launch, sm_name(sm));
    let origin = store(launch, key, Kind::Ptx, "nvptx", &about, || artifacts::encode_ptx(&compiled));
    Ok((compiled, origin))
}

/// The launch's kernel as SPIR-V for `target`, from the cache or compiled from `module` (the
/// TTIR; compiled here when `None`).
pub fn spirv(
    launch: &Launch,
    module: Option<&Module>,
    target: SpirvTarget,
) -> Result<(Compiled<SpirvArtifact>, Origin), CliError> {
    let key = key(launch, &Target::Spirv(&target));
    if let Some(key) = &key {
        if let Some(hit) = launch.cache.load(Kind::Spirv, key, artifacts::decode_spirv) {
            replay(module.is_some(), &hit.value.warnings);
            return Ok((hit.value, Origin::Hit(hit.path)));
        }
    }
    let (module, warnings) = ttir(launch, module)?;
    let about = about_target(launch, &format!("{:?} SPIR-V", target.mode));
    let artifact =
        lower_to_spirv(&module, &launch.path, &launch.source, &launch.spec, target, &launch.pipeline)?;
    let compiled = Compiled { artifact, arg_names: arg_names(&module), warnings };
    let origin = store(launch, key, Kind::Spirv, "spirv", &about, || artifacts::encode_spirv(&compiled));
    Ok((compiled, origin))
}

/// The launch's kernel as a cubin for `sm`, assembled by `ptxas` (identified by `ptxas_id`). On
/// a miss, `ptx` gives the PTX (from [`ptx`]: the cache or compiled now) and `assemble` runs
/// ptxas on it, returning the cubin's bytes and what `ptxas -v` said.
pub fn cubin(
    launch: &Launch,
    sm: u32,
    ptxas_id: &str,
    ptx: impl FnOnce() -> Result<Compiled<Artifact>, CliError>,
    assemble: impl FnOnce(&str) -> Result<(Vec<u8>, Vec<KernelResources>), CliError>,
) -> Result<(Cubin, Origin), CliError> {
    let key = key(launch, &Target::Cubin { sm, ptxas: ptxas_id });
    if let Some(key) = &key {
        if let Some(hit) = launch.cache.load(Kind::Cubin, key, artifacts::decode_cubin) {
            replay(false, &hit.value.warnings);
            return Ok((hit.value, Origin::Hit(hit.path)));
        }
    }
    let compiled = ptx()?;
    let (bytes, resources) = assemble(&compiled.artifact.ptx)?;
    let cubin = Cubin { bytes, resources, warnings: compiled.warnings };
    let about = about_target(launch, &format!("{} cubin", sm_name(sm)));
    let origin = store(launch, key, Kind::Cubin, "nvptx", &about, || artifacts::encode_cubin(&cubin));
    Ok((cubin, origin))
}

/// Stores an entry when the cache is used; says where it went.
fn store(
    launch: &Launch,
    key: Option<Key>,
    kind: Kind,
    backend: &str,
    target: &str,
    payload: impl FnOnce() -> Vec<u8>,
) -> Origin {
    let Some(key) = key else { return Origin::Compiled };
    let about = About { kernel: &launch.kernel, backend, target };
    match launch.cache.store(kind, &key, about, &payload()) {
        Some(path) => Origin::Stored(path),
        None => Origin::Compiled,
    }
}

/// What identifies a `ptxas` binary for the cubin key: its path, size and modification time (an
/// upgraded toolkit assembles anew). Reading its metadata costs a `stat`, not a process.
pub fn ptxas_identity(ptxas: &Path) -> String {
    let metadata = std::fs::metadata(ptxas).ok();
    let size = metadata.as_ref().map_or(0, std::fs::Metadata::len);
    let modified = metadata
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!("{} {size} {modified}", ptxas.display())
}
