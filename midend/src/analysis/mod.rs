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

/// Takes one step of a reading's budget, or says none is left. The analyses that read an
/// expression by following operands count the values they visit, so that a DAG whose shared
/// operands would be read again and again (`x + x` nested thirty deep) cannot take exponential
/// time.
pub(crate) fn take_step(steps: &mut u32) -> Option<()> {
    *steps = steps.checked_sub(1)?;
    Some(())
}

/// The low `bits` of `value`, sign-extended to 64.
pub(crate) fn sign_extend(value: i64, bits: u32) -> i64 {
    if bits >= 64 {
        value
    } else {
        let shift = 64 - bits;
        (value << shift) >> shift
    }
}

/// The low `bits` of `value`, zero-extended to 64.
pub(crate) fn zero_extend(value: i64, bits: u32) -> u64 {
    if bits >= 64 {
        value as u64
    } else {
        (value as u64) & ((1u64 << bits) - 1)
    }
}
