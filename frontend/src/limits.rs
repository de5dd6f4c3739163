//! Triton's limit on the size of one tensor, checked over the whole lowered module.
//!
//! Triton refuses to build a block type of more than `TRITON_MAX_TENSOR_NUMEL` (2^20) elements,
//! wherever the type comes from: `tl.zeros` and `tl.arange` (checked where they are lowered, with
//! their own messages), but also broadcasting (`a[:, None] + b[None, :]` of two 2^20-element
//! vectors), `tl.dot`, `tl.join`, `tl.cat` and every other op whose result is larger than its
//! operands. Rather than repeat the check at each of those, [`check_tensor_sizes`] walks the
//! lowered functions once, in program order, and reports the first op whose result is too large,
//! at that op's span. Without it, such a kernel reaches the backends, which lay out every element
//! in registers: minutes of compiling for an error Triton gives at once.

use trident_midend::ir::Module;

use crate::diagnostics::Diagnostic;

/// `TRITON_MAX_TENSOR_NUMEL`.
pub const MAX_TENSOR_NUMEL: u64 = 1 << 20;

/// The first op of `module` whose result has more than [`MAX_TENSOR_NUMEL`] elements, as an
/// error at its span.
pub fn check_tensor_sizes(module: &Module) -> Result<(), Diagnostic> {
    for function in &module.functions {
        let body = &function.body;
        for op in body.walk(function.entry) {
            for &result in &body.op(op).results {
                let ty = body.ty(result);
                let numel = ty.numel();
                if numel > MAX_TENSOR_NUMEL {
                    let count =
                        if numel == u64::MAX { "2^64 or more".to_string() } else { numel.to_string() };
                    let message = format!(
                        "this makes a {ty} of {count} elements; Triton allows at most {MAX_TENSOR_NUMEL} in one \
                         tensor (TRITON_MAX_TENSOR_NUMEL)"
                    );
                    return Err(Diagnostic::error(message, Some(body.span(op))));
                }
            }
        }
    }
    Ok(())
}
