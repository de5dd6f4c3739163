//! trident: the CLI and the Rust API.
