//! Where the cache lives, and what is in it: the directory's location, and the listing and
//! clearing behind `trident cache list` and `trident cache clear`.
//!
//! The directory is `TRIDENT_CACHE_DIR` when set (and not empty); otherwise the platform's cache
//! directory: `$XDG_CACHE_HOME/trident`, else `~/.cache/trident` on Linux and other Unixes,
//! `~/Library/Caches/trident` on macOS, `%LOCALAPPDATA%\trident\cache` on Windows.
//!
//! Inside, each kind of entry has a subdirectory ([`Kind::dir_name`]) holding one file per key,
//! `KEY.entry`. Clearing removes only such files (and the temporaries of interrupted writes) and
//! then the subdirectories if they are empty: a `TRIDENT_CACHE_DIR` pointed at the wrong directory
//! by mistake loses nothing else.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::store::{self, Header};
use super::Kind;

/// The environment variable that moves the cache.
pub const DIR_ENV: &str = "TRIDENT_CACHE_DIR";
/// The extension of entry files.
pub const ENTRY_EXTENSION: &str = "entry";

/// The cache directory, or why there is none.
pub fn location() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os(DIR_ENV).filter(|dir| !dir.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    platform_dir().ok_or_else(|| {
        format!(
            "no cache directory: {DIR_ENV} is not set and neither is the platform's (HOME, XDG_CACHE_HOME)"
        )
    })
}

/// The platform's cache directory for trident.
fn platform_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if cfg!(windows) {
        return var("LOCALAPPDATA").map(|dir| dir.join("trident").join("cache"));
    }
    if cfg!(target_os = "macos") {
        return var("HOME").map(|home| home.join("Library").join("Caches").join("trident"));
    }
    // The XDG base directory specification: a relative XDG_CACHE_HOME is invalid and ignored.
    if let Some(dir) = var("XDG_CACHE_HOME").filter(|dir| dir.is_absolute()) {
        return Some(dir.join("trident"));
    }
    var("HOME").map(|home| home.join(".cache").join("trident"))
}

/// One file of the cache, as `trident cache list` shows it.
#[derive(Debug)]
pub struct Listed {
    pub path: PathBuf,
    /// The kind its subdirectory holds.
    pub kind: Kind,
    pub size: u64,
    /// Since it was last written.
    pub age: Option<Duration>,
    /// Its header, or why it cannot be loaded.
    pub header: Result<Header, String>,
}

/// Every entry under `dir`, kind by kind, newest first within a kind. A missing directory is an
/// empty cache.
pub fn list(dir: &Path) -> Vec<Listed> {
    let mut listed = Vec::new();
    for kind in Kind::ALL {
        let mut of_kind: Vec<Listed> = entry_files(dir, kind)
            .into_iter()
            .map(|path| {
                let metadata = fs::metadata(&path).ok();
                let size = metadata.as_ref().map_or(0, fs::Metadata::len);
                let age = metadata
                    .and_then(|m| m.modified().ok())
                    .and_then(|modified| SystemTime::now().duration_since(modified).ok());
                let header = match fs::read(&path) {
                    Ok(bytes) => store::decode(&bytes).map(|entry| entry.header).map_err(|corrupt| corrupt.0),
                    Err(error) => Err(format!("unreadable: {error}")),
                };
                Listed { path, kind, size, age, header }
            })
            .collect();
        of_kind.sort_by_key(|listed| listed.age);
        listed.extend(of_kind);
    }
    listed
}

/// What [`clear`] did.
#[derive(Debug, Default)]
pub struct Cleared {
    /// The files removed, with their sizes.
    pub removed: Vec<(PathBuf, u64)>,
    /// The files that could not be removed, and why.
    pub failed: Vec<(PathBuf, String)>,
}

/// Removes every entry (and leftover temporary file) under `dir`, then the kinds' subdirectories
/// when they are empty.
pub fn clear(dir: &Path) -> Cleared {
    let mut cleared = Cleared::default();
    for kind in Kind::ALL {
        let sub = dir.join(kind.dir_name());
        let Ok(read) = fs::read_dir(&sub) else { continue };
        for file in read.flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            let path = file.path();
            let ours = is_entry_name(&name) || store::is_temp_name(&name);
            if !ours || !path.is_file() {
                continue;
            }
            let size = file.metadata().map_or(0, |m| m.len());
            match fs::remove_file(&path) {
                Ok(()) => cleared.removed.push((path, size)),
                Err(error) => cleared.failed.push((path, error.to_string())),
            }
        }
        // Only an empty directory goes; anything else someone put there stays.
        let _ = fs::remove_dir(&sub);
    }
    cleared
}

/// The entry files of one kind, unsorted.
fn entry_files(dir: &Path, kind: Kind) -> Vec<PathBuf> {
    let Ok(read) = fs::read_dir(dir.join(kind.dir_name())) else { return Vec::new() };
    read.flatten()
        .filter(|file| is_entry_name(&file.file_name().to_string_lossy()))
        .map(|file| file.path())
        .filter(|path| path.is_file())
        .collect()
}

/// `KEY.entry` with KEY 64 hex digits.
fn is_entry_name(name: &str) -> bool {
    name.strip_suffix(&format!(".{ENTRY_EXTENSION}"))
        .is_some_and(|key| key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names() {
        assert!(is_entry_name(&format!("{}.entry", "ab".repeat(32))));
        assert!(!is_entry_name("notes.txt"));
        assert!(!is_entry_name(&format!("{}.entry", "zz".repeat(32))));
        assert!(!is_entry_name(".entry"));
    }

    #[test]
    fn clear_removes_only_entries() {
        let dir = std::env::temp_dir().join(format!("trident-clear-test-{}", std::process::id()));
        let ptx = dir.join(Kind::Ptx.dir_name());
        fs::create_dir_all(&ptx).unwrap();
        let entry = ptx.join(format!("{}.entry", "0".repeat(64)));
        fs::write(&entry, b"x").unwrap();
        fs::write(ptx.join(".x.entry.1.0.tmp"), b"x").unwrap();
        fs::write(ptx.join("keep.txt"), b"x").unwrap();
        fs::write(dir.join("keep.txt"), b"x").unwrap();
        assert_eq!(list(&dir).len(), 1);
        let cleared = clear(&dir);
        assert_eq!(cleared.removed.len(), 2, "{cleared:?}");
        assert!(ptx.join("keep.txt").exists() && dir.join("keep.txt").exists());
        assert!(!entry.exists());
        let _ = fs::remove_dir_all(&dir);
    }
}
