//! The pass pipeline (to be written).
