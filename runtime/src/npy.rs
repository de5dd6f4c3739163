//! `.npy` files in and out: the buffers of `trident run`.
//!
//! The format (numpy's `format.py`): the magic `\x93NUMPY`, a version (1.0, 2.0 or 3.0), the
//! header length (u16 for 1.0, u32 after), and a header that is a Python dict literal such as
//! `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`, padded with spaces and a newline
//! so that the data starts on a 64-byte boundary. The data follows as raw elements.
//!
//! What is supported: little-endian (`<`) and byte-order-free (`|`) descrs of bool, int8..int64,
//! uint8..uint64 and float16/32/64, in C order. Fortran order, big-endian data and structured
//! dtypes are refused with a message that says so; nothing here guesses.
//!
//! Typed storage numpy lacks (bf16, fp8) travels as integer bits: a uint16 file read with the
//! `bf16` override becomes a [`Buffer`] with `dtype = BF16` and `storage = U16`, and is written
//! back as uint16. Writing always writes `storage` with the buffer's shape, in format 1.0 when the
//! header fits (2.0 otherwise).

use std::fmt;
use std::path::Path;

use trident_midend::ir::DType;

use crate::buffer::Buffer;

const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// Why a `.npy` file could not be read or written. The message names the file when known.
#[derive(Clone, Debug, PartialEq)]
pub struct NpyError(pub String);

impl fmt::Display for NpyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NpyError {}

fn err<T>(message: impl Into<String>) -> Result<T, NpyError> {
    Err(NpyError(message.into()))
}

/// What a `.npy` header says: the element type of the stored data and the array's shape.
#[derive(Clone, Debug, PartialEq)]
pub struct NpyHeader {
    /// The stored element type (`I1` for numpy's bool).
    pub storage: DType,
    pub shape: Vec<usize>,
    /// Byte offset of the first element in the file.
    pub data_offset: usize,
}

impl NpyHeader {
    /// Number of elements (1 for a 0-d array); `None` when it overflows.
    pub fn numel(&self) -> Option<usize> {
        self.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
    }
}

/// Reads a `.npy` file into a buffer named `name`. `override_dtype` is the kernel's element
/// type when it differs from the stored one (see [`kernel_dtype`]).
pub fn read(path: &Path, name: &str, override_dtype: Option<DType>) -> Result<Buffer, NpyError> {
    let bytes = std::fs::read(path).or_else(|e| err(format!("cannot read {}: {e}", path.display())))?;
    decode(&bytes, name, override_dtype).map_err(|e| NpyError(format!("{}: {}", path.display(), e.0)))
}

/// Reads only the header of a `.npy` file (for `trident compile`, which needs dtypes, not data).
pub fn read_header(path: &Path) -> Result<NpyHeader, NpyError> {
    use std::io::Read;
    let mut file =
        std::fs::File::open(path).or_else(|e| err(format!("cannot read {}: {e}", path.display())))?;
    // Headers are small; 64 KiB covers every 1.0 header, and longer ones are read in full.
    let mut prefix = Vec::new();
    file.by_ref()
        .take(65536 + 16)
        .read_to_end(&mut prefix)
        .or_else(|e| err(format!("cannot read {}: {e}", path.display())))?;
    let header = match parse_header(&prefix) {
        Ok(header) => Ok(header),
        Err(_) if prefix.len() > 65536 => {
            let all = std::fs::read(path).or_else(|e| err(format!("cannot read {}: {e}", path.display())))?;
            parse_header(&all)
        }
        Err(e) => Err(e),
    };
    header.map_err(|e| NpyError(format!("{}: {}", path.display(), e.0)))
}

/// Writes `buffer`'s bytes as a `.npy` of its storage dtype and shape.
pub fn write(path: &Path, buffer: &Buffer) -> Result<(), NpyError> {
    let bytes = encode(buffer)?;
    std::fs::write(path, bytes).or_else(|e| err(format!("cannot write {}: {e}", path.display())))
}

