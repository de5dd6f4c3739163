//! The build id of this trident: a SHA-256 of the compiler's own sources, handed to the runtime
//! crate as `TRIDENT_BUILD_ID` (16 hex digits).
//!
//! Why: the on-disk cache (`runtime/src/cache`) keys compiled kernels by the compiler that made
//! them. The crate version alone does not change while trident is developed, so an entry written
//! before an edit to a pass would be loaded after it, and a fixed miscompile would keep running.
//! A hash of the binary itself would be exact, but reading and hashing ~15 MB on every command
//! costs tens of milliseconds. The sources are what decide what the binary does: every `.rs` file of the
//! workspace's compiler crates (frontend, midend, both backends, this runtime, and the root
//! package's `src/`, whose lowering entry points choose targets and backend options), their
//! manifests and `Cargo.lock` (dependency versions). Tests, scripts and docs do not take part.
//! Cargo reruns this script when any of those files changes.
//!
//! The script lives in the runtime because the cache does: every crate that reads the id depends
//! on the runtime. Paths are taken relative to the workspace root (the runtime's parent
//! directory), as they were when this script belonged to the root package. A published crate has
//! no sibling crates: the id then covers the runtime's own sources, a directory that is missing is
//! skipped, and the crate version still separates releases.

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The source directories whose files make up the compiler, relative to the workspace root.
const SOURCE_DIRS: &[&str] =
    &["src", "frontend/src", "midend/src", "backend-nvptx/src", "backend-spirv/src", "runtime/src"];

/// Single files that change what the binary does, relative to the workspace root.
const FILES: &[&str] = &[
    "runtime/build.rs",
    "Cargo.toml",
    "Cargo.lock",
    "frontend/Cargo.toml",
    "midend/Cargo.toml",
    "backend-nvptx/Cargo.toml",
    "backend-spirv/Cargo.toml",
    "runtime/Cargo.toml",
];

fn main() {
    let manifest_dir =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    // In the workspace the runtime is `ROOT/runtime`; a published crate (`trident-runtime-X.Y.Z`
    // in cargo's registry) has no siblings, and its own sources are all there is to hash.
    let (root, source_dirs, single_files) = match manifest_dir.parent() {
        Some(parent) if manifest_dir.file_name().is_some_and(|name| name == "runtime") => {
            (parent.to_path_buf(), SOURCE_DIRS, FILES)
        }
        _ => (manifest_dir.clone(), &["src"][..], &["build.rs", "Cargo.toml"][..]),
    };
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in source_dirs {
        // Cargo takes relative paths relative to the runtime's manifest, so they are given absolute.
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
        collect(&root.join(dir), &mut files);
    }
    for file in single_files {
        let path = root.join(file);
        println!("cargo:rerun-if-changed={}", path.display());
        if path.is_file() {
            files.push(path);
        }
    }
    // Sorted by their path relative to the root, so that the id does not depend on the order
    // the file system lists directories in, nor on where the checkout is.
    let mut relative: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|path| {
            let name = path.strip_prefix(&root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            (name, path)
        })
        .collect();
    relative.sort();
    let mut hasher = Sha256::new();
    for (name, path) in &relative {
        let bytes = fs::read(path).unwrap_or_default();
        hasher.update((name.len() as u64).to_le_bytes());
        hasher.update(name.as_bytes());
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    let digest = hasher.finalize();
    let id: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=TRIDENT_BUILD_ID={id}");
}

/// Every `.rs` file under `dir`, recursively (nothing when `dir` does not exist); an editor's
/// swap files do not change the id.
fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.is_file() && path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}
