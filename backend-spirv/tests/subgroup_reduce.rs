//! Reductions across a subgroup's lanes by `OpGroupNonUniformShuffleXor` (Vulkan dialect, where
//! `Options::subgroup_size` says the device runs subgroup operations), with the workgroup-uniform
//! check of the subgroups' shape and the workgroup-memory fallback beside them; none of it in the
//! portable dialect or without subgroup operations.
//!
//! The kernel is the TTIR of the corpus's row softmax (`trident compile --emit ttir`, BLOCK_SIZE
//! 128): a max and a sum over the row. Every subgroup size from 4 to 128 is emitted, and every
//! module goes through `spirv-val` where it is installed. (Execution on lavapipe, subgroup size 8,
//! is the corpus's: its softmax, layernorm and argmax cases.)

mod common;

use common::spirv_val;
use trident_backend_spirv::{Mode, Options};

const SOFTMAX: &str = r#"tt.func public @softmax_row_kernel(%out_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %in_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %in_row_stride: i32, %out_row_stride: i32, %n_cols: i32) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %2 = tt.splat %n_cols : tensor<128xi32>
  %3 = arith.cmpi %1, %2 {predicate = "slt"} : tensor<128xi1>
  %4 = arith.muli %0, %in_row_stride : i32
  %5 = tt.addptr %in_ptr, %4 : !tt.ptr<f32>
  %6 = tt.splat %5 : tensor<128x!tt.ptr<f32>>
  %7 = tt.addptr %6, %1 : tensor<128x!tt.ptr<f32>>
  %8 = arith.constant {value = -inf} : tensor<128xf32>
  %9 = tt.load %7, %3, %8 : tensor<128xf32>
  %10 = tt.reduce %9 {axis = 0} : f32 {
  ^bb0(%11: f32, %12: f32):
    %13 = arith.maxnumf %11, %12 : f32
    tt.reduce.return %13
  }
  %14 = tt.splat %10 : tensor<128xf32>
  %15 = arith.subf %9, %14 : tensor<128xf32>
  %16 = math.exp %15 : tensor<128xf32>
  %17 = tt.reduce %16 {axis = 0} : f32 {
  ^bb0(%18: f32, %19: f32):
    %20 = arith.addf %18, %19 : f32
    tt.reduce.return %20
  }
  %21 = tt.splat %17 : tensor<128xf32>
  %22 = arith.divf %16, %21 : tensor<128xf32>
  %23 = arith.muli %0, %out_row_stride : i32
  %24 = tt.addptr %out_ptr, %23 : !tt.ptr<f32>
  %25 = tt.splat %24 : tensor<128x!tt.ptr<f32>>
  %26 = tt.addptr %25, %1 : tensor<128x!tt.ptr<f32>>
  tt.store %26, %22, %3
  tt.return
}
"#;

/// Lowers [`SOFTMAX`] with `options` and returns the SPIR-V words and their disassembly.
fn lower(options: &Options) -> (Vec<u32>, String) {
    let (artifact, text) = common::lower(SOFTMAX, options);
    (artifact.words, text)
}

fn options(mode: Mode, subgroup_size: u32, num_warps: u32) -> Options {
    Options { mode, subgroup_size, num_warps, threads_per_warp: 64, ..Options::default() }
}

/// What a module with subgroup reductions declares and does.
const SUBGROUP: [&str; 6] = [
    "OpCapability GroupNonUniformShuffle",
    "OpCapability GroupNonUniformVote",
    "OpGroupNonUniformShuffleXor",
    "OpGroupNonUniformAll",
    "BuiltIn SubgroupSize",
    "BuiltIn SubgroupLocalInvocationId",
];

#[test]
fn softmax_reduces_with_subgroup_shuffles() {
    for subgroup_size in [4, 8, 16, 32, 64, 128] {
        for num_warps in [1, 4] {
            let name = format!("sg{subgroup_size}-w{num_warps}");
            let (words, text) = lower(&options(Mode::Vulkan, subgroup_size, num_warps));
            for wanted in SUBGROUP {
                assert!(text.contains(wanted), "{name}: no `{wanted}` in:\n{text}");
            }
            spirv_val(&name, &words);
        }
    }
}

#[test]
fn no_subgroup_operations_without_the_device_or_in_portable_mode() {
    for (name, options) in
        [("none", options(Mode::Vulkan, 0, 4)), ("portable", options(Mode::Portable, 32, 4))]
    {
        let (words, text) = lower(&options);
        assert!(!text.contains("OpGroupNonUniform"), "{name}: subgroup operations in:\n{text}");
        spirv_val(name, &words);
    }
}
