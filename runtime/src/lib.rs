//! trident-runtime: devices, buffers, launches and the on-disk cache.
//!
//! The runtime owns every side effect of running a kernel: files (`.npy` in and out, [`npy`]; the
//! cache directory, [`cache`]), driver calls, and the environment variables that steer devices
//! and the cache. Its data model: a [`Buffer`] is a named host array (element type, the `.npy`
//! storage type and shape, little-endian bytes); a launch binds each parameter of the compiled
//! kernel to an [`ArgValue`] (a buffer by index, or a scalar) and runs over a [`Grid`], which
//! every device checks against CUDA's limits, as Triton does. Three devices take the same buffers
//! and arguments:
//! - [`interp`], the reference: runs TTIR on the CPU with exact dtype semantics, one program after
//!   another, and reports out-of-bounds accesses and failed asserts with the span of the op;
//! - [`cuda`]: loads the nvptx backend's PTX with the driver's JIT (libcuda is loaded at run time;
//!   a machine without a driver or GPU is reported, never a panic), launches and times it;
//!   `TRIDENT_CUDA_DEVICE` picks the GPU and `TRIDENT_CUDA_TIMEOUT` bounds a launch;
//! - [`wgpu`]: runs the spirv backend's SPIR-V on a Vulkan adapter (Mesa's lavapipe on CPUs),
//!   passed through where the adapter allows, else through naga, which also translates portable
//!   modules to WGSL; `TRIDENT_VULKAN_MAX_BINDING_BYTES` lowers the binding size for tests, and an
//!   unset `XDG_RUNTIME_DIR` gets a private directory so that libwayland stays quiet.
//!
//! A launch copies every buffer to the device, runs and copies every buffer back; the devices'
//! `bench` keeps them on the device between timed launches. Loaded CUDA modules and wgpu
//! pipelines are cached in memory for the process; [`cache`] keeps compiled kernels (the
//! backends' artifacts with their launch metadata) and autotune choices on disk between
//! processes, keyed by everything they depend on, this trident's build id included (a hash of the
//! compiler's sources that `build.rs` computes). The cache stores and checks entries; what to
//! compile on a miss, and which config to time, the root package decides (`src/cli/cached.rs`,
//! `src/cli/autotune.rs`), and it hands the runtime artifacts as the backends made them.
//!
//! What the runtime does not know: command lines (the root package parses them) and how code is
//! generated: it takes the backends' artifacts (PTX text, SPIR-V words) with their launch
//! metadata and parameter ABI as they are. It depends on the frontend and the backends only for
//! their plain types (a specialization, an artifact) that launches and cache keys are made of.

pub mod buffer;
pub mod cache;
pub mod cuda;
pub mod interp;
pub mod npy;
pub mod wgpu;

pub use buffer::{ArgValue, Buffer, Grid};
