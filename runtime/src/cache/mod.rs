//! The on-disk cache: compiled kernels and autotuning results, kept between commands.
//!
//! Data model. The cache is a directory ([`directory::location`]: `TRIDENT_CACHE_DIR`, else the
//! platform's cache directory) holding one file per entry, `KIND/KEY.entry`. An entry is one of
//! four [`Kind`]s: a PTX artifact, a cubin, a SPIR-V artifact (each with its launch metadata:
//! [`artifacts`]), or the choice of an `@triton.autotune` config ([`tuning`]). Its key
//! ([`keys`]) is a SHA-256 of everything the result depends on, the compiler's identity (crate
//! version and build id) included, so an entry is never stale: a changed kernel, flag, target,
//! device or trident gives another key, and old entries stay until `trident cache clear`.
//!
//! Invariants:
//! - An entry is loaded only if its file proves it is whole and is the entry asked for: the
//!   magic, the format version, the length and the SHA-256 of the body ([`store`]), then its kind,
//!   the trident that wrote it, its key, and a payload that decodes. Anything else is reported
//!   on stderr, `warning: cache entry PATH is corrupt (REASON); rebuilding`, and the caller
//!   compiles (or tunes) again and overwrites it. A damaged entry is never loaded.
//! - Writes are atomic (a temporary file in the same directory, then a rename): a reader never
//!   sees half an entry, and concurrent writers of the same key each leave a whole one.
//! - The cache never fails a command. A directory that cannot be created or written is one
//!   warning and no caching for the rest of the command; an unreadable entry is rebuilt.
//! - `--no-cache` gives a [`Cache::off`]: nothing is read and nothing is written.
//!
//! What the cache does not do: evict (entries of other trident builds and kernels accumulate
//! until `trident cache clear`), or cache the interpreter (it runs TTIR, compiled in
//! milliseconds) or TTIR/TTGIR text. The CUDA driver keeps its own cache of the machine code it
//! JIT-compiles from PTX (`~/.nv/ComputeCache`); trident stores cubins only where `ptxas` made
//! one (`trident compile --emit cubin`).
//!
//! Files: [`store`] (entry layout, checksum, atomic write), [`codec`] (the byte encoding),
//! [`keys`], [`artifacts`] and [`tuning`] (payloads), [`directory`] (location, list, clear). The
//! build id in every key comes from the runtime's `build.rs`. This module is the storage layer
//! only: the root package's command line decides what to look up, compiles or tunes on a miss
//! and stores the result (`src/cli/cached.rs`, `src/cli/autotune.rs`, `src/cli/cache.rs`).

pub mod artifacts;
pub mod codec;
pub mod directory;
pub mod keys;
pub mod store;
pub mod tuning;

use std::cell::Cell;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use codec::DecodeError;
use keys::Key;
use store::Header;

/// What an entry holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An nvptx artifact: PTX and its launch metadata.
    Ptx,
    /// A cubin `ptxas` assembled, with its register and spill counts.
    Cubin,
    /// A spirv artifact: SPIR-V words, bindings, assertion sites.
    Spirv,
    /// The autotune config chosen for one key on one device.
    Tuning,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Ptx, Kind::Cubin, Kind::Spirv, Kind::Tuning];

    /// The subdirectory of its entries, and its name in `trident cache list`.
    pub fn dir_name(self) -> &'static str {
        match self {
            Kind::Ptx => "ptx",
            Kind::Cubin => "cubin",
            Kind::Spirv => "spirv",
            Kind::Tuning => "tuning",
        }
    }

    /// Its byte in an entry's header.
    pub fn tag(self) -> u8 {
        match self {
            Kind::Ptx => 1,
            Kind::Cubin => 2,
            Kind::Spirv => 3,
            Kind::Tuning => 4,
        }
    }

    pub fn from_tag(tag: u8) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.tag() == tag)
    }
}

/// What an entry says about itself besides its kind and key, for `trident cache list`.
#[derive(Clone, Copy, Debug)]
pub struct About<'a> {
    pub kernel: &'a str,
    pub backend: &'a str,
    pub target: &'a str,
}

/// A loaded entry and where it was.
#[derive(Debug)]
pub struct Hit<T> {
    pub value: T,
    pub path: PathBuf,
}

/// The cache of one command.
#[derive(Clone, Debug)]
pub struct Cache {
    /// `None`: caching is off (`--no-cache`, or no directory could be found).
    dir: Option<PathBuf>,
    identity: String,
    /// Shared by the clones of one command's cache: after a failed write, no more are tried.
    writes_failed: Rc<Cell<bool>>,
}

impl Cache {
    /// The cache at [`directory::location`], or [`Cache::off`] when `no_cache` is set. Without
    /// any directory to use, one warning says so and caching is off.
    pub fn open(no_cache: bool) -> Cache {
        if no_cache {
            return Cache::off();
        }
        match directory::location() {
            Ok(dir) => Cache::at(dir),
            Err(reason) => {
                eprintln!("warning: {reason}; nothing is cached");
                Cache::off()
            }
        }
    }

    /// A cache in `dir`.
    pub fn at(dir: PathBuf) -> Cache {
        Cache { dir: Some(dir), identity: keys::identity(), writes_failed: Rc::new(Cell::new(false)) }
    }

    /// No cache: every load misses, every store is skipped.
    pub fn off() -> Cache {
        Cache { dir: None, identity: keys::identity(), writes_failed: Rc::new(Cell::new(false)) }
    }

