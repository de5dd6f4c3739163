//! trident-backend-spirv: TTGIR -> SPIR-V words for Vulkan compute.
//!
//! Not written yet. The contract (ARCHITECTURE.md): one entry point,
//! `emit(&Module, &Options) -> Result<Artifact, Error>`, taking a verified TTGIR module and
//! returning SPIR-V words plus launch metadata. Pointer arguments become storage buffers with
//! provenance tracking; scalars go in push constants. This crate imports only `trident-midend`.
//! Until it exists, `trident compile --emit spirv` and `--backend spirv` report that the backend
//! is not available.
