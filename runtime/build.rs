//! The build id of this trident: a SHA-256 of the compiler's own sources, handed to the crate as
//! `TRIDENT_BUILD_ID` (16 hex digits).
//!
//! Why: the on-disk cache (`src/cache`) keys compiled kernels by the compiler that made them. The
//! crate version alone does not change while trident is developed, so an entry written before an
//! edit to a pass would be loaded after it, and a fixed miscompile would keep running. A hash of
//! the binary itself would be exact, but reading and hashing ~15 MB on every command costs tens of
//! milliseconds. The sources are what decide what the binary does: every `.rs` file of the
//! workspace's compiler crates (frontend, midend, both backends, runtime and this package's
//! `src/`), their manifests and `Cargo.lock` (dependency versions). Tests, scripts and docs do not
//! take part. Cargo reruns this script when any of those files changes.
//!
//! A directory that is missing (a published crate has no sibling crates) is skipped: the id then
//! covers what there is, and the crate version still separates releases.

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The source directories whose files make up the compiler.
const SOURCE_DIRS: &[&str] =
    &["src", "frontend/src", "midend/src", "backend-nvptx/src", "backend-spirv/src", "runtime/src"];

/// Single files that change what the binary does.
const FILES: &[&str] = &[
    "build.rs",
    "Cargo.toml",
    "Cargo.lock",
    "frontend/Cargo.toml",
    "midend/Cargo.toml",
    "backend-nvptx/Cargo.toml",
    "backend-spirv/Cargo.toml",
    "runtime/Cargo.toml",
];

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in SOURCE_DIRS {
        println!("cargo:rerun-if-changed={dir}");
        collect(&root.join(dir), &mut files);
    }
    for file in FILES {
        println!("cargo:rerun-if-changed={file}");
        let path = root.join(file);
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
