//! Pass tests: IR text in, IR text out (STYLE rules 17 and 18).
//!
//! Each case is a file `tests/passes/<pass>/<case>.mlir` holding the input module, a line
//! `// ----- expected`, and the module the pass must print. The input must parse and verify; the
//! output must verify, print exactly as expected, and parse back to the same text. `BLESS=1 cargo test -p trident-midend --test
//! passes` rewrites the expected halves from the current output (review the diff before
//! committing). The `pipeline` folder runs the whole TTIR pipeline instead of one pass.

use std::path::{Path, PathBuf};

use trident_midend::ir::parser::parse_module;
use trident_midend::ir::verifier::verify_module;
use trident_midend::ir::{print_module, Module, Opcode, Span};
use trident_midend::passes;
use trident_midend::pipeline::{run_ttir, PipelineOptions};

const SEPARATOR: &str = "// ----- expected\n";

#[test]
fn inline() {
    check_folder("inline", passes::inline::run);
}

#[test]
fn canonicalize() {
    check_folder("canonicalize", passes::canonicalize::run);
}

#[test]
fn combine() {
    check_folder("combine", passes::combine::run);
}

#[test]
fn cse() {
    check_folder("cse", passes::cse::run);
}

#[test]
fn licm() {
    check_folder("licm", passes::licm::run);
}

#[test]
fn unroll_loops() {
    check_folder("unroll_loops", passes::unroll_loops::run);
}

#[test]
fn dce() {
    check_folder("dce", passes::dce::run);
}

#[test]
fn longest_programs_first() {
    check_folder("longest_programs_first", passes::longest_programs_first::run);
}

#[test]
fn convert_to_gpu() {
    let target = trident_midend::target::Target::nvidia(90, 4);
    check_folder("convert_to_gpu", |module| passes::convert_to_gpu::run(module, &target));
}

/// On sm_90a with 8 warps and num_stages 3: pointer tiles that warpgroup MMAs read in a pipelined
/// loop (and the tiles loaded once beside it) become descriptor loads.
#[test]
fn tma_pointer_tiles() {
    check_folder("tma_pointer_tiles", |module| {
        let target = sm90_pipelined(8);
        passes::tma_pointer_tiles::run(module, &target);
    });
}

/// On sm_90a with num_stages 3: descriptors TMA can serve stay, the others become pointers
/// (then DCE drops the descriptors left without uses).
#[test]
fn rewrite_tensor_descriptors() {
    check_folder("rewrite_tensor_descriptors", |module| {
        let target = sm90_pipelined(4);
        passes::rewrite_tensor_descriptors::run(module, &target);
        passes::dce::run(module);
    });
}

#[test]
fn coalesce() {
    check_folder("coalesce", |module| passes::coalesce::run(module, &sm90()));
}

/// Coalesce, then the cleanup: the cases show which conversions survive.
#[test]
fn remove_layout_conversions() {
    check_folder("remove_layout_conversions", |module| {
        passes::coalesce::run(module, &sm90());
        passes::remove_layout_conversions::run(module);
        passes::dce::run(module);
    });
}

/// The layout cleanup and loop-pointer rematerialization, then re-coalescing: loads feeding
/// dots get their address producers cloned in the coalesced layout; other loads stay; vector
/// atomics take their own coalesced layout.
#[test]
fn rematerialize_coalesced() {
    check_folder("rematerialize_coalesced", |module| {
        passes::coalesce::run(module, &sm90());
        passes::remove_layout_conversions::run(module);
        passes::rematerialize_loop_pointers::run(module);
        passes::rematerialize_coalesced::run(module, &sm90());
        passes::dce::run(module);
    });
}

/// The same cleanup for a target whose atomics update one element per instruction (Vulkan,
/// sm_80): the f32 atomic beside 8-wide f16 loads takes one element per lane, lanes side by side.
#[test]
fn rematerialize_coalesced_scalar_atomics() {
    let vulkan = vulkan(32, 48, 1);
    check_folder("rematerialize_coalesced_scalar_atomics", |module| {
        passes::coalesce::run(module, &vulkan);
        passes::remove_layout_conversions::run(module);
        passes::rematerialize_loop_pointers::run(module);
        passes::rematerialize_coalesced::run(module, &vulkan);
        passes::dce::run(module);
    });
}

/// Tensor-core layouts for dots on sm_90a with 4 warps.
#[test]
fn accelerate_matmul() {
    check_folder("accelerate_matmul", |module| {
        passes::accelerate_matmul::run(module, &trident_midend::target::Target::nvidia(90, 4));
    });
}

