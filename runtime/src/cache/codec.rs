//! The byte encoding of cache entries: little-endian fixed-width integers, `u32` counts before
//! strings, byte strings and lists.
//!
//! Hand-written rather than a serialization framework's: the payloads are a handful of plain
//! structs (a backend's artifact and its launch metadata, a tuning table), and a format spelled
//! out here cannot change under the cache because a dependency changed its encoding.
//!
//! A [`Decoder`] never panics and never allocates more than the bytes it was given could hold: a
//! count that claims more elements than bytes remain is an error, so a corrupt length cannot ask
//! for gigabytes. Every error is a [`DecodeError`], which the cache reports as a corrupt entry.

use std::fmt;

/// Why bytes do not decode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DecodeError {}

/// Appends fields to a byte vector.
#[derive(Default)]
pub struct Encoder {
    bytes: Vec<u8>,
}

impl Encoder {
    pub fn new() -> Encoder {
        Encoder::default()
    }

    pub fn u8(&mut self, value: u8) -> &mut Self {
        self.bytes.push(value);
        self
    }

    pub fn bool(&mut self, value: bool) -> &mut Self {
        self.u8(u8::from(value))
    }

    pub fn u32(&mut self, value: u32) -> &mut Self {
        self.bytes.extend_from_slice(&value.to_le_bytes());
        self
    }

    pub fn u64(&mut self, value: u64) -> &mut Self {
        self.bytes.extend_from_slice(&value.to_le_bytes());
        self
    }

    pub fn f64(&mut self, value: f64) -> &mut Self {
        self.u64(value.to_bits())
    }

    /// A count of elements that follow. Counts above `u32::MAX` do not occur in what the cache
    /// stores (artifacts are megabytes at most); they are clamped, which the decoder then
    /// rejects as a short entry rather than misreading.
    pub fn count(&mut self, count: usize) -> &mut Self {
        self.u32(u32::try_from(count).unwrap_or(u32::MAX))
    }

    pub fn bytes(&mut self, value: &[u8]) -> &mut Self {
        self.count(value.len());
        self.bytes.extend_from_slice(value);
        self
    }

    pub fn str(&mut self, value: &str) -> &mut Self {
        self.bytes(value.as_bytes())
    }

    pub fn strings(&mut self, values: &[String]) -> &mut Self {
        self.count(values.len());
        for value in values {
            self.str(value);
        }
        self
    }

    pub fn words(&mut self, values: &[u32]) -> &mut Self {
        self.count(values.len());
        for &word in values {
            self.u32(word);
        }
        self
    }

    pub fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

/// Reads fields back in the order an [`Encoder`] wrote them.
pub struct Decoder<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Decoder<'a> {
    pub fn new(bytes: &'a [u8]) -> Decoder<'a> {
        Decoder { bytes, at: 0 }
    }

    fn take(&mut self, len: usize) -> Result<&'a [u8], DecodeError> {
        let end = self.at.checked_add(len).filter(|&end| end <= self.bytes.len()).ok_or_else(|| {
            DecodeError(format!(
                "the payload ends early: {len} bytes wanted at offset {}, {} bytes long",
                self.at,
                self.bytes.len()
            ))
        })?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }

    pub fn bool(&mut self) -> Result<bool, DecodeError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(DecodeError(format!("{other} is not a boolean"))),
        }
    }

    pub fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    pub fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    pub fn f64(&mut self) -> Result<f64, DecodeError> {
        Ok(f64::from_bits(self.u64()?))
    }

    /// A count of elements of at least `min_size` bytes each, checked against what remains.
    pub fn count(&mut self, min_size: usize) -> Result<usize, DecodeError> {
        let count = self.u32()? as usize;
        let remaining = self.bytes.len() - self.at;
        if count.saturating_mul(min_size.max(1)) > remaining {
            return Err(DecodeError(format!(
                "a count of {count} at offset {} is more than the {remaining} bytes left",
                self.at - 4
            )));
        }
        Ok(count)
    }

    pub fn bytes(&mut self) -> Result<&'a [u8], DecodeError> {
        let len = self.count(1)?;
        self.take(len)
    }

    pub fn string(&mut self) -> Result<String, DecodeError> {
        let bytes = self.bytes()?;
        String::from_utf8(bytes.to_vec()).map_err(|_| DecodeError("a string is not UTF-8".into()))
    }

    pub fn strings(&mut self) -> Result<Vec<String>, DecodeError> {
        let count = self.count(4)?;
        (0..count).map(|_| self.string()).collect()
    }

    pub fn words(&mut self) -> Result<Vec<u32>, DecodeError> {
        let count = self.count(4)?;
        (0..count).map(|_| self.u32()).collect()
    }

    /// Checks that every byte was read: trailing bytes mean the reader and the writer disagree.
    pub fn finish(self) -> Result<(), DecodeError> {
        if self.at == self.bytes.len() {
            Ok(())
        } else {
            Err(DecodeError(format!("{} bytes left over after the payload", self.bytes.len() - self.at)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_field() {
        let mut encoder = Encoder::new();
        encoder.u8(7).bool(true).u32(0xdead_beef).u64(u64::MAX).f64(-0.5);
        encoder.str("add_kernel").strings(&["a".into(), "".into()]).words(&[1, 2, 3]).bytes(&[9, 8]);
        let bytes = encoder.finish();
        let mut decoder = Decoder::new(&bytes);
        assert_eq!(decoder.u8(), Ok(7));
        assert_eq!(decoder.bool(), Ok(true));
        assert_eq!(decoder.u32(), Ok(0xdead_beef));
        assert_eq!(decoder.u64(), Ok(u64::MAX));
        assert_eq!(decoder.f64(), Ok(-0.5));
        assert_eq!(decoder.string().as_deref(), Ok("add_kernel"));
        assert_eq!(decoder.strings(), Ok(vec!["a".to_string(), String::new()]));
        assert_eq!(decoder.words(), Ok(vec![1, 2, 3]));
        assert_eq!(decoder.bytes(), Ok(&[9u8, 8][..]));
        assert_eq!(decoder.finish(), Ok(()));
    }

    #[test]
    fn rejects_short_input_and_huge_counts() {
        let mut encoder = Encoder::new();
        encoder.str("kernel");
        let bytes = encoder.finish();
        let error = Decoder::new(&bytes[..bytes.len() - 1]).string().unwrap_err();
        assert!(error.0.contains("more than the 5 bytes left"), "{error}");
        // A count that claims four billion words is refused before anything is allocated.
        let error = Decoder::new(&[0xff, 0xff, 0xff, 0xff, 0]).words().unwrap_err();
        assert!(error.0.contains("a count of 4294967295"), "{error}");
        assert!(Decoder::new(&[2]).bool().is_err());
        let mut decoder = Decoder::new(&[1, 2]);
        decoder.u8().unwrap();
        assert!(decoder.finish().unwrap_err().0.contains("1 bytes left over"));
    }
}
