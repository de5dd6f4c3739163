//! trident-runtime: devices, buffers and launches.
//!
//! The runtime owns every side effect: files (`.npy` in and out), driver calls and, later, the
//! kernel cache and the environment. Devices today: `interp`, the reference interpreter that
//! runs TTIR on the CPU with exact dtype semantics, and `cuda`, which loads and launches the
//! nvptx backend's PTX through the driver API (loaded at run time; absent drivers are reported,
//! never a panic). The wgpu device arrives with its backend.

pub mod buffer;
pub mod cuda;
pub mod interp;
pub mod npy;
pub mod wgpu;

pub use buffer::{ArgValue, Buffer, Grid};
