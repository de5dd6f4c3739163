//! Op attributes: a small ordered dictionary of named constants.
//!
//! Attributes are what an op needs besides its operands (`axis`, `predicate`, `value`, `callee`).
//! They print as `{name = value, ...}` in insertion order and parse back to the same values:
//! floats print with Rust's shortest round-trip form, so a constant survives print and parse
//! bit for bit.

use std::fmt;

/// One attribute value.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Ints(Vec<i64>),
}

impl Attr {
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Attr::Int(v) => Some(*v),
            Attr::Bool(b) => Some(*b as i64),
            _ => None,
        }
    }

    pub fn as_float(&self) -> Option<f64> {
        match self {
            Attr::Float(v) => Some(*v),
            Attr::Int(v) => Some(*v as f64),
            Attr::Bool(b) => Some(*b as i64 as f64),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Attr::Bool(b) => Some(*b),
            Attr::Int(v) => Some(*v != 0),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Attr::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_ints(&self) -> Option<&[i64]> {
        match self {
            Attr::Ints(v) => Some(v),
            _ => None,
        }
    }

    /// Equality that treats floats by their bits, so that NaN constants compare equal to
    /// themselves (CSE of two `arith.constant nan` is correct).
    pub fn same_as(&self, other: &Attr) -> bool {
        match (self, other) {
            (Attr::Float(a), Attr::Float(b)) => a.to_bits() == b.to_bits(),
            _ => self == other,
        }
    }
}

/// Writes a float so that it reads back as a float with the same bits.
pub fn fmt_float(v: f64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if v.is_nan() {
        f.write_str("nan")
    } else if v.is_infinite() {
        f.write_str(if v > 0.0 { "inf" } else { "-inf" })
    } else {
        // `{:?}` is the shortest representation that round-trips; it always has a '.' or an 'e'.
        write!(f, "{v:?}")
    }
}

impl fmt::Display for Attr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Attr::Bool(b) => write!(f, "{b}"),
            Attr::Int(v) => write!(f, "{v}"),
            Attr::Float(v) => fmt_float(*v, f),
            Attr::Str(s) => write!(f, "{s:?}"),
            Attr::Ints(v) => {
                f.write_str("[")?;
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// The attributes of one op, in insertion order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attrs(pub Vec<(String, Attr)>);

impl Attrs {
    pub fn new() -> Self {
        Attrs(Vec::new())
    }

    /// Builder-style insertion.
    pub fn with(mut self, name: &str, value: Attr) -> Self {
        self.set(name, value);
        self
    }

    pub fn get(&self, name: &str) -> Option<&Attr> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    pub fn set(&mut self, name: &str, value: Attr) {
        match self.0.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => self.0.push((name.to_string(), value)),
        }
    }

    pub fn remove(&mut self, name: &str) {
        self.0.retain(|(n, _)| n != name);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn int(&self, name: &str) -> Option<i64> {
        self.get(name).and_then(Attr::as_int)
    }

    pub fn float(&self, name: &str) -> Option<f64> {
        self.get(name).and_then(Attr::as_float)
    }

    pub fn bool(&self, name: &str) -> Option<bool> {
        self.get(name).and_then(Attr::as_bool)
    }

    pub fn str(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(Attr::as_str)
    }

    pub fn ints(&self, name: &str) -> Option<&[i64]> {
        self.get(name).and_then(Attr::as_ints)
    }

    /// Equality with floats compared by bits (see [`Attr::same_as`]).
    pub fn same_as(&self, other: &Attrs) -> bool {
        self.0.len() == other.0.len()
            && self.0.iter().zip(&other.0).all(|((na, a), (nb, b))| na == nb && a.same_as(b))
    }
}

impl fmt::Display for Attrs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, (name, value)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{name} = {value}")?;
        }
        f.write_str("}")
    }
}
