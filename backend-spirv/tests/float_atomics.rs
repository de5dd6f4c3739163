//! Float `atomic_add` in the SPIR-V: the native `OpAtomicFAddEXT` on an aliased f32 view of the
//! binding when `Options::float32_atomic_add` is set (Vulkan dialect only), the compare-and-swap
//! loop on the u32 words otherwise.
//!
//! The kernel is the TTIR of two `tl.atomic_add` calls on the same f32 elements (the lavapipe
//! repro: the loop's second add loses its retry there). Each case lowers it through the TTGIR
//! pipeline, emits SPIR-V with one set of options and checks the disassembly for what must and
//! must not be there. Every module also goes through `spirv-val` where it is installed.

mod common;

use common::spirv_val;
use trident_backend_spirv::{Mode, Options};

/// `tl.atomic_add(out_ptr + offs, v); tl.atomic_add(out_ptr + offs, v * 10.0)` over 64 lanes
/// (`trident compile --emit ttir` of that kernel).
const TWO_ADDS: &str = r#"tt.func public @atomic_add_twice_kernel(%out_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %value: f32) {
  %0 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
  %1 = arith.constant {value = 0.0} : tensor<64xf32>
  %2 = tt.splat %value : tensor<64xf32>
  %3 = arith.addf %1, %2 : tensor<64xf32>
  %4 = tt.splat %out_ptr : tensor<64x!tt.ptr<f32>>
  %5 = tt.addptr %4, %0 : tensor<64x!tt.ptr<f32>>
  %6 = arith.constant {value = true} : tensor<64xi1>
  %7 = tt.atomic_rmw %5, %3, %6 {atomic_rmw_op = "fadd", sem = "acq_rel", scope = "gpu"} : tensor<64xf32>
  %8 = arith.constant {value = 10.0} : tensor<64xf32>
  %9 = arith.mulf %3, %8 : tensor<64xf32>
  %10 = tt.atomic_rmw %5, %9, %6 {atomic_rmw_op = "fadd", sem = "acq_rel", scope = "gpu"} : tensor<64xf32>
  tt.return
}
"#;

/// What the native form has and the loop has not (rspirv's disassembly prints ids, not names:
/// the f32 view shows in its `OpName`, the aliasing in [`aliased`]).
const NATIVE: [&str; 4] = [
    "OpCapability AtomicFloat32AddEXT",
    "OpExtension \"SPV_EXT_shader_atomic_float_add\"",
    "\"out_ptr_f32\"",
    " Aliased",
];

/// What the loop has and the native form has not.
const LOOP: [&str; 2] = ["OpAtomicCompareExchange", "OpLoopMerge"];

/// Lowers [`TWO_ADDS`] with `options` and returns the SPIR-V words and their disassembly.
fn lower(options: &Options) -> (Vec<u32>, String) {
    let (artifact, text) = common::lower(TWO_ADDS, options);
    (artifact.words, text)
}

/// Emits the kernel with `mode` and `float32_atomic_add`, then checks the native form (two
/// `OpAtomicFAddEXT`, no loop) or the loop (no `OpAtomicFAddEXT`, nothing native declared).
fn check(name: &str, mode: Mode, float32_atomic_add: bool, native: bool) {
    let options =
        Options { mode, float32_atomic_add, num_warps: 1, threads_per_warp: 64, ..Options::default() };
    let (words, text) = lower(&options);
    let fadds = text.matches("OpAtomicFAddEXT").count();
    if native {
        assert_eq!(fadds, 2, "{name}: one OpAtomicFAddEXT per atomic_add expected in:\n{text}");
        for wanted in NATIVE {
            assert!(text.contains(wanted), "{name}: no `{wanted}` in:\n{text}");
        }
        // Both views of binding 0, the u32 words and the f32 view, are declared there and aliased.
        assert_eq!(
            text.matches(" Binding 0").count(),
            2,
            "{name}: two views of binding 0 expected in:\n{text}"
        );
        assert_eq!(text.matches(" Aliased").count(), 2, "{name}: both views aliased in:\n{text}");
        for unwanted in LOOP {
            assert!(!text.contains(unwanted), "{name}: `{unwanted}` in the native form:\n{text}");
        }
    } else {
        assert_eq!(fadds, 0, "{name}: OpAtomicFAddEXT without the device feature:\n{text}");
        assert_eq!(
            text.matches(" Binding 0").count(),
            1,
            "{name}: one view of binding 0 expected in:\n{text}"
        );
        for unwanted in NATIVE {
            assert!(!text.contains(unwanted), "{name}: `{unwanted}` without the device feature:\n{text}");
        }
        assert_eq!(
            text.matches("OpAtomicCompareExchange").count(),
            2,
            "{name}: one loop per add in:\n{text}"
        );
        assert_eq!(text.matches("OpLoopMerge").count(), 2, "{name}: one loop per add in:\n{text}");
    }
    spirv_val(name, &words);
}

#[test]
fn native_add_with_the_device_feature() {
    check("vulkan-native", Mode::Vulkan, true, true);
}

#[test]
fn loop_without_the_device_feature() {
    check("vulkan-loop", Mode::Vulkan, false, false);
}

/// Portable modules keep the loop even where the device has the feature: the aliased f32 view
/// would not be valid WGSL.
#[test]
fn portable_modules_keep_the_loop() {
    check("portable", Mode::Portable, true, false);
}