/// The element type the kernel sees for a file stored as `storage`, given an optional override:
/// `bf16` needs 16-bit integer storage, `fp8e4nv`/`fp8e5` need 8-bit integer storage, and any
/// other override must equal the stored type.
pub fn kernel_dtype(storage: DType, override_dtype: Option<DType>) -> Result<DType, NpyError> {
    let Some(wanted) = override_dtype else { return Ok(storage) };
    let fits = match wanted {
        DType::BF16 => matches!(storage, DType::U16 | DType::I16 | DType::BF16),
        DType::F8E4M3 | DType::F8E5M2 => matches!(storage, DType::U8 | DType::I8) || storage == wanted,
        _ => storage == wanted,
    };
    if fits {
        Ok(wanted)
    } else {
        let needs = match wanted {
            DType::BF16 => "uint16 or int16 data".to_string(),
            DType::F8E4M3 | DType::F8E5M2 => "uint8 or int8 data".to_string(),
            _ => format!("{} data", numpy_name(wanted)),
        };
        err(format!(
            "cannot read {} data as {}: {} needs {needs}",
            numpy_name(storage),
            wanted.triton_name(),
            wanted.triton_name()
        ))
    }
}

/// Parses a whole `.npy` file image into a buffer.
pub fn decode(bytes: &[u8], name: &str, override_dtype: Option<DType>) -> Result<Buffer, NpyError> {
    let header = parse_header(bytes)?;
    let dtype = kernel_dtype(header.storage, override_dtype)?;
    let Some(want) = header.numel().and_then(|n| n.checked_mul(header.storage.size_bytes())) else {
        return err(format!(
            "the header's shape {:?} holds more bytes than memory can address",
            header.shape
        ));
    };
    let data = &bytes[header.data_offset..];
    if data.len() != want {
        return err(format!(
            "the header promises {want} bytes of data (shape {:?} of {}) but the file holds {}",
            header.shape,
            numpy_name(header.storage),
            data.len()
        ));
    }
    Ok(Buffer {
        name: name.to_string(),
        dtype,
        storage: header.storage,
        shape: header.shape,
        bytes: data.to_vec(),
    })
}

