//! `tt.print` in the SPIR-V: a kernel that prints gets a print buffer (one more storage binding,
//! named `device_prints`, before the uniform block), bumps its counter with one `OpAtomicIAdd`
//! per print, and describes each operand of each print as a [`PrintSite`] for the runtime; a
//! kernel that does not print has no such buffer. Every module goes through `spirv-val` where it
//! is installed.
//!
//! The kernel is TTIR: a scalar print (the program id), a print of two operands (an f16 tensor in
//! hex and its offsets, with a prefix the lowering trims), and a print without operands.

mod common;

use common::spirv_val;
use trident_backend_spirv::{Artifact, Mode, Options, Printed};
use trident_midend::ir::DType;

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

/// Lowers `ttir` in `mode` (2 warps of 16) and returns the artifact and its disassembly.
fn lower(ttir: &str, mode: Mode) -> (Artifact, String) {
    common::lower(ttir, &Options { mode, num_warps: 2, threads_per_warp: 16, ..Options::default() })
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
