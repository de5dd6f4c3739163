//! One cache entry as a file: its header, its checksum, and the atomic write that puts it on disk.
//!
//! Layout (all integers little-endian):
//!
//! ```text
//! offset  size  field
//!      0     8  magic "TRIDENTC"
//!      8     4  format version (FORMAT_VERSION)
//!     12     8  body length in bytes
//!     20    32  SHA-256 of the body
//!     52     …  body: kind (u8), identity, key (32 bytes), kernel, backend, target (strings),
//!               payload (a byte string)
//! ```
//!
//! [`decode`] checks, in this order, that the file is long enough for the fixed header, that it
//! starts with the magic (else it is not a trident entry), that the format version is this
//! trident's, that the body is exactly as long as the header says (else it was truncated or
//! appended to), and that the body's SHA-256 matches. Only then are the header's fields read;
//! whether they are the ones the reader wanted (kind, trident identity, key) is
//! [`super::Cache`]'s check. So a flipped byte anywhere after offset 52 is a checksum mismatch,
//! and one before it a bad magic, a foreign version or a wrong length.
//!
//! [`write_atomic`] writes a temporary file in the entry's directory and renames it over the
//! entry: a reader sees the old entry or the new one, never a half-written one, and two writers
//! of the same key both leave a whole entry. There is no fsync: after a power loss an entry may
//! be empty or short, which [`decode`] reports and the cache rebuilds.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

use super::codec::{Decoder, Encoder};
use super::keys::Key;
use super::Kind;

/// The first bytes of every entry.
pub const MAGIC: &[u8; 8] = b"TRIDENTC";
/// The layout above; a change to it, or to any payload's encoding, bumps it.
pub const FORMAT_VERSION: u32 = 3;
/// Magic, format version, body length and checksum.
pub const FIXED_HEADER_BYTES: usize = 8 + 4 + 8 + 32;
/// Where the format version is (tests rewrite it).
pub const VERSION_OFFSET: usize = 8;
/// Where the checksum is.
pub const CHECKSUM_OFFSET: usize = 20;

/// What an entry says about itself. Only `kind`, `identity` and `key` decide whether it is
/// loaded; the rest is for `trident cache list`.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub kind: Kind,
    /// The trident that wrote it: crate version and build id ([`super::keys::identity`]).
    pub identity: String,
    pub key: Key,
    pub kernel: String,
    /// `nvptx` or `spirv`.
    pub backend: String,
    /// The target or device, in words (`sm_90a, 8 warps, 3 stages`, `llvmpipe (...)`).
    pub target: String,
}

/// A decoded entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub header: Header,
    pub payload: Vec<u8>,
}

/// Why an entry cannot be loaded, in words for the warning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Corrupt(pub String);

/// The bytes of an entry.
pub fn encode(header: &Header, payload: &[u8]) -> Vec<u8> {
    let mut body = Encoder::new();
    body.u8(header.kind.tag()).str(&header.identity);
    for byte in header.key.0 {
        body.u8(byte);
    }
    body.str(&header.kernel).str(&header.backend).str(&header.target).bytes(payload);
    let body = body.finish();
    let mut bytes = Vec::with_capacity(FIXED_HEADER_BYTES + body.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&Sha256::digest(&body));
    bytes.extend_from_slice(&body);
    bytes
}

