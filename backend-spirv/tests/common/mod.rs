//! What the backend's SPIR-V tests share: a test kernel's TTIR through the TTGIR pipeline and the
//! emitter, and `spirv-val` on the words (a SKIP where spirv-tools is not installed, a failure
//! then when `TRIDENT_REQUIRE_DEVICES` names spirv, as CI sets it).

use std::io::Write;
use std::process::Command;

use trident_backend_spirv::{
    disassemble, emit, Artifact, MatrixGranule, Mode, Options, Storage16Bit, WorkgroupMatrices,
};
use trident_midend::ir::DType;
use trident_midend::pipeline::{run_ttgir, PipelineOptions};
use trident_midend::target::Target;

/// Lowers the TTIR text `ttir` for `options` (the TTGIR pipeline for a target of the same warps,
/// then the emitter) and returns the artifact and its disassembly.
pub fn lower(ttir: &str, options: &Options) -> (Artifact, String) {
    let mut module = trident_midend::ir::parser::parse_module(ttir).expect("the test TTIR parses");
    let target = Target {
        threads_per_warp: options.threads_per_warp,
        num_warps: options.num_warps,
        compute_capability: None,
        shared_memory_bytes: options.workgroup_memory_limit,
        num_stages: 1,
        loads_dot_operands_whole: options.workgroup_matrices.is_some(),
        loads_tf32_operands_whole: options.splits_tf32_dots(),
    };
    run_ttgir(&mut module, &target, &PipelineOptions::default()).expect("the TTGIR pipeline runs");
    let artifact = emit(&module, options).expect("the spirv backend lowers the kernel");
    let text = disassemble(&artifact.words);
    (artifact, text)
}

/// Emits TTGIR as it is (its layouts written out, no pass run) and disassembles the words.
#[allow(dead_code)]
pub fn emit_ttgir(ttgir: &str, options: &Options) -> (Artifact, String) {
    let module = trident_midend::ir::parser::parse_module(ttgir).expect("the test TTGIR parses");
    let artifact = emit(&module, options).expect("the spirv backend lowers the kernel");
    let text = disassemble(&artifact.words);
    (artifact, text)
}

/// Runs `spirv-val` (Vulkan 1.1) on the words where it is installed (CI installs spirv-tools).
pub fn spirv_val(name: &str, words: &[u32]) {
    // One file per call: tests run in parallel threads of one process and may share a name.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file = format!("trident-spirv-test-{name}-{}-{call}.spv", std::process::id());
    let path = std::env::temp_dir().join(file);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    let result = Command::new("spirv-val").args(["--target-env", "vulkan1.1"]).arg(&path).output();
    let _ = std::fs::remove_file(&path);
    match result {
        Ok(output) => {
            let said = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            // A validator older than an extension the module uses (Debian 12's spirv-tools 2023.1
            // predates SPV_KHR_cooperative_matrix) cannot judge the module at all.
            if !output.status.success() && said.contains("Invalid capability operand") {
                eprintln!("SKIP spirv-val of {name}: this spirv-val does not know a capability the module declares: {said}");
                return;
            }
            assert!(output.status.success(), "{name}: spirv-val rejects the module:\n{said}");
        }
        Err(_) => {
            let required = std::env::var("TRIDENT_REQUIRE_DEVICES").unwrap_or_default();
            assert!(
                !required.split(',').any(|d| d.trim() == "spirv"),
                "{name}: TRIDENT_REQUIRE_DEVICES names spirv, but spirv-val is not installed (spirv-tools)"
            );
            // To the stderr handle, past the harness's capture: `cargo test` shows the SKIP.
            let line = format!("SKIP spirv-val for {name}: spirv-val is not installed (spirv-tools)");
            let _ = writeln!(std::io::stderr().lock(), "{line}");
        }
    }
}

