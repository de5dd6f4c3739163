//! `tt.print` in the SPIR-V: a kernel that prints gets a print buffer (one more storage binding,
//! named `device_prints`, before the uniform block), bumps its counter with one `OpAtomicIAdd`
//! per print, and describes each operand of each print as a [`PrintSite`] for the runtime; a
//! kernel that does not print has no such buffer. Every module goes through `spirv-val` where it
//! is installed.
//!
//! The kernel is TTIR: a scalar print (the program id), a print of two operands (an f16 tensor in
//! hex and its offsets, with a prefix the lowering trims), and a print without operands.

use std::io::Write;
use std::process::Command;

use trident_backend_spirv::{disassemble, emit, Artifact, Mode, Options, Printed};
use trident_midend::ir::DType;
use trident_midend::pipeline::{run_ttgir, PipelineOptions};
use trident_midend::target::Target;

const PRINTS: &str = r#"tt.func public @print_kernel(%x_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %n: i32) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
  %2 = tt.splat %x_ptr : tensor<64x!tt.ptr<f16>>
  %3 = tt.addptr %2, %1 : tensor<64x!tt.ptr<f16>>
  %4 = tt.load %3 : tensor<64xf16>
  tt.print %0 {prefix = "pid", hex = false}
  tt.print %4, %1 {prefix = " x: ", hex = true}
  tt.print {prefix = "done", hex = false}
  tt.return
}
"#;

/// The same kernel without its prints.
fn without_prints() -> String {
    PRINTS.lines().filter(|l| !l.contains("tt.print")).map(|l| format!("{l}\n")).collect()
}

/// Lowers `ttir` through the TTGIR pipeline and emits it with `mode`.
fn lower(ttir: &str, mode: Mode) -> (Artifact, String) {
    let mut module = trident_midend::ir::parser::parse_module(ttir).expect("the test TTIR parses");
    let options = Options { mode, num_warps: 2, threads_per_warp: 16, ..Options::default() };
    let target = Target {
        threads_per_warp: options.threads_per_warp,
        num_warps: options.num_warps,
        compute_capability: None,
        shared_memory_bytes: options.workgroup_memory_limit,
        num_stages: 1,
    };
    run_ttgir(&mut module, &target, &PipelineOptions::default()).expect("the TTGIR pipeline runs");
    let artifact = emit(&module, &options).expect("the spirv backend lowers the kernel");
    let text = disassemble(&artifact.words);
    (artifact, text)
}

/// Runs `spirv-val` on the words where it is installed (CI installs spirv-tools).
fn spirv_val(name: &str, words: &[u32]) {
    let path = std::env::temp_dir().join(format!("trident-device-print-{name}-{}.spv", std::process::id()));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    let result = Command::new("spirv-val").args(["--target-env", "vulkan1.1"]).arg(&path).output();
    let _ = std::fs::remove_file(&path);
    match result {
        Ok(output) => assert!(
            output.status.success(),
            "{name}: spirv-val rejects the module:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
        Err(_) => {
            // To the stderr handle, past the harness's capture: `cargo test` shows the SKIP.
            let line = format!("SKIP spirv-val for {name}: spirv-val is not installed (spirv-tools)");
            let _ = writeln!(std::io::stderr().lock(), "{line}");
        }
    }
}

fn check_prints(name: &str, mode: Mode) {
    let (artifact, text) = lower(PRINTS, mode);
    // The pointer argument is binding 0, the print buffer binding 1, the uniform block 2.
    assert_eq!(artifact.print_binding, Some(1), "{name}");
    assert_eq!(artifact.uniform_binding, 2, "{name}");
    assert!(text.contains("\"device_prints\""), "{name}: no print buffer in:\n{text}");
    assert_eq!(text.matches(" Binding 1").count(), 1, "{name}: one view of the print buffer in:\n{text}");
    // One reservation per print.
    assert_eq!(text.matches("OpAtomicIAdd").count(), 3, "{name}: one OpAtomicIAdd per print in:\n{text}");
    let sites: Vec<_> = artifact
        .prints
        .iter()
        .map(|s| (s.prefix.as_str(), s.operand, s.printed, s.hex, s.shape.clone()))
        .collect();
    assert_eq!(
        sites,
        [
            ("pid", None, Printed::Value(DType::I32), false, vec![]),
            ("x:", Some(0), Printed::Value(DType::F16), true, vec![64]),
            ("x:", Some(1), Printed::Value(DType::I32), true, vec![64]),
            ("done", None, Printed::Nothing, false, vec![]),
        ],
        "{name}"
    );
    spirv_val(name, &artifact.words);
}

#[test]
fn a_printing_kernel_gets_a_print_buffer() {
    check_prints("vulkan", Mode::Vulkan);
}

/// Portable modules print the same way (naga turns the buffer into `array<atomic<u32>>`).
#[test]
fn portable_modules_print_too() {
    check_prints("portable", Mode::Portable);
}

#[test]
fn a_kernel_without_prints_has_no_print_buffer() {
    let (artifact, text) = lower(&without_prints(), Mode::Vulkan);
    assert_eq!(artifact.print_binding, None);
    assert!(artifact.prints.is_empty());
    assert_eq!(artifact.uniform_binding, 1);
    assert!(!text.contains("device_prints"), "{text}");
    assert!(!text.contains("OpAtomicIAdd"), "{text}");
    spirv_val("no-prints", &artifact.words);
}
