//! Analyses: facts derived from the IR and returned as side tables (STYLE rule 6).
//!
//! An analysis reads a function and returns a map keyed by IR handles; it never writes into the
//! IR. Passes that need a fact (coalesce needs pointer contiguity and alignment) run the analysis
//! themselves, so a stale table can never outlive the IR it describes.

pub mod affine_pointers;
pub mod axis_info;
pub mod launch_scalars;
pub mod loop_hints;
pub mod strided_tiles;
pub mod trip_count;
