//! The command line's failures and their exit codes.
//!
//! A usage error (exit 2) names the offending flag or argument on one line. A compile or
//! runtime error (exit 1) is rendered like rustc, with the Python line and a caret. An internal
//! compiler error trident detects (exit 1) says so and gives a command that reproduces it; one
//! that escapes as a panic is reported by the panic hook (`ice.rs`) and exits 101.

use crate::{CompileError, Diagnostics};

#[derive(Debug)]
pub enum CliError {
    /// The command line is wrong: bad flag value, unknown argument name, unreadable file.
    Usage(String),
    /// The kernel is wrong (compile time or run time), with spans.
    Kernel(Diagnostics),
    /// trident itself failed.
    Internal(String),
    /// The request is fine but needs something this build or machine lacks.
    Unavailable(String),
    /// Anything else that stops the command (an output file that cannot be written, ...).
    Failed(String),
}

impl CliError {
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            _ => 1,
        }
    }

    /// The last line for stderr after [`CliError::render`], for a kernel error whose rendering
    /// ends with source lines rather than its message (see `Diagnostics::summary`).
    pub fn summary(&self) -> Option<String> {
        match self {
            CliError::Kernel(diagnostics) => diagnostics.summary(),
            _ => None,
        }
    }

    /// The text for stderr, ending with a newline.
    pub fn render(&self) -> String {
        let mut text = match self {
            CliError::Usage(message) => format!("error: {message}"),
            CliError::Kernel(diagnostics) => diagnostics.render(),
            CliError::Internal(message) => message.clone(),
            CliError::Unavailable(message) => format!("error: not available yet: {message}"),
            CliError::Failed(message) => format!("error: {message}"),
        };
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    }
}

impl From<CompileError> for CliError {
    fn from(error: CompileError) -> Self {
        match error {
            CompileError::User(diagnostics) => CliError::Kernel(diagnostics),
            internal @ CompileError::Internal { .. } => CliError::Internal(internal.to_string()),
        }
    }
}

/// Shorthand for a usage error.
pub fn usage<T>(message: impl Into<String>) -> Result<T, CliError> {
    Err(CliError::Usage(message.into()))
}