/// The text of the first loop's body in disassembly `text`: from its `OpLoopMerge` to the merge
/// block's label.
#[allow(dead_code)]
pub fn loop_body(text: &str) -> &str {
    let start = text.find("OpLoopMerge").expect("a loop");
    let merge = text[start..].split_whitespace().nth(1).expect("the merge label");
    let end = text[start..].find(&format!("{merge} = OpLabel")).expect("the merge block");
    &text[start..start + end]
}

/// How much of `VK_NV_cooperative_matrix2`'s workgroup scope a device like the H100 offers.
#[allow(dead_code)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum WorkgroupScope {
    None,
    /// The matrices and their loads and stores.
    Matrices,
    /// Also reductions, conversions and per-element operations on them.
    ElementOperations,
}

/// A device like the H100 under NVIDIA's driver: 32-wide subgroups, subgroup-scope f16
/// matrices, 16-bit storage, and the workgroup-scope granules it lists for f16 into f32, with
/// what `scope` says.
#[allow(dead_code)]
pub fn nvidia_like(num_warps: u32, scope: WorkgroupScope) -> Options {
    let granule = |m, n, invocations| MatrixGranule {
        m,
        n,
        k: 16,
        invocations,
        operand: DType::F16,
        accumulator: DType::F32,
    };
    let granules = vec![granule(16, 16, 32), granule(16, 16, 64), granule(32, 16, 128), granule(32, 32, 256)];
    let element_operations = scope == WorkgroupScope::ElementOperations;
    Options {
        mode: Mode::Vulkan,
        num_warps,
        threads_per_warp: 32,
        subgroup_size: 32,
        workgroup_memory_limit: 48 * 1024,
        cooperative_matrix_f16: true,
        cooperative_matrix_per_element: element_operations,
        storage_16bit: Storage16Bit::Stores,
        workgroup_matrices: (scope != WorkgroupScope::None).then_some(WorkgroupMatrices {
            granules,
            max_dimension: 1024,
            element_operations,
        }),
        ..Options::default()
    }
}

/// `options` with the H100's bf16 matrices too: subgroup-scope ones (`VK_KHR_shader_bfloat16`)
/// and the workgroup-scope granules it lists for f16, again for bf16.
#[allow(dead_code)]
pub fn with_bf16(mut options: Options) -> Options {
    options.cooperative_matrix_bf16 = true;
    if let Some(offered) = &mut options.workgroup_matrices {
        let bf16: Vec<MatrixGranule> =
            offered.granules.iter().map(|g| MatrixGranule { operand: DType::BF16, ..*g }).collect();
        offered.granules.extend(bf16);
    }
    options
}

/// How many times `what` occurs in `text`.
#[allow(dead_code)]
pub fn count(text: &str, what: &str) -> usize {
    text.matches(what).count()
}

/// The bodies of the loops in disassembly `text`, in order: each from its `OpLoopMerge` to its
/// merge block's label.
#[allow(dead_code)]
pub fn loop_bodies(text: &str) -> Vec<&str> {
    let mut bodies = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("OpLoopMerge") {
        let body = loop_body(&text[from + at..]);
        bodies.push(body);
        from += at + body.len();
    }
    bodies
}

/// The id of the 32-bit unsigned constant `value`.
#[allow(dead_code)]
pub fn constant(text: &str, value: u32) -> String {
    let uint = id_of(text, "OpTypeInt 32 0");
    id_of(text, &format!("OpConstant {uint} {value}"))
}

/// The id the instruction ending in `definition` (`OpTypeFloat 16`, say; spaces as one) defines.
#[allow(dead_code)]
pub fn id_of(text: &str, definition: &str) -> String {
    let normal = |line: &str| line.split_whitespace().collect::<Vec<_>>().join(" ");
    let definition = normal(definition);
    let line = text
        .lines()
        .find(|line| normal(line).ends_with(&definition))
        .unwrap_or_else(|| panic!("{definition}"));
    line.split(' ').next().unwrap().to_string()
}
