//! The pass pipeline: one readable function per IR level, in Triton's order (STYLE rule 11).
//!
//! `run_ttir` mirrors the TTIR half of Triton's `make_ttir`: inline the helpers, fold, apply the
//! combine patterns, merge duplicates, hoist loop invariants, unroll the loops that ask for it,
//! fold again (hoisting, merging and unrolling expose new constants) and drop what became dead. After every pass the verifier runs in debug
//! builds, or when [`PipelineOptions::verify`] asks for it; a verifier failure is an internal
//! compiler error ([`PassError`]) carrying the pass name, the message and the printed IR, never
//! a user error. `--dump-after=PASS` maps to [`PipelineOptions::dump_after`].

use std::fmt;

use crate::ir::verifier::verify_module;
use crate::ir::{print_module, Module};
use crate::passes;
use crate::target::Target;

/// The name of every pass of both pipelines, in order (TTIR, then TTGIR): what `--dump-after`
/// and [`PipelineOptions::stop_after`] accept.
pub const PASS_NAMES: [&str; 23] = [
    "inline",
    "canonicalize",
    "combine",
    "cse",
    "licm",
    "unroll-loops",
    "dce",
    "tma-pointer-tiles",
    "rewrite-tensor-descriptors",
    "longest-programs-first",
    "convert-to-gpu",
    "coalesce",
    "remove-layout-conversions",
    "accelerate-matmul",
    "propagate-mma-layout",
    "transpose-in-registers",
    "rematerialize-loop-pointers",
    "rematerialize-coalesced",
    "pipeline-dot-loads",
    "batch-loop-loads",
    "fold-splat-conversions",
    "pingpong-warpgroups",
    "sink",
];

/// Knobs of the pipeline that the command line and the tests set.
#[derive(Clone, Debug, Default)]
pub struct PipelineOptions {
    /// Run the verifier after every pass even in release builds (debug builds always do).
    pub verify: bool,
    /// Print the module to stderr after the pass with this name (`"canonicalize"`, `"dce"`...).
    /// A pass that runs twice is printed both times.
    pub dump_after: Option<String>,
    /// Stop the pipeline after the first run of the pass with this name (for bisecting a
    /// miscompile and for tests of a pipeline prefix).
    pub stop_after: Option<String>,
}

/// An internal compiler error found between passes: the IR no longer verifies.
#[derive(Clone, Debug, PartialEq)]
pub struct PassError {
    /// The pass after which the verifier failed.
    pub pass: String,
    /// The verifier's message.
    pub message: String,
    /// The module as printed after the failing pass.
    pub ir: String,
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "internal compiler error: the IR does not verify after pass `{}`: {}",
            self.pass, self.message
        )?;
        writeln!(f, "IR after `{}`:", self.pass)?;
        f.write_str(&self.ir)
    }
}

impl std::error::Error for PassError {}

/// Whether the pipeline goes on after a pass or stops there.
#[derive(PartialEq, Eq)]
enum Continue {
    Yes,
    StopHere,
}

/// Runs the TTIR passes on a module fresh from the frontend.
pub fn run_ttir(module: &mut Module, options: &PipelineOptions) -> Result<(), PassError> {
    // ---- Inline every helper into the kernel -----------------------------------------------
    // First, as in Triton: every later pass then sees one function with all the code.
    if run_pass("inline", passes::inline::run, module, options)? == Continue::StopHere {
        return Ok(());
    }

    // ---- Fold and simplify ---------------------------------------------------------------------
    // Constant arithmetic, constant masks and branches, splats of constants.
    if run_pass("canonicalize", passes::canonicalize::run, module, options)? == Continue::StopHere {
        return Ok(());
    }
    // Triton's combine patterns (dot accumulators, addptr chains, select of masked loads).
    if run_pass("combine", passes::combine::run, module, options)? == Continue::StopHere {
        return Ok(());
    }

    // ---- Share and hoist -------------------------------------------------------------------------
    if run_pass("cse", passes::cse::run, module, options)? == Continue::StopHere {
        return Ok(());
    }
    if run_pass("licm", passes::licm::run, module, options)? == Continue::StopHere {
        return Ok(());
    }

    // ---- Unroll the loops that ask for it (`tl.range(..., loop_unroll_factor=N)`) -------------
    if run_pass("unroll-loops", passes::unroll_loops::run, module, options)? == Continue::StopHere {
        return Ok(());
    }

    // ---- Clean up --------------------------------------------------------------------------------
    // Merging and hoisting expose new folds, and hoisted ops may now equal ops after the loop;
    // then everything unused goes.
    if run_pass("canonicalize", passes::canonicalize::run, module, options)? == Continue::StopHere {
        return Ok(());
    }
    if run_pass("cse", passes::cse::run, module, options)? == Continue::StopHere {
        return Ok(());
    }
    run_pass("dce", passes::dce::run, module, options)?;
    Ok(())
}

/// Runs one pass, then dumps and verifies as the options ask.
fn run_pass(
    name: &str,
    pass: fn(&mut Module),
    module: &mut Module,
    options: &PipelineOptions,
) -> Result<Continue, PassError> {
    run_pass_with(name, &pass, module, options)
}

