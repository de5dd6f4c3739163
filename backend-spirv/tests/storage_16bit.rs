//! 16-bit storage in the SPIR-V: with `Storage16Bit::LoadsAndStores` in the Vulkan dialect, f16 and i16
//! elements are loaded and stored through a 16-bit view of their binding (one `u16` access each,
//! `StorageBuffer16BitAccess`); without the feature, and always in the portable dialect, they stay
//! in 32-bit words (a shift and mask per load, two word atomics per store).
//!
//! The kernel is the TTIR of the corpus's vector add with f16 `x`, i16 `y` and f16 `out`
//! (`trident compile --emit ttir`), masked. Every module also goes through `spirv-val` where it is
//! installed.

mod common;

use common::spirv_val;
use trident_backend_spirv::{Mode, Options, Storage16Bit};

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
    let storage_16bit = if storage_16bit { Storage16Bit::LoadsAndStores } else { Storage16Bit::Words };
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

/// `out = x.to(f16)` (f32 -> f16) over 128 lanes: a narrowing stored and never widened again.
const NARROW_STORE: &str = r#"tt.func public @narrow_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %out_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %n_elements: i32) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = arith.constant {value = 128} : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %4 = tt.splat %2 : tensor<128xi32>
  %5 = arith.addi %4, %3 : tensor<128xi32>
  %6 = tt.splat %n_elements : tensor<128xi32>
  %7 = arith.cmpi %5, %6 {predicate = "slt"} : tensor<128xi1>
  %8 = tt.splat %x_ptr : tensor<128x!tt.ptr<f32>>
  %9 = tt.addptr %8, %5 : tensor<128x!tt.ptr<f32>>
  %10 = tt.load %9, %7 : tensor<128xf32>
  %11 = arith.truncf %10 : tensor<128xf16>
  %12 = tt.splat %out_ptr : tensor<128x!tt.ptr<f16>>
  %13 = tt.addptr %12, %5 : tensor<128x!tt.ptr<f16>>
  tt.store %13, %11, %7
  tt.return
}
"#;

/// The Vulkan dialect with 16-bit stores and word loads (`Storage16Bit::Stores`, the default where
/// the device has 16-bit storage), one warp of 64 lanes.
fn stores_only() -> Options {
    let storage_16bit = Storage16Bit::Stores;
    Options { mode: Mode::Vulkan, storage_16bit, num_warps: 1, threads_per_warp: 64, ..Options::default() }
}

/// With `Storage16Bit::Stores`, one element per thread (no wide accesses): the f16 stores
/// go through the 16-bit view, one `u16` store each, instead of two word atomics, and loads stay
/// on the words.
#[test]
fn store_16bit_stores_halves_and_loads_words() {
    let options = stores_only();
    let (artifact, text) = common::lower(ADD_16, &options);
    for wanted in ["OpCapability StorageBuffer16BitAccess", "\"out_ptr_16\""] {
        assert!(text.contains(wanted), "no `{wanted}` in:\n{text}");
    }
    for unwanted in ["\"x_ptr_16\"", "\"y_ptr_16\"", "OpAtomicAnd", "OpAtomicOr"] {
        assert!(!text.contains(unwanted), "`{unwanted}` with 16-bit stores only:\n{text}");
    }
    spirv_val("store-16bit", &artifact.words);
    // The portable dialect has no 16-bit view: the stores merge into words there.
    let portable = Options { mode: Mode::Portable, ..options };
    let (_, text) = common::lower(ADD_16, &portable);
    assert!(text.contains("OpAtomicOr") && !text.contains("out_ptr_16"), "portable:\n{text}");
}

/// NVIDIA's driver folds `UnpackHalf2x16(PackHalf2x16(x))` to `x` in modules with 16-bit storage:
/// where such a module widens an f16 it computed (`ADD_16` converts `y` to f16, then adds in
/// f32), f16 rounding is integer arithmetic; a narrowing that is only stored keeps
/// `PackHalf2x16`.
#[test]
fn store_16bit_rounds_in_integers_only_where_an_f16_is_widened_again() {
    let options = stores_only();
    let (_, round_trip) = common::lower(ADD_16, &options);
    assert!(!round_trip.contains("PackHalf2x16"), "the round trip packs halves:\n{round_trip}");
    let (artifact, stored) = common::lower(NARROW_STORE, &options);
    assert!(stored.contains("PackHalf2x16"), "a stored narrowing rounds in integers:\n{stored}");
    assert!(stored.contains("\"out_ptr_16\"") && !stored.contains("OpAtomicOr"), "{stored}");
    spirv_val("narrow-store-16bit", &artifact.words);
    // Without 16-bit storage nothing is folded: the round trip packs halves too.
    let words = Options { storage_16bit: Storage16Bit::Words, ..options };
    let (_, text) = common::lower(ADD_16, &words);
    assert!(text.contains("PackHalf2x16"), "{text}");
}

/// A loop that carries a loaded f16 (as the software pipeliner carries prefetched tiles) and an
/// f32 sum divided after it: the loop's results are what it yields, so its f32 result is not an
/// f16 the kernel computed, and the stored narrowing keeps `PackHalf2x16` (the loop's results
/// were once all taken for computed f16, which put flash attention on integer rounding).
const LOOP_CARRIES_F16: &str = r#"tt.func public @carry_kernel(%x_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %out_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %n: i32) {
  %0 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %1 = tt.splat %x_ptr : tensor<128x!tt.ptr<f16>>
  %2 = tt.addptr %1, %0 : tensor<128x!tt.ptr<f16>>
  %3 = tt.load %2 : tensor<128xf16>
  %4 = arith.constant {value = 0.0} : tensor<128xf32>
  %5 = arith.constant {value = 0} : i32
  %6 = arith.constant {value = 1} : i32
  %7, %8 = scf.for %5, %n, %6, %4, %3 : tensor<128xf32>, tensor<128xf16> {
  ^bb0(%9: i32, %10: tensor<128xf32>, %11: tensor<128xf16>):
    %12 = arith.extf %11 : tensor<128xf32>
    %13 = arith.addf %10, %12 : tensor<128xf32>
    %14 = tt.load %2 : tensor<128xf16>
    scf.yield %13, %14
  }
  %15 = arith.constant {value = 2.0} : tensor<128xf32>
  %16 = arith.divf %7, %15 : tensor<128xf32>
  %17 = arith.truncf %16 : tensor<128xf16>
  %18 = tt.splat %out_ptr : tensor<128x!tt.ptr<f16>>
  %19 = tt.addptr %18, %0 : tensor<128x!tt.ptr<f16>>
  tt.store %19, %17
  tt.return
}
"#;

#[test]
fn store_16bit_follows_a_loop_by_what_it_yields() {
    let options = stores_only();
    let (artifact, text) = common::lower(LOOP_CARRIES_F16, &options);
    assert!(text.contains("PackHalf2x16"), "the loop's f32 result was taken for a computed f16:\n{text}");
    spirv_val("loop-carries-f16", &artifact.words);
}
