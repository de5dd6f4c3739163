//! trident-runtime: devices, buffers and launches.
//!
//! The runtime owns every side effect: files (`.npy` in and out), driver calls and, later, the
//! kernel cache and the environment. Devices today: `interp`, the reference interpreter that
//! runs TTIR on the CPU with exact dtype semantics. The CUDA and wgpu devices arrive with their
//! backends.

pub mod buffer;
pub mod interp;
pub mod npy;

pub use buffer::{ArgValue, Buffer, Grid};