/// Values computed from tensor-core results keep their layout; cheap values meeting them in a
/// loop are recomputed in it.
#[test]
fn propagate_mma_layout() {
    check_folder("propagate_mma_layout", |module| {
        passes::propagate_mma_layout::run(module);
        passes::dce::run(module);
    });
}

/// Off tensor-core layouts (a Vulkan target): dots take the FMA register tile, what is computed
/// from their results follows it, and the output is stored from it (no conversion).
#[test]
fn dot_layouts_off_tensor_cores() {
    let vulkan = vulkan(64, 32, 3);
    check_folder("dot_layouts_off_tensor_cores", |module| {
        passes::accelerate_matmul::run(module, &vulkan);
        passes::propagate_mma_layout::run(module);
        passes::rematerialize_coalesced::run(module, &vulkan);
        passes::dce::run(module);
    });
}

/// Dot operand loads issued an iteration ahead (num_stages 3), then DCE of the loads they replace.
#[test]
fn pipeline_dot_loads() {
    check_folder("pipeline_dot_loads", |module| {
        let target = sm90_pipelined(4);
        passes::pipeline_dot_loads::run(module, &target);
        passes::dce::run(module);
    });
}

/// The same pass for programs of two warpgroups (8 warps), where attention's warpgroups hand
/// the ring slots over through mbarriers.
#[test]
fn pipeline_dot_loads_two_warpgroups() {
    check_folder("pipeline_dot_loads_two_warpgroups", |module| {
        let target = sm90_pipelined(8);
        passes::pipeline_dot_loads::run(module, &target);
        passes::dce::run(module);
    });
}

/// Conversions of splats and constants become the splat or constant in the new layout.
#[test]
fn fold_splat_conversions() {
    check_folder("fold_splat_conversions", |module| {
        passes::fold_splat_conversions::run(module);
        passes::dce::run(module);
    });
}

/// In a program of two warpgroups, attention's `QK^T` takes turns on the tensor cores.
#[test]
fn pingpong_warpgroups() {
    check_folder("pingpong_warpgroups", |module| {
        passes::pingpong_warpgroups::run(module, &trident_midend::target::Target::nvidia(90, 8));
    });
}

/// Pure ops move down to their first user (here: the store's addresses past the barrier).
/// A transpose that only feeds a dot takes its operand's layout, transposed (Vulkan), reading past
/// a conversion coalesce put after the operand's load (DCE then drops it); one that feeds a store
/// keeps its own; on an NVIDIA target nothing changes.
#[test]
fn transpose_in_registers() {
    check_folder("transpose_in_registers", |module| {
        let before = print_module(module);
        passes::transpose_in_registers::run(module, &sm90());
        assert_eq!(print_module(module), before, "an NVIDIA target's transposes changed");
        passes::transpose_in_registers::run(module, &vulkan(32, 48, 1));
        passes::dce::run(module);
    });
}

#[test]
fn sink() {
    check_folder("sink", passes::sink::run);
}

#[test]
fn pipeline() {
    check_folder("pipeline", |module| {
        let options = PipelineOptions { verify: true, ..PipelineOptions::default() };
        if let Err(error) = run_ttir(module, &options) {
            panic!("{error}");
        }
    });
}

/// Small loops of loads on a Vulkan target: unrolled, their loads issued together.
#[test]
fn batch_loop_loads() {
    let vulkan = vulkan(32, 48, 1);
    check_folder("batch_loop_loads", |module| {
        passes::batch_loop_loads::run(module, &vulkan);
        passes::dce::run(module);
    });
}

/// The same loop for an NVIDIA target, whose ptxas schedules loads itself: unchanged.
#[test]
fn batch_loop_loads_nvidia() {
    check_folder("batch_loop_loads_nvidia", |module| passes::batch_loop_loads::run(module, &sm90()));
}

/// sm_90a with `num_warps` warps and three pipeline stages.
fn sm90_pipelined(num_warps: u32) -> trident_midend::target::Target {
    trident_midend::target::Target { num_stages: 3, ..trident_midend::target::Target::nvidia(90, num_warps) }
}

/// The Hopper target the layout passes' cases are written for.
fn sm90() -> trident_midend::target::Target {
    trident_midend::target::Target::nvidia(90, 4)
}

