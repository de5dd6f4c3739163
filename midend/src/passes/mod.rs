//! TTIR passes, one per file, each with a `pub fn run(&mut Module)` (to be written).