/// [`run_pass`] for passes that need more than the module (a closure over the target).
fn run_pass_with(
    name: &str,
    pass: &dyn Fn(&mut Module),
    module: &mut Module,
    options: &PipelineOptions,
) -> Result<Continue, PassError> {
    debug_assert!(PASS_NAMES.contains(&name), "pass `{name}` is missing from PASS_NAMES");
    pass(module);
    if options.dump_after.as_deref() == Some(name) {
        eprintln!("// -----// IR dump after {name} //----- //");
        eprint!("{}", print_module(module));
    }
    if cfg!(debug_assertions) || options.verify {
        if let Err(error) = verify_module(module) {
            return Err(PassError {
                pass: name.to_string(),
                message: error.to_string(),
                ir: print_module(module),
            });
        }
    }
    let stop = options.stop_after.as_deref() == Some(name);
    Ok(if stop { Continue::StopHere } else { Continue::Yes })
}

/// The TTIR -> TTGIR pipeline for `target`: layouts are assigned (convert-to-gpu), then the
/// TTGIR passes improve them.
pub fn run_ttgir(module: &mut Module, target: &Target, options: &PipelineOptions) -> Result<(), PassError> {
    // ---- Pointer tiles read by warpgroup MMAs to descriptors (TMA) ---------------------------
    let tma_tiles = |m: &mut Module| passes::tma_pointer_tiles::run(m, target);
    if run_pass_with("tma-pointer-tiles", &tma_tiles, module, options)? == Continue::StopHere {
        return Ok(());
    }
    // ---- Descriptors to pointers, where TMA cannot serve them ---------------------------------
    let rewrite_descriptors = |m: &mut Module| passes::rewrite_tensor_descriptors::run(m, target);
    if run_pass_with("rewrite-tensor-descriptors", &rewrite_descriptors, module, options)?
        == Continue::StopHere
    {
        return Ok(());
    }
    // ---- Launch order: programs whose loops run longest start first (causal attention) --------
    if run_pass("longest-programs-first", passes::longest_programs_first::run, module, options)?
        == Continue::StopHere
    {
        return Ok(());
    }
    // ---- Assign layouts ------------------------------------------------------------------------
    let convert = |m: &mut Module| passes::convert_to_gpu::run(m, target);
    if run_pass_with("convert-to-gpu", &convert, module, options)? == Continue::StopHere {
        return Ok(());
    }
    // ---- Coalesce memory accesses -------------------------------------------------------------
    // Vectorizable layouts for loads, stores and atomics, then the elementwise code around them
    // adopts those layouts so that the conversions coalesce inserted disappear.
    let coalesce = |m: &mut Module| passes::coalesce::run(m, target);
    if run_pass_with("coalesce", &coalesce, module, options)? == Continue::StopHere {
        return Ok(());
    }
    if run_pass("remove-layout-conversions", passes::remove_layout_conversions::run, module, options)?
        == Continue::StopHere
    {
        return Ok(());
    }
    // ---- Tensor cores (after the layout cleanup, which would undo the MMA accumulators) ------
    let accelerate = |m: &mut Module| passes::accelerate_matmul::run(m, target);
    if run_pass_with("accelerate-matmul", &accelerate, module, options)? == Continue::StopHere {
        return Ok(());
    }
    // Values computed from tensor-core results stay in their layout.
    if run_pass("propagate-mma-layout", passes::propagate_mma_layout::run, module, options)?
        == Continue::StopHere
    {
        return Ok(());
    }
    // Transposes that feed dots move no element where the dots take any layout (Vulkan).
    let transpose = |m: &mut Module| passes::transpose_in_registers::run(m, target);
    if run_pass_with("transpose-in-registers", &transpose, module, options)? == Continue::StopHere {
        return Ok(());
    }
    // ---- Recompute loop-carried pointer tensors inside their loops ---------------------------
    if run_pass("rematerialize-loop-pointers", passes::rematerialize_loop_pointers::run, module, options)?
        == Continue::StopHere
    {
        return Ok(());
    }
    // 2-D loads whose address computation stayed in a narrow layout: recompute it coalesced.
    let rematerialize = |m: &mut Module| passes::rematerialize_coalesced::run(m, target);
    if run_pass_with("rematerialize-coalesced", &rematerialize, module, options)? == Continue::StopHere {
        return Ok(());
    }
    // ---- Software pipelining: dot operand loads run an iteration ahead -------------------------
    let pipeline_loads = |m: &mut Module| passes::pipeline_dot_loads::run(m, target);
    if run_pass_with("pipeline-dot-loads", &pipeline_loads, module, options)? == Continue::StopHere {
        return Ok(());
    }
    // ---- Loops over a row in blocks: whole blocks unmasked, several blocks' loads in flight ----
    let batch_loads = |m: &mut Module| passes::batch_loop_loads::run(m, target);
    if run_pass_with("batch-loop-loads", &batch_loads, module, options)? == Continue::StopHere {
        return Ok(());
    }
    // ---- Clean up the conversions convert-to-gpu made redundant ------------------------------
    if run_pass("fold-splat-conversions", passes::fold_splat_conversions::run, module, options)?
        == Continue::StopHere
    {
        return Ok(());
    }
    // ---- Hopper attention: the two warpgroups' QK^T take turns ------------------------------
    let pingpong = |m: &mut Module| passes::pingpong_warpgroups::run(m, target);
    if run_pass_with("pingpong-warpgroups", &pingpong, module, options)? == Continue::StopHere {
        return Ok(());
    }
    if run_pass("cse", passes::cse::run, module, options)? == Continue::StopHere {
        return Ok(());
    }
    if run_pass("dce", passes::dce::run, module, options)? == Continue::StopHere {
        return Ok(());
    }
    // ---- Short live ranges for the backend -----------------------------------------------------
    run_pass("sink", passes::sink::run, module, options)?;
    Ok(())
}