/// A Vulkan target (no tensor-core layouts, scalar atomics) of four warps of `threads_per_warp`,
/// with `shared_kib` KiB of workgroup memory, pipelining `num_stages` deep.
fn vulkan(threads_per_warp: u32, shared_kib: u32, num_stages: u32) -> trident_midend::target::Target {
    trident_midend::target::Target {
        threads_per_warp,
        num_warps: 4,
        compute_capability: None,
        shared_memory_bytes: shared_kib * 1024,
        num_stages,
        loads_dot_operands_whole: false,
        loads_tf32_operands_whole: false,
    }
}

/// Runs `pass` on every case of `tests/passes/<folder>/` and fails listing every case whose
/// output differs from its expected text.
fn check_folder(folder: &str, pass: impl Fn(&mut Module)) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/passes").join(folder);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "mlir"))
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no cases in {}", dir.display());

    let bless = std::env::var_os("BLESS").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    for case in &cases {
        if let Err(message) = check(case, &pass, bless) {
            failures.push(format!("{}:\n{message}", case.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Checks one case file; with `bless`, rewrites its expected half instead of comparing.
fn check(case: &Path, pass: &impl Fn(&mut Module), bless: bool) -> Result<(), String> {
    let text = std::fs::read_to_string(case).map_err(|e| e.to_string())?;
    let (input, expected) = match text.split_once(SEPARATOR) {
        Some((input, expected)) => (input, expected),
        None if bless => (text.as_str(), ""),
        None => return Err(format!("no `{}` line", SEPARATOR.trim_end())),
    };
    let mut module = parse_module(input).map_err(|e| format!("input does not parse: {e}"))?;
    verify_module(&module).map_err(|e| format!("input does not verify: {e}"))?;
    pass(&mut module);
    let actual = print_module(&module);
    verify_module(&module).map_err(|e| format!("output does not verify: {e}\n{actual}"))?;
    // The output round-trips through the text form as well (STYLE rule 9).
    let reparsed = parse_module(&actual).map_err(|e| format!("output does not parse back: {e}\n{actual}"))?;
    if print_module(&reparsed) != actual {
        return Err(format!("output does not print the same once parsed back:\n{actual}"));
    }
    if bless {
        let blessed = format!("{}\n{SEPARATOR}{actual}", input.trim_end());
        std::fs::write(case, blessed).map_err(|e| e.to_string())?;
        return Ok(());
    }
    if actual.trim_end() != expected.trim_end() {
        return Err(format!("--- expected\n{expected}\n--- actual\n{actual}"));
    }
    Ok(())
}

/// Inlined ops keep the spans of the helper's ops (they point into the same kernel file), so
/// errors and line info name the helper's lines.
#[test]
fn inline_keeps_callee_spans() {
    let text = "tt.func public @kernel(%x: f32) {\n  %0 = tt.call %x {callee = \"twice\"} : f32\n  tt.print %0 {prefix = \"\", hex = false}\n  tt.return\n}\n\ntt.func private @twice(%v: f32) -> (f32) {\n  %0 = arith.addf %v, %v : f32\n  tt.return %0\n}\n";
    let mut module = parse_module(text).expect("parses");
    let helper = module.function_mut("twice").expect("helper");
    let add = helper.body.blocks[helper.entry].ops[0];
    helper.body.spans.set(add, Span::new(40, 45));

    passes::inline::run(&mut module);

    let kernel = module.kernel().expect("kernel");
    let inlined = kernel.body.blocks[kernel.entry].ops[0];
    assert_eq!(kernel.body.opcode(inlined), Opcode::AddF);
    assert_eq!(kernel.body.span(inlined), Span::new(40, 45));
    assert_eq!(module.functions.len(), 1, "the helper is deleted");
}

/// `stop_after` ends the pipeline after the named pass: stopping after inlining leaves the
/// constant arithmetic unfolded, running to the end folds it.
#[test]
fn pipeline_stop_after() {
    let text = "tt.func public @kernel(%p: !tt.ptr<i32>) {\n  %0 = arith.constant {value = 2} : i32\n  %1 = arith.addi %0, %0 : i32\n  tt.store %p, %1\n  tt.return\n}\n";
    let mut stopped = parse_module(text).expect("parses");
    let options = PipelineOptions { stop_after: Some("inline".into()), ..PipelineOptions::default() };
    run_ttir(&mut stopped, &options).expect("pipeline runs");
    assert!(print_module(&stopped).contains("arith.addi"));

    let mut full = parse_module(text).expect("parses");
    run_ttir(&mut full, &PipelineOptions::default()).expect("pipeline runs");
    let printed = print_module(&full);
    assert!(!printed.contains("arith.addi"), "{printed}");
    assert!(printed.contains("{value = 4}"), "{printed}");
}

/// A depth far beyond what shared memory holds (`num_stages` of a billion) gives the ring as
/// many slots as fit, found without trying every depth on the way down.
#[test]
fn pipeline_dot_loads_bounds_a_huge_depth() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/passes/pipeline_dot_loads/dot_loop.mlir");
    let text = std::fs::read_to_string(path).unwrap();
    let input = text.split("// ----- expected").next().unwrap();
    let mut module = parse_module(input).expect("parses");
    let target = trident_midend::target::Target {
        num_stages: 1_000_000_000,
        ..trident_midend::target::Target::nvidia(90, 4)
    };
    let started = std::time::Instant::now();
    passes::pipeline_dot_loads::run(&mut module, &target);
    assert!(started.elapsed() < std::time::Duration::from_secs(2), "took {:?}", started.elapsed());
    let printed = print_module(&module);
    let slots: Vec<i64> = printed
        .lines()
        .filter_map(|line| line.split("slots = ").nth(1))
        .map(|rest| rest.split(',').next().unwrap().trim().parse().unwrap())
        .collect();
    assert!(!slots.is_empty(), "no rings:\n{printed}");
    assert!(slots.iter().all(|&s| (3..1000).contains(&s)), "{slots:?}");
}

/// A Vulkan target whose backend loads dot operands whole (workgroup-scope matrices) has no loop
/// pipelined whose dot it may load so (f16 operands into f32): the loads stay beside their dot,
/// where the backend reads their tiles; the same loop is pipelined for the same target without
/// it. A loop of tf32 dots is pipelined unless the backend also loads those whole (splitting
/// them into bf16 products: `loads_tf32_operands_whole`); elsewhere they stay FMA dots.
#[test]
fn pipeline_dot_loads_leaves_loops_to_a_backend_that_loads_operands_whole() {
    let pipelined = |file: &str, whole: bool, tf32: bool| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/passes/pipeline_dot_loads").join(file);
        let text = std::fs::read_to_string(path).unwrap();
        let input = text.split("// ----- expected").next().unwrap();
        let mut module = parse_module(input).expect("parses");
        let target = trident_midend::target::Target {
            loads_dot_operands_whole: whole,
            loads_tf32_operands_whole: tf32,
            ..vulkan(32, 48, 3)
        };
        let before = print_module(&module);
        passes::pipeline_dot_loads::run(&mut module, &target);
        print_module(&module) != before
    };
    assert!(pipelined("dot_loop.mlir", false, false), "the loop is not pipelined for a Vulkan target at all");
    assert!(!pipelined("dot_loop.mlir", true, false));
    assert!(pipelined("tf32_dot_loop_in_registers.mlir", false, false));
    assert!(pipelined("tf32_dot_loop_in_registers.mlir", true, false));
    assert!(!pipelined("tf32_dot_loop_in_registers.mlir", true, true));
}

/// Flash attention's loop (the corpus' `flash_attn.py` at head dim 128, 128x64 blocks, eight
/// warps: `trident compile --emit ttir`) on a Vulkan target of 32-wide warps: its accumulators
/// (the scores and the output) and K and V copied an iteration ahead would just fit the register
/// budget, but Q and P, live beside them, do not, so its loads stay where they are. The same
/// loop on eight 64-wide warps (half the registers a thread) is pipelined. (A GEMM's loop, whose
/// operands are all loaded, is pipelined on Vulkan: `pipeline_dot_loads_leaves_loops_to_a_backend_
/// that_loads_operands_whole`.)
#[test]
fn pipeline_dot_loads_counts_the_operands_a_loop_holds_beside_the_copies() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pipelines/flash_attention_d128.ttir");
    let ttir = std::fs::read_to_string(path).unwrap();
    let carried = |threads_per_warp: u32| {
        let mut module = parse_module(&ttir).expect("parses");
        let target = trident_midend::target::Target { num_warps: 8, ..vulkan(threads_per_warp, 48, 3) };
        let options = PipelineOptions { stop_after: Some("pipeline-dot-loads".into()), ..Default::default() };
        trident_midend::pipeline::run_ttgir(&mut module, &target, &options).expect("the pipeline runs");
        let printed = print_module(&module);
        let line = printed.lines().find(|line| line.contains("scf.for")).expect("the loop").to_string();
        line.split(" = scf.for").next().unwrap().split(", ").count()
    };
    // acc, l_i, m_i; with K and V for the next iteration, five.
    assert_eq!(carried(32), 3);
    assert_eq!(carried(64), 5);
}
