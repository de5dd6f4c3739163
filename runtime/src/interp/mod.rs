//! The reference interpreter (to be written).

use trident_midend::ir::{Module, Span};

use crate::buffer::{ArgValue, Buffer, Grid};

/// A failure while running a kernel: what happened and, when known, the span of the op.
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeError {
    pub message: String,
    pub span: Option<Span>,
}

/// Runs `kernel` of `module` (TTIR after the TTIR pipeline) over every program of `grid`.
pub fn run(
    _module: &Module,
    _kernel: &str,
    _grid: Grid,
    _args: &[ArgValue],
    _buffers: &mut [Buffer],
) -> Result<(), RuntimeError> {
    Err(RuntimeError { message: "the interpreter is not written yet".into(), span: None })
}
