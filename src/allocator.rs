//! The allocator of trident's programs (the `trident` command, the fuzzer and its regression
//! test): mimalloc, told to keep the memory it frees.
//!
//! The emitters allocate a few small objects per instruction (an operand list, a line of PTX)
//! and free them all at the end of a stage. Under glibc's malloc, allocating, consolidating,
//! freeing and faulting pages back in took most of the time of compiling a large kernel; mimalloc
//! with its default purging (freed memory given back to the system after a second) moved the cost
//! into page faults, since each stage allocates again what the last one freed. Measured on the
//! fuzz regression `large_unrolled_blocks_64_warps_spirv` (a million-element loop body unrolled
//! 1,024 times) through one SPIR-V emission: glibc 2.2 s of user and 0.5 s of system time,
//! mimalloc 0.7 and 1.7, mimalloc keeping freed memory 0.8 and 0.5. A compile is a short-lived
//! process (or a campaign worker bounded by its own memory limit), so keeping its peak is the
//! right trade. The library crates and the Python extension keep their host's allocator.
//!
//! A program declares it first thing:
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOCATOR: trident::allocator::Allocator = trident::allocator::Allocator;
//!
//! fn main() {
//!     trident::allocator::keep_freed_memory();
//!     // ...
//! }
//! ```

pub use mimalloc::MiMalloc as Allocator;

/// mimalloc's `mi_option_purge_delay`: its place in `mi_option_t` (mimalloc.h, version 3: after
/// the deprecated `eager_commit_delay`, 14, and before `use_numa_nodes`, which libmimalloc-sys
/// names as 16). The test below reads its default through this index.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Tells mimalloc never to give freed memory back to the system (a purge delay of -1). Harmless
/// where another allocator is the global one: it only sets an option of mimalloc's.
pub fn keep_freed_memory() {
    // SAFETY: mi_option_set takes any option index and value; options may change at any time.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, -1) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn purge_delay_is_the_option_at_that_index() {
        // SAFETY: reading an option has no preconditions.
        let read = || unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
        // This test binary does not call keep_freed_memory: the option holds its default, 1,000
        // ms (mimalloc's options.c), which neither neighbouring option has (1 and 0).
        assert_eq!(read(), 1000, "option {PURGE_DELAY} is not mimalloc's purge delay");
        // SAFETY: as above.
        let neighbours = unsafe {
            [libmimalloc_sys::mi_option_get(PURGE_DELAY - 1), libmimalloc_sys::mi_option_get(PURGE_DELAY + 1)]
        };
        assert!(!neighbours.contains(&1000));
        keep_freed_memory();
        assert_eq!(read(), -1);
    }
}