    pub fn is_on(&self) -> bool {
        self.dir.is_some()
    }

    /// The file of an entry.
    pub fn path(&self, kind: Kind, key: &Key) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(dir.join(kind.dir_name()).join(format!("{}.{}", key.hex(), directory::ENTRY_EXTENSION)))
    }

    /// The entry of `kind` and `key`, decoded by `decode`; `None` when there is none or it is
    /// damaged (which is reported: see the module docs).
    pub fn load<T>(
        &self,
        kind: Kind,
        key: &Key,
        decode: impl FnOnce(&[u8]) -> Result<T, DecodeError>,
    ) -> Option<Hit<T>> {
        let path = self.path(kind, key)?;
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == ErrorKind::NotFound => return None,
            Err(error) => {
                report_corrupt(&path, &format!("unreadable: {error}"));
                return None;
            }
        };
        match self.check(kind, key, &bytes).and_then(|payload| decode(&payload).map_err(|e| e.0)) {
            Ok(value) => Some(Hit { value, path }),
            Err(reason) => {
                report_corrupt(&path, &reason);
                None
            }
        }
    }

    /// The payload of an entry's bytes, if it is the one asked for.
    fn check(&self, kind: Kind, key: &Key, bytes: &[u8]) -> Result<Vec<u8>, String> {
        let entry = store::decode(bytes).map_err(|corrupt| corrupt.0)?;
        let header = &entry.header;
        if header.kind != kind {
            return Err(format!(
                "it holds a {} entry, not a {} one",
                header.kind.dir_name(),
                kind.dir_name()
            ));
        }
        if header.identity != self.identity {
            return Err(format!("written by trident {}; this is trident {}", header.identity, self.identity));
        }
        if header.key != *key {
            return Err(format!("its key is {}, not the one its name gives", header.key.hex()));
        }
        Ok(entry.payload)
    }

    /// Writes an entry, replacing any entry of the same key. Returns where, or `None` when
    /// caching is off or the write failed (reported once per command).
    pub fn store(&self, kind: Kind, key: &Key, about: About, payload: &[u8]) -> Option<PathBuf> {
        if self.writes_failed.get() {
            return None;
        }
        let path = self.path(kind, key)?;
        let header = Header {
            kind,
            identity: self.identity.clone(),
            key: *key,
            kernel: about.kernel.to_string(),
            backend: about.backend.to_string(),
            target: about.target.to_string(),
        };
        match store::write_atomic(&path, &store::encode(&header, payload)) {
            Ok(()) => Some(path),
            Err(error) => {
                self.writes_failed.set(true);
                let dir = self.dir.as_deref().unwrap_or(Path::new("."));
                eprintln!(
                    "warning: cannot write to the cache at {}: {error}; continuing without caching",
                    dir.display()
                );
                None
            }
        }
    }
}

/// The warning for an entry that cannot be loaded.
fn report_corrupt(path: &Path, reason: &str) {
    eprintln!("warning: cache entry {} is corrupt ({reason}); rebuilding", path.display());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("trident-cache-test-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    const ABOUT: About<'static> = About { kernel: "k", backend: "nvptx", target: "sm_90a" };

    fn decode_text(bytes: &[u8]) -> Result<String, DecodeError> {
        String::from_utf8(bytes.to_vec()).map_err(|_| DecodeError("not text".into()))
    }

    #[test]
    fn stores_loads_and_refuses_what_is_not_asked_for() {
        let dir = scratch("roundtrip");
        let cache = Cache::at(dir.clone());
        let key = Key([1; 32]);
        assert!(cache.load(Kind::Ptx, &key, decode_text).is_none());
        let path = cache.store(Kind::Ptx, &key, ABOUT, b"ptx text").unwrap();
        assert_eq!(cache.load(Kind::Ptx, &key, decode_text).unwrap().value, "ptx text");
        // The same bytes under another key's name, or read as another kind, are refused.
        let other = Key([2; 32]);
        fs::copy(&path, cache.path(Kind::Ptx, &other).unwrap()).unwrap();
        assert!(cache.load(Kind::Ptx, &other, decode_text).is_none());
        let spirv_path = cache.path(Kind::Spirv, &key).unwrap();
        fs::create_dir_all(spirv_path.parent().unwrap()).unwrap();
        fs::copy(&path, &spirv_path).unwrap();
        assert!(cache.load(Kind::Spirv, &key, decode_text).is_none());
        // Another trident's entry is refused too.
        let other_trident = Cache { identity: "0.0.0+other".into(), ..cache.clone() };
        assert!(other_trident.load(Kind::Ptx, &key, decode_text).is_none());
        assert!(Cache::off().store(Kind::Ptx, &key, ABOUT, b"x").is_none());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unwritable_directory_turns_writes_off() {
        let dir = scratch("unwritable");
        fs::create_dir_all(&dir).unwrap();
        // A file where the cache directory should be: every write fails, even as root.
        let file = dir.join("file");
        fs::write(&file, b"").unwrap();
        let cache = Cache::at(file.join("cache"));
        assert!(cache.store(Kind::Ptx, &Key([1; 32]), ABOUT, b"x").is_none());
        assert!(cache.writes_failed.get());
        assert!(cache.load(Kind::Ptx, &Key([1; 32]), decode_text).is_none());
        let _ = fs::remove_dir_all(&dir);
    }
}