/// Reads an entry back, checking everything the file itself can prove (see the module docs).
pub fn decode(bytes: &[u8]) -> Result<Entry, Corrupt> {
    let corrupt = |reason: String| Err(Corrupt(reason));
    let short = || format!("truncated: {} bytes, the header alone has {FIXED_HEADER_BYTES}", bytes.len());
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        if bytes.len() < MAGIC.len() && MAGIC.starts_with(bytes) {
            return corrupt(short());
        }
        return corrupt("not a trident cache entry: the magic bytes are wrong".into());
    }
    if bytes.len() < FIXED_HEADER_BYTES {
        return corrupt(short());
    }
    let field = |at: usize, len: usize| &bytes[at..at + len];
    let version = u32::from_le_bytes(field(VERSION_OFFSET, 4).try_into().unwrap_or_default());
    if version != FORMAT_VERSION {
        return corrupt(format!("format version {version}; this trident reads version {FORMAT_VERSION}"));
    }
    let body_len = u64::from_le_bytes(field(12, 8).try_into().unwrap_or_default());
    let actual = (bytes.len() - FIXED_HEADER_BYTES) as u64;
    if actual < body_len {
        return corrupt(format!(
            "truncated: {} bytes of {}",
            bytes.len(),
            body_len.saturating_add(FIXED_HEADER_BYTES as u64)
        ));
    }
    if actual > body_len {
        return corrupt(format!("{} bytes beyond the end its header gives", actual - body_len));
    }
    let body = &bytes[FIXED_HEADER_BYTES..];
    if Sha256::digest(body).as_slice() != field(CHECKSUM_OFFSET, 32) {
        return corrupt("checksum mismatch: the contents changed after they were written".into());
    }
    // The checksum holds, so what follows was written by an encoder; a decoding error now means
    // a writer with the same format version and a different layout, which is also corrupt.
    let header_error = |e: super::codec::DecodeError| Corrupt(format!("unreadable header: {e}"));
    let mut decoder = Decoder::new(body);
    let tag = decoder.u8().map_err(header_error)?;
    let kind = Kind::from_tag(tag).ok_or_else(|| Corrupt(format!("unknown entry kind {tag}")))?;
    let identity = decoder.string().map_err(header_error)?;
    let mut key = [0u8; 32];
    for byte in &mut key {
        *byte = decoder.u8().map_err(header_error)?;
    }
    let kernel = decoder.string().map_err(header_error)?;
    let backend = decoder.string().map_err(header_error)?;
    let target = decoder.string().map_err(header_error)?;
    let payload = decoder.bytes().map_err(header_error)?.to_vec();
    decoder.finish().map_err(header_error)?;
    Ok(Entry { header: Header { kind, identity, key: Key(key), kernel, backend, target }, payload })
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, creating
/// the directory. On failure nothing is left behind but what was there before.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let temp = temp_path(path);
    let written = fs::File::create(&temp).and_then(|mut file| file.write_all(bytes));
    let renamed = written.and_then(|()| fs::rename(&temp, path));
    if renamed.is_err() {
        let _ = fs::remove_file(&temp);
    }
    renamed
}

/// A name beside `path` that no other writer uses: `.NAME.PID.N.tmp`.
fn temp_path(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{}.{n}.tmp", std::process::id()))
}

/// Whether a file name is one of [`write_atomic`]'s temporaries (left behind by a process that
/// was killed between the write and the rename).
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            kind: Kind::Ptx,
            identity: "0.1.0+0123456789abcdef".into(),
            key: Key([7; 32]),
            kernel: "add_kernel".into(),
            backend: "nvptx".into(),
            target: "sm_90a".into(),
        }
    }

    #[test]
    fn round_trips() {
        let bytes = encode(&header(), b"payload");
        let entry = decode(&bytes).unwrap();
        assert_eq!(entry.header, header());
        assert_eq!(entry.payload, b"payload");
    }

    #[test]
    fn every_kind_of_damage_is_named() {
        let bytes = encode(&header(), b"payload");
        let reason = |bytes: &[u8]| decode(bytes).unwrap_err().0;
        let cut = reason(&bytes[..bytes.len() - 3]);
        assert_eq!(cut, format!("truncated: {} bytes of {}", bytes.len() - 3, bytes.len()));
        assert!(reason(&bytes[..30]).contains("the header alone has 52"));
        assert!(reason(&bytes[..4]).starts_with("truncated: 4 bytes"));
        assert!(reason(&[]).starts_with("truncated: 0 bytes"));
        let mut flipped = bytes.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert!(reason(&flipped).starts_with("checksum mismatch"));
        let mut version = bytes.clone();
        version[VERSION_OFFSET] = 9;
        assert_eq!(reason(&version), "format version 9; this trident reads version 3");
        let mut foreign = bytes.clone();
        foreign[0] = b'X';
        assert!(reason(&foreign).starts_with("not a trident cache entry"));
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(reason(&longer), "1 bytes beyond the end its header gives");
    }

    #[test]
    fn writes_atomically() {
        let dir = std::env::temp_dir().join(format!("trident-store-test-{}", std::process::id()));
        let path = dir.join("sub").join("entry.bin");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let names: Vec<String> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["entry.bin"], "no temporary file is left behind");
        assert!(is_temp_name(&temp_path(&path).file_name().unwrap().to_string_lossy()));
        let _ = fs::remove_dir_all(&dir);
    }
}
