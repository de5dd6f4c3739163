//! The passes of both IR levels, one per file, each with one `pub fn run` entry point
//! (`run(&mut Module)`, or `run(&mut Module, &Target)` where the target decides).
//!
//! The pipeline (`crate::pipeline`) runs them in the order of Triton's `make_ttir` and
//! `make_ttgir`:
//! - TTIR: inline, canonicalize, combine, CSE, LICM, unroll-loops (`loop_unroll_factor`),
//!   canonicalize, CSE, DCE, then tma-pointer-tiles (sm_90a: pointer tiles that warpgroup MMAs
//!   read in a pipelined loop become descriptor loads) and rewrite-tensor-descriptors;
//! - TTIR -> TTGIR (GPU targets): longest-programs-first renumbers the programs of kernels whose
//!   loops are longer for some programs (causal attention) so the longest start first;
//!   convert-to-gpu gives every tensor a layout for a `Target`;
//! - TTGIR: coalesce and remove-layout-conversions pick vectorizable layouts for memory ops and
//!   let their neighbourhoods follow; accelerate-matmul (mma v2 / wgmma v3) and
//!   propagate-mma-layout; transpose-in-registers (Vulkan: a transpose that feeds dots relabels
//!   its operand's layout); rematerialize-loop-pointers and rematerialize-coalesced recompute
//!   addresses where they are used; pipeline-dot-loads (`num_stages`: cp.async rings, TMA and
//!   mbarriers, warp specialization); batch-loop-loads (for code generators that do not
//!   schedule loads: loops over a row in blocks run their whole blocks without masks, several
//!   blocks' loads issued together); fold-splat-conversions, pingpong-warpgroups (Hopper
//!   attention's two warpgroups take turns on the tensor cores), CSE, DCE, sink.
//!
//! `uses` is the one analysis they share (use counts, since the IR keeps no use lists).

pub mod accelerate_matmul;
pub mod batch_loop_loads;
pub mod canonicalize;
pub mod coalesce;
pub mod combine;
pub mod convert_to_gpu;
pub mod cse;
pub mod dce;
pub mod fold_splat_conversions;
pub mod inline;
pub mod licm;
pub mod longest_programs_first;
pub mod pingpong_warpgroups;
pub mod pipeline_dot_loads;
pub mod propagate_mma_layout;
pub mod rematerialize_coalesced;
pub mod rematerialize_loop_pointers;
pub mod remove_layout_conversions;
pub mod rewrite_tensor_descriptors;
pub mod sink;
pub mod tma_pointer_tiles;
pub mod transpose_in_registers;
pub mod unroll_loops;
pub mod uses;
