//! Why a backend could not lower a module: the one error type of both backends.

use std::fmt;

use crate::ir::Span;

/// Why a module could not be lowered to target code.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// An op (by name) the backend has no rule for, with the source span when known: a user
    /// error, reported with the Python line.
    Unsupported { op: String, detail: String, span: Option<Span> },
    /// An op that would need more of the target than it has (shared or workgroup memory), with
    /// the source span when known: a user error, whose remedy is smaller blocks or fewer stages.
    Resources { op: String, detail: String, span: Option<Span> },
    /// The module is not in the form the backend expects (an internal error).
    Invalid(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Unsupported { op, detail, .. } => write!(f, "no rule for {op}: {detail}"),
            Error::Resources { op, detail, .. } => write!(f, "{op} needs more than the target has: {detail}"),
            Error::Invalid(m) => write!(f, "invalid module: {m}"),
        }
    }
}

impl std::error::Error for Error {}
