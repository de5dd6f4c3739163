//! The TTIR passes, one per file, each with one `pub fn run(&mut Module)` entry point.
//!
//! The pipeline (`crate::pipeline`) runs them in Triton's `make_ttir` order: inline,
//! canonicalize, combine, CSE, LICM, canonicalize again, DCE. `uses` is the one analysis they
//! share (use counts, since the IR keeps no use lists). `convert_to_gpu` starts TTGIR: it
//! gives every tensor a layout for a `Target`; `coalesce` and `remove_layout_conversions` then
//! pick vectorizable layouts for memory ops and let their neighbourhoods follow.

pub mod accelerate_matmul;
pub mod canonicalize;
pub mod coalesce;
pub mod combine;
pub mod convert_to_gpu;
pub mod cse;
pub mod dce;
pub mod fold_splat_conversions;
pub mod inline;
pub mod licm;
pub mod pipeline_dot_loads;
pub mod propagate_mma_layout;
pub mod rematerialize_coalesced;
pub mod rematerialize_loop_pointers;
pub mod remove_layout_conversions;
pub mod rewrite_tensor_descriptors;
pub mod sink;
pub mod unroll_loops;
pub mod uses;
