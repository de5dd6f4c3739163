//! 16-bit storage in the SPIR-V: with `Options::storage_16bit` in the Vulkan dialect, f16 and i16
//! elements are loaded and stored through a 16-bit view of their binding (one `u16` access each,
//! `StorageBuffer16BitAccess`); without the feature, and always in the portable dialect, they stay
//! in 32-bit words (a shift and mask per load, two word atomics per store).
//!
//! The kernel is the TTIR of the corpus's vector add with f16 `x`, i16 `y` and f16 `out`
//! (`trident compile --emit ttir`), masked. Every module also goes through `spirv-val` where it is
//! installed.

mod common;

use common::spirv_val;
use trident_backend_spirv::{Mode, Options};

/// `out = x + y` (f16 + i16 -> f16) over 128 lanes, masked by `n_elements`.
const ADD_16: &str = r#"tt.func public @add_kernel(%x_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %y_ptr: !tt.ptr<i16> {tt.divisibility = 16}, %out_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %n_elements: i32) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = arith.constant {value = 128} : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %4 = tt.splat %2 : tensor<128xi32>
  %5 = arith.addi %4, %3 : tensor<128xi32>
  %6 = tt.splat %n_elements : tensor<128xi32>
  %7 = arith.cmpi %5, %6 {predicate = "slt"} : tensor<128xi1>
  %8 = tt.splat %x_ptr : tensor<128x!tt.ptr<f16>>
  %9 = tt.addptr %8, %5 : tensor<128x!tt.ptr<f16>>
  %10 = tt.load %9, %7 : tensor<128xf16>
  %11 = tt.splat %y_ptr : tensor<128x!tt.ptr<i16>>
  %12 = tt.addptr %11, %5 : tensor<128x!tt.ptr<i16>>
  %13 = tt.load %12, %7 : tensor<128xi16>
  %14 = tt.splat %out_ptr : tensor<128x!tt.ptr<f16>>
  %15 = tt.addptr %14, %5 : tensor<128x!tt.ptr<f16>>
  %16 = arith.sitofp %13 : tensor<128xf16>
  %17 = arith.addf %10, %16 : tensor<128xf16>
  tt.store %15, %17, %7
  tt.return
}
"#;

/// What the direct form declares.
const DIRECT: [&str; 5] = [
    "OpCapability StorageBuffer16BitAccess",
    "OpExtension \"SPV_KHR_16bit_storage\"",
    "\"x_ptr_16\"",
    "\"y_ptr_16\"",
    "\"out_ptr_16\"",
];

/// Lowers [`ADD_16`] with `options` and returns the SPIR-V words and their disassembly.
fn lower(options: &Options) -> (Vec<u32>, String) {
    let (artifact, text) = common::lower(ADD_16, options);
    (artifact.words, text)
}

/// Emits the kernel with `mode` and `storage_16bit`, then checks the direct form (16-bit views,
/// no word atomics, the i16 load sign-extended by `OpSConvert`) or the word form (nothing 16-bit).
fn check(name: &str, mode: Mode, storage_16bit: bool, direct: bool) {
    let options = Options { mode, storage_16bit, num_warps: 1, threads_per_warp: 64, ..Options::default() };
    let (words, text) = lower(&options);
    if direct {
        for wanted in DIRECT {
            assert!(text.contains(wanted), "{name}: no `{wanted}` in:\n{text}");
        }
        // Two elements per thread: two 16-bit loads from each input, two stores to the output.
        assert_eq!(text.matches("OpSConvert").count(), 2, "{name}: the i16 loads sign-extend in:\n{text}");
        for unwanted in ["OpAtomicAnd", "OpAtomicOr", " Aliased"] {
            assert!(!text.contains(unwanted), "{name}: `{unwanted}` in the direct form:\n{text}");
        }
    } else {
        for unwanted in DIRECT {
            assert!(!text.contains(unwanted), "{name}: `{unwanted}` without 16-bit storage:\n{text}");
        }
        assert!(text.contains("OpAtomicOr"), "{name}: stores merge into words in:\n{text}");
    }
    spirv_val(name, &words);
}

#[test]
fn vulkan_with_16bit_storage_accesses_halves() {
    check("vulkan-16bit", Mode::Vulkan, true, true);
}

#[test]
fn vulkan_without_16bit_storage_keeps_words() {
    check("vulkan-words", Mode::Vulkan, false, false);
}

#[test]
fn portable_keeps_words_even_with_16bit_storage() {
    check("portable", Mode::Portable, true, false);
}
