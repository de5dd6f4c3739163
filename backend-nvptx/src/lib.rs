//! trident-backend-nvptx: TTGIR -> PTX text for sm_80 and sm_90a.
//!
//! Not written yet. The contract (ARCHITECTURE.md): one entry point,
//! `emit(&Module, &Options) -> Result<Artifact, Error>`, taking a verified TTGIR module and
//! returning PTX text plus launch metadata (threads per block, shared memory bytes, argument
//! ABI). This crate imports only `trident-midend`: never the other backend, never the runtime.
//! Until it exists, `trident compile --emit ptx` and `--backend nvptx` report that the backend
//! is not available.
