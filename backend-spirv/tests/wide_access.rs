//! Wide accesses in the SPIR-V: in the Vulkan dialect, a load or store whose layout gives each
//! thread consecutive elements, with pointers the axis analysis proves contiguous and aligned and
//! a mask constant over them, moves 16 bytes at once through a `uvec4` view of its binding (the
//! rule the nvptx backend vectorizes by, `trident_midend::codegen::memory::access_width`). The
//! portable dialect keeps one word per element.
//!
//! The kernels are the TTIR of the corpus's vector add (`trident compile --emit ttir`) with
//! `n_elements` divisible by 16, as Triton specializes it, in f32 and in f16. Every module also
//! goes through `spirv-val` where it is installed.

mod common;

use common::spirv_val;
use trident_backend_spirv::{Mode, Options, Storage16Bit};

/// `out = x + y` over `BLOCK` lanes of `T`, masked by `n_elements` (divisible by 16).
const ADD: &str = r#"tt.func public @add_kernel(%x_ptr: !tt.ptr<T> {tt.divisibility = 16}, %y_ptr: !tt.ptr<T> {tt.divisibility = 16}, %out_ptr: !tt.ptr<T> {tt.divisibility = 16}, %n_elements: i32 {tt.divisibility = 16}) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = arith.constant {value = BLOCK} : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tt.make_range {start = 0, end = BLOCK} : tensor<BLOCKxi32>
  %4 = tt.splat %2 : tensor<BLOCKxi32>
  %5 = arith.addi %4, %3 : tensor<BLOCKxi32>
  %6 = tt.splat %n_elements : tensor<BLOCKxi32>
  %7 = arith.cmpi %5, %6 {predicate = "slt"} : tensor<BLOCKxi1>
  %8 = tt.splat %x_ptr : tensor<BLOCKx!tt.ptr<T>>
  %9 = tt.addptr %8, %5 : tensor<BLOCKx!tt.ptr<T>>
  %10 = tt.load %9, %7 : tensor<BLOCKxT>
  %11 = tt.splat %y_ptr : tensor<BLOCKx!tt.ptr<T>>
  %12 = tt.addptr %11, %5 : tensor<BLOCKx!tt.ptr<T>>
  %13 = tt.load %12, %7 : tensor<BLOCKxT>
  %14 = tt.splat %out_ptr : tensor<BLOCKx!tt.ptr<T>>
  %15 = tt.addptr %14, %5 : tensor<BLOCKx!tt.ptr<T>>
  %16 = arith.addf %10, %13 : tensor<BLOCKxT>
  tt.store %15, %16, %7
  tt.return
}
"#;

/// Lowers [`ADD`] over `dtype` elements in blocks of `block` with `options`: the SPIR-V words
/// and their disassembly.
fn lower(dtype: &str, block: u32, options: &Options) -> (Vec<u32>, String) {
    // `T` is the only upper-case letter left once `BLOCK` is replaced.
    let text = ADD.replace("BLOCK", &block.to_string()).replace('T', dtype);
    let (artifact, disassembly) = common::lower(&text, options);
    (artifact.words, disassembly)
}

/// Emits the kernel and checks that its three accesses go through `uvec4` views (or none does),
/// with `loads` vector loads and `stores` vector stores per thread.
fn check(name: &str, dtype: &str, block: u32, options: Options, wide: Option<(usize, usize)>) {
    let (words, text) = lower(dtype, block, &options);
    let views = ["\"x_ptr_v4\"", "\"y_ptr_v4\"", "\"out_ptr_v4\""];
    match wide {
        Some((loads, stores)) => {
            for view in views {
                assert!(text.contains(view), "{name}: no {view} view in:\n{text}");
            }
            let extracts = text.matches("OpCompositeExtract").count();
            assert!(extracts >= loads * 4, "{name}: {loads} uvec4 loads expected in:\n{text}");
            // (f16 arithmetic packs halves with OpCompositeConstruct too.)
            let constructs = text.matches("OpCompositeConstruct").count();
            assert!(constructs >= stores, "{name}: {stores} uvec4 stores expected in:\n{text}");
            assert!(!text.contains("OpAtomicOr"), "{name}: a word merge in the wide form:\n{text}");
            assert!(!text.contains(" Aliased"), "{name}: one view per binding needs no aliasing:\n{text}");
        }
        None => {
            for view in views {
                assert!(!text.contains(view), "{name}: a {view} view in:\n{text}");
            }
        }
    }
    spirv_val(name, &words);
}

fn options(mode: Mode, storage_16bit: bool) -> Options {
    Options {
        mode,
        storage_16bit: if storage_16bit { Storage16Bit::LoadsAndStores } else { Storage16Bit::Words },
        wide_accesses: true,
        num_warps: 4,
        threads_per_warp: 64,
        ..Options::default()
    }
}

#[test]
fn f32_groups_of_four_are_uvec4() {
    // 1024 lanes over 256 threads: 4 consecutive f32 per thread, one uvec4 per access.
    check("f32", "f32", 1024, options(Mode::Vulkan, false), Some((2, 1)));
}

#[test]
fn f16_groups_of_eight_are_uvec4() {
    // 2048 lanes over 256 threads: 8 consecutive f16 per thread, with or without 16-bit storage.
    check("f16-words", "f16", 2048, options(Mode::Vulkan, false), Some((2, 1)));
    check("f16-16bit", "f16", 2048, options(Mode::Vulkan, true), Some((2, 1)));
}

#[test]
fn portable_mode_keeps_words() {
    check("portable", "f32", 1024, options(Mode::Portable, false), None);
}