/// The `.npy` file image of a buffer: its bytes as `storage`, with its shape.
pub fn encode(buffer: &Buffer) -> Result<Vec<u8>, NpyError> {
    let numel: usize = buffer.shape.iter().product();
    let itemsize = buffer.storage.size_bytes();
    if numel * itemsize != buffer.bytes.len() {
        return err(format!(
            "buffer {} holds {} bytes, but its shape {:?} of {} needs {}",
            buffer.name,
            buffer.bytes.len(),
            buffer.shape,
            numpy_name(buffer.storage),
            numel * itemsize
        ));
    }
    let shape = match buffer.shape.as_slice() {
        [] => "()".to_string(),
        [n] => format!("({n},)"),
        dims => format!("({})", dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let dict =
        format!("{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}", descr(buffer.storage));
    // Version 1.0 stores the header length in a u16; longer headers need 2.0 (u32).
    let (version, len_bytes) = if dict.len() + 1 + 10 <= 65535 { (1u8, 2) } else { (2u8, 4) };
    let unpadded = MAGIC.len() + 2 + len_bytes + dict.len() + 1;
    let padding = (64 - unpadded % 64) % 64;
    let header_len = dict.len() + padding + 1;

    let mut out = Vec::with_capacity(unpadded + padding + buffer.bytes.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(header_len as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(header_len as u32).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.extend(std::iter::repeat_n(b' ', padding));
    out.push(b'\n');
    out.extend_from_slice(&buffer.bytes);
    Ok(out)
}

/// The numpy descr written for a storage type. Types numpy lacks are written as their bits.
fn descr(storage: DType) -> &'static str {
    match storage {
        DType::I1 => "|b1",
        DType::I8 => "|i1",
        DType::U8 | DType::F8E4M3 | DType::F8E5M2 => "|u1",
        DType::I16 => "<i2",
        DType::U16 | DType::BF16 => "<u2",
        DType::I32 => "<i4",
        DType::U32 => "<u4",
        DType::I64 => "<i8",
        DType::U64 => "<u8",
        DType::F16 => "<f2",
        DType::F32 => "<f4",
        DType::F64 => "<f8",
    }
}

/// numpy's name of a dtype, for messages.
fn numpy_name(d: DType) -> &'static str {
    match d {
        DType::I1 => "bool",
        DType::F16 => "float16",
        DType::F32 => "float32",
        DType::F64 => "float64",
        other => other.triton_name(),
    }
}

/// Parses magic, version and the header dict; checks what this module supports.
fn parse_header(bytes: &[u8]) -> Result<NpyHeader, NpyError> {
    if bytes.len() < 10 || &bytes[..6] != MAGIC {
        return err("not a .npy file (no \\x93NUMPY magic)");
    }
    let (major, minor) = (bytes[6], bytes[7]);
    let (header_len, start) = match major {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
        2 | 3 => {
            if bytes.len() < 12 {
                return err("truncated .npy header");
            }
            (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12)
        }
        _ => {
            return err(format!(
                "unsupported .npy format version {major}.{minor} (1.0, 2.0 and 3.0 are read)"
            ))
        }
    };
    let end = start.checked_add(header_len).filter(|&end| end <= bytes.len());
    let Some(end) = end else { return err("truncated .npy header") };
    // Versions 1.0 and 2.0 use latin-1 headers, 3.0 UTF-8; the keys and values read here are ASCII.
    let text = String::from_utf8_lossy(&bytes[start..end]);
    let dict = parse_dict(&text)?;

    let descr_text = match dict.iter().find(|(k, _)| k == "descr") {
        Some((_, Literal::Str(s))) => s.clone(),
        Some(_) => return err("structured dtypes (a list as 'descr') are not supported"),
        None => return err("the .npy header has no 'descr'"),
    };
    match dict.iter().find(|(k, _)| k == "fortran_order") {
        Some((_, Literal::Bool(false))) => {}
        Some((_, Literal::Bool(true))) => {
            return err(
                "fortran_order=True is not supported: save the array in C order (np.ascontiguousarray)",
            )
        }
        _ => return err("the .npy header has no boolean 'fortran_order'"),
    }
    let shape = match dict.iter().find(|(k, _)| k == "shape") {
        Some((_, Literal::Tuple(dims))) => dims.clone(),
        _ => return err("the .npy header has no 'shape' tuple"),
    };
    let storage = parse_descr(&descr_text)?;
    if shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).is_none() {
        return err(format!("shape {shape:?} is too large"));
    }
    Ok(NpyHeader { storage, shape, data_offset: end })
}

/// Maps a numpy type string (`<f4`, `|u1`, `|b1`) to a dtype.
fn parse_descr(descr: &str) -> Result<DType, NpyError> {
    let mut chars = descr.chars();
    let order = chars.next().unwrap_or(' ');
    let code = chars.as_str();
    if order == '>' {
        return err(format!("big-endian data ('{descr}') is not supported: save it little-endian"));
    }
    if !matches!(order, '<' | '|' | '=') {
        return err(format!("unsupported dtype '{descr}'"));
    }
    let dtype = match code {
        "b1" => DType::I1,
        "i1" => DType::I8,
        "i2" => DType::I16,
        "i4" => DType::I32,
        "i8" => DType::I64,
        "u1" => DType::U8,
        "u2" => DType::U16,
        "u4" => DType::U32,
        "u8" => DType::U64,
        "f2" => DType::F16,
        "f4" => DType::F32,
        "f8" => DType::F64,
        _ => {
            return err(format!(
                "unsupported dtype '{descr}' (bool, int8..int64, uint8..uint64, float16/32/64 are)"
            ))
        }
    };
    Ok(dtype)
}

/// A value of the header dict: the few Python literals a `.npy` header holds.
#[derive(Clone, Debug, PartialEq)]
enum Literal {
    Str(String),
    Bool(bool),
    Tuple(Vec<usize>),
    /// Anything else (a list descr of a structured dtype, ...), kept only to be refused.
    Other,
}

/// Parses `{'key': literal, ...}` into (key, literal) pairs.
fn parse_dict(text: &str) -> Result<Vec<(String, Literal)>, NpyError> {
    let mut cursor = Cursor { text: text.as_bytes(), pos: 0 };
    let mut out = Vec::new();
    cursor.expect(b'{')?;
    loop {
        cursor.skip_space();
        if cursor.eat(b'}') {
            return Ok(out);
        }
        let key = cursor.string()?;
        cursor.expect(b':')?;
        let value = cursor.literal()?;
        out.push((key, value));
        cursor.skip_space();
        if !cursor.eat(b',') {
            cursor.expect(b'}')?;
            return Ok(out);
        }
    }
}

/// A byte cursor over the header text.
struct Cursor<'a> {
    text: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.skip_space();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), NpyError> {
        if self.eat(c) {
            Ok(())
        } else {
            err(format!("malformed .npy header: expected '{}' at byte {}", c as char, self.pos))
        }
    }

    fn string(&mut self) -> Result<String, NpyError> {
        self.skip_space();
        let quote = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q,
            _ => return err(format!("malformed .npy header: expected a string at byte {}", self.pos)),
        };
        self.pos += 1;
        let start = self.pos;
        while self.peek().is_some_and(|c| c != quote) {
            self.pos += 1;
        }
        if self.peek().is_none() {
            return err("malformed .npy header: unterminated string");
        }
        let s = String::from_utf8_lossy(&self.text[start..self.pos]).into_owned();
        self.pos += 1;
        Ok(s)
    }

    fn word(&mut self) -> &str {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
            self.pos += 1;
        }
        std::str::from_utf8(&self.text[start..self.pos]).unwrap_or("")
    }

    fn literal(&mut self) -> Result<Literal, NpyError> {
        self.skip_space();
        match self.peek() {
            Some(b'\'' | b'"') => Ok(Literal::Str(self.string()?)),
            Some(b'(') => {
                self.pos += 1;
                let mut dims = Vec::new();
                loop {
                    if self.eat(b')') {
                        return Ok(Literal::Tuple(dims));
                    }
                    self.skip_space();
                    // numpy may write `3L` (Python 2) for long ints.
                    let word = self.word().trim_end_matches('L').to_string();
                    let dim = word
                        .parse::<usize>()
                        .or_else(|_| err(format!("malformed .npy header: bad dimension '{word}'")))?;
                    dims.push(dim);
                    if !self.eat(b',') {
                        self.expect(b')')?;
                        return Ok(Literal::Tuple(dims));
                    }
                }
            }
            Some(b'[') => {
                // A structured dtype's descr: skip to the matching bracket.
                let mut depth = 0;
                while let Some(c) = self.peek() {
                    self.pos += 1;
                    match c {
                        b'[' => depth += 1,
                        b']' => {
                            depth -= 1;
                            if depth == 0 {
                                return Ok(Literal::Other);
                            }
                        }
                        _ => {}
                    }
                }
                err("malformed .npy header: unterminated list")
            }
            _ => match self.word() {
                "True" => Ok(Literal::Bool(true)),
                "False" => Ok(Literal::Bool(false)),
                "" => err(format!("malformed .npy header at byte {}", self.pos)),
                _ => Ok(Literal::Other),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file image as numpy 2.x writes it (`np.save`), built by hand.
    fn npy_image(version: u8, dict: &str, data: &[u8]) -> Vec<u8> {
        let len_bytes = if version == 1 { 2 } else { 4 };
        let unpadded = 6 + 2 + len_bytes + dict.len() + 1;
        let padding = (64 - unpadded % 64) % 64;
        let header_len = dict.len() + padding + 1;
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&[version, 0]);
        if version == 1 {
            out.extend_from_slice(&(header_len as u16).to_le_bytes());
        } else {
            out.extend_from_slice(&(header_len as u32).to_le_bytes());
        }
        out.extend_from_slice(dict.as_bytes());
        out.extend(std::iter::repeat_n(b' ', padding));
        out.push(b'\n');
        out.extend_from_slice(data);
        out
    }

    fn f32_bytes(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn reads_every_version() {
        let data = f32_bytes(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        for version in [1, 2, 3] {
            let image =
                npy_image(version, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", &data);
            let buffer = decode(&image, "x", None).unwrap();
            assert_eq!(buffer.dtype, DType::F32);
            assert_eq!(buffer.storage, DType::F32);
            assert_eq!(buffer.shape, vec![2, 3]);
            assert_eq!(buffer.bytes, data);
        }
    }

    #[test]
    fn reads_every_supported_descr() {
        let cases = [
            ("|b1", DType::I1, 1),
            ("|i1", DType::I8, 1),
            ("|u1", DType::U8, 1),
            ("<i2", DType::I16, 2),
            ("<u2", DType::U16, 2),
            ("<i4", DType::I32, 4),
            ("<u4", DType::U32, 4),
            ("<i8", DType::I64, 8),
            ("<u8", DType::U64, 8),
            ("<f2", DType::F16, 2),
            ("<f4", DType::F32, 4),
            ("<f8", DType::F64, 8),
        ];
        for (descr, dtype, size) in cases {
            let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (5,), }}");
            let image = npy_image(1, &dict, &vec![1u8; 5 * size]);
            let buffer = decode(&image, "x", None).unwrap();
            assert_eq!((buffer.dtype, buffer.len()), (dtype, 5), "{descr}");
        }
    }

    /// A header whose element count fits but whose byte count overflows (2^31 x 2^31 elements
    /// of 4 bytes) is an error, not a wrapped size that happens to match a short file.
    #[test]
    fn a_shape_overflowing_the_byte_count_is_refused() {
        let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2147483648, 2147483648), }";
        let error = decode(&npy_image(1, dict, &[]), "x", None).unwrap_err();
        assert!(error.to_string().contains("more bytes than memory can address"), "{error}");
    }

    #[test]
    fn round_trips_through_encode() {
        for shape in [vec![], vec![7], vec![2, 3, 4]] {
            let numel: usize = shape.iter().product();
            let buffer = Buffer {
                name: "y".into(),
                dtype: DType::BF16,
                storage: DType::U16,
                shape: shape.clone(),
                bytes: (0..numel * 2).map(|i| i as u8).collect(),
            };
            let image = encode(&buffer).unwrap();
            let header_end = image.iter().position(|&b| b == b'\n').unwrap() + 1;
            assert_eq!(header_end % 64, 0, "data starts on a 64-byte boundary");
            let back = decode(&image, "y", Some(DType::BF16)).unwrap();
            assert_eq!(back, buffer);
        }
    }

    #[test]
    fn zero_d_and_empty_arrays() {
        let image =
            npy_image(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (), }", &7i64.to_le_bytes());
        let buffer = decode(&image, "s", None).unwrap();
        assert_eq!((buffer.shape.clone(), buffer.len()), (vec![], 1));
        let image = npy_image(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", &[]);
        assert!(decode(&image, "e", None).unwrap().is_empty());
    }

    #[test]
    fn overrides() {
        assert_eq!(kernel_dtype(DType::U16, Some(DType::BF16)), Ok(DType::BF16));
        assert_eq!(kernel_dtype(DType::I16, Some(DType::BF16)), Ok(DType::BF16));
        assert_eq!(kernel_dtype(DType::U8, Some(DType::F8E4M3)), Ok(DType::F8E4M3));
        assert_eq!(kernel_dtype(DType::I8, Some(DType::F8E5M2)), Ok(DType::F8E5M2));
        assert_eq!(kernel_dtype(DType::F32, Some(DType::F32)), Ok(DType::F32));
        assert_eq!(kernel_dtype(DType::I1, None), Ok(DType::I1));
        assert_eq!(
            kernel_dtype(DType::F32, Some(DType::BF16)).unwrap_err().0,
            "cannot read float32 data as bf16: bf16 needs uint16 or int16 data"
        );
        assert_eq!(
            kernel_dtype(DType::U16, Some(DType::F8E5M2)).unwrap_err().0,
            "cannot read uint16 data as fp8e5: fp8e5 needs uint8 or int8 data"
        );
        assert_eq!(
            kernel_dtype(DType::F32, Some(DType::F16)).unwrap_err().0,
            "cannot read float32 data as fp16: fp16 needs float16 data"
        );
    }

    #[test]
    fn refuses_what_it_does_not_support() {
        let refuse = |dict: &str, data: &[u8]| decode(&npy_image(1, dict, data), "x", None).unwrap_err().0;
        assert!(refuse("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", &[0; 4])
            .contains("fortran_order"));
        assert!(refuse("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", &[0; 4])
            .contains("big-endian"));
        assert!(refuse("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", &[0; 8])
            .contains("unsupported dtype"));
        assert!(refuse("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", &[0; 4])
            .contains("structured"));
        assert!(refuse("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", &[0; 4])
            .contains("promises 12 bytes"));
        assert!(decode(b"PK\x03\x04 not npy", "x", None).unwrap_err().0.contains("not a .npy file"));
        assert!(decode(&npy_image(1, "{'descr': '<f4'", &[]), "x", None).is_err());
        let mut bad_version = npy_image(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", &[]);
        bad_version[6] = 9;
        assert!(decode(&bad_version, "x", None).unwrap_err().0.contains("version 9.0"));
    }

    #[test]
    fn never_panics_on_truncated_input() {
        let image = npy_image(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", &[0; 8]);
        for len in 0..image.len() {
            let _ = decode(&image[..len], "x", None);
        }
    }

    #[test]
    fn files_on_disk() {
        let dir = std::env::temp_dir().join(format!("trident-npy-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("z.npy");
        let buffer = Buffer::zeros("z", DType::F32, 10);
        write(&path, &buffer).unwrap();
        assert_eq!(read(&path, "z", None).unwrap(), buffer);
        let header = read_header(&path).unwrap();
        assert_eq!((header.storage, header.shape), (DType::F32, vec![10]));
        assert!(read(&dir.join("missing.npy"), "m", None).unwrap_err().0.contains("cannot read"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
