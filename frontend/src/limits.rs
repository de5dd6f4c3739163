//! Triton's rules for the shape of a tensor, and trident's limit on the size of a kernel, checked
//! over the whole lowered module.
//!
//! Triton refuses to build a block type whose dimensions are not powers of two, or which has more
//! than `TRITON_MAX_TENSOR_NUMEL` (2^20) elements, wherever the type comes from: `tl.zeros`,
//! `tl.arange` and `tl.reshape` (checked where they are lowered, with their own messages), but
//! also broadcasting (`a[:, None] + b[None, :]` of two 2^20-element vectors), `tl.dot`,
//! `tl.join`, `tl.cat` and every other op whose result is larger than its operands. Rather than
//! repeat the checks at each of those, [`check_tensor_shapes`] walks the lowered functions once,
//! in program order, and reports the first op whose result breaks a rule, at that op's span.
//! Without it, such a kernel reaches the backends, which lay out every element in registers and
//! assume power-of-two extents: minutes of compiling, or an internal error, for an error Triton
//! gives at once.
//!
//! [`check_kernel_size`] bounds the code the midend and the backends will see: the kernel's
//! operations once its `@triton.jit` calls are inlined and its `loop_unroll_factor` loops
//! unrolled (`tl.static_range` loops are already unrolled by the frontend). Each copy is legal
//! Triton, but their number multiplies: `tl.static_range(2048)` around a convolution's taps, or
//! `loop_unroll_factor=262144`, make hundreds of thousands of operations, and some TTGIR passes
//! take time quadratic in the size of a block. The limit turns that into an error at the Python
//! line where the kernel outgrows it.

use std::collections::HashMap;

use trident_midend::ir::{Block, Body, Module, Op, Opcode};

use crate::diagnostics::Diagnostic;

/// `TRITON_MAX_TENSOR_NUMEL`.
pub const MAX_TENSOR_NUMEL: u64 = 1 << 20;

/// The most operations a kernel may have after inlining and unrolling: a hundred times the
/// largest kernel of the corpus (flash attention, the dropout kernels and the unrolled
/// convolution have 150 to 250), and a few seconds of compiling through every stage.
pub const MAX_KERNEL_OPS: u64 = 1 << 15;

/// The deepest software pipeline a kernel or a loop may ask for (`num_stages`). A stage holds a
/// tile of each operand a loop's dots read, at least 1 KiB for the smallest (16x16 of 16-bit
/// elements, twice), and no GPU has 256 KiB of shared memory for one program: a deeper pipeline
/// cannot be built, and a value past this is a mistyped constant, not a request to honour (the
/// pipeliner searches down from it for the depth that fits).
pub const MAX_NUM_STAGES: u32 = 256;

/// The first op of `module` whose result has a dimension that is not a power of two, or more than
/// [`MAX_TENSOR_NUMEL`] elements, as an error at its span.
pub fn check_tensor_shapes(module: &Module) -> Result<(), Diagnostic> {
    for function in &module.functions {
        let body = &function.body;
        for op in body.walk(function.entry) {
            for &result in &body.op(op).results {
                let ty = body.ty(result);
                let shape = ty.shape();
                if shape.iter().any(|d| !d.is_power_of_two()) {
                    let message = format!(
                        "this makes a tensor of shape {shape:?}; Triton requires every dimension of a tensor \
                         to be a power of two"
                    );
                    return Err(Diagnostic::error(message, Some(body.span(op))));
                }
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

/// An error at the first top-level op of the kernel where its size, counted as
/// [`KernelSize`] does, passes [`MAX_KERNEL_OPS`].
pub fn check_kernel_size(module: &Module) -> Result<(), Diagnostic> {
    let Some(kernel) = module.kernel() else { return Ok(()) };
    let mut sizes = KernelSize { module, functions: HashMap::new() };
    let body = &kernel.body;
    let mut total = 0u64;
    for &op in &body.blocks[kernel.entry].ops {
        let size = sizes.op(body, op);
        total = total.saturating_add(size);
        if total <= MAX_KERNEL_OPS {
            continue;
        }
        let data = body.op(op);
        let factor = unroll_factor(body, op);
        let message = if factor > 1 && size > MAX_KERNEL_OPS / 2 {
            let copy = sizes.block(body, data.regions[0]);
            format!(
                "loop_unroll_factor={factor} makes {} copies of a loop body of {copy} operations; trident \
                 compiles at most {MAX_KERNEL_OPS} operations per kernel",
                factor + 1
            )
        } else {
            format!(
                "the kernel grows past {MAX_KERNEL_OPS} operations here (counting the copies that \
                 tl.static_range and loop_unroll_factor make and the bodies of inlined @triton.jit calls); \
                 trident compiles at most {MAX_KERNEL_OPS}: unroll less (tl.range runs a loop without \
                 copying its body)"
            )
        };
        return Err(Diagnostic::error(message, Some(body.span(op))));
    }
    Ok(())
}

/// The unroll factor a loop asks for (`tl.range(..., loop_unroll_factor=U)`), 1 for other ops.
fn unroll_factor(body: &Body, op: Op) -> u64 {
    match body.op(op).attrs.int("tt.loop_unroll_factor") {
        Some(u) if body.opcode(op) == Opcode::For && u > 1 => u as u64,
        _ => 1,
    }
}

/// Sizes in operations after inlining and unrolling, memoized per function.
struct KernelSize<'m> {
    module: &'m Module,
    functions: HashMap<String, u64>,
}

impl KernelSize<'_> {
    /// One op with its regions (a loop unrolled `U` times has `U + 1` copies of its body: the
    /// main loop's and the remainder's) and, for a call, the callee it inlines.
    fn op(&mut self, body: &Body, op: Op) -> u64 {
        let data = body.op(op);
        let mut regions = 0u64;
        for &region in &data.regions {
            regions = regions.saturating_add(self.block(body, region));
        }
        let factor = unroll_factor(body, op);
        let copies = if factor > 1 { factor.saturating_add(1) } else { 1 };
        let mut size = 1u64.saturating_add(regions.saturating_mul(copies));
        if data.opcode == Opcode::Call {
            if let Some(callee) = data.attrs.str("callee") {
                size = size.saturating_add(self.function(callee));
            }
        }
        size
    }

    fn block(&mut self, body: &Body, block: Block) -> u64 {
        body.blocks[block].ops.iter().fold(0u64, |n, &op| n.saturating_add(self.op(body, op)))
    }

    fn function(&mut self, name: &str) -> u64 {
        if let Some(&size) = self.functions.get(name) {
            return size;
        }
        // The frontend refuses recursion, so this terminates; a callee it did not lower costs 0.
        let Some(function) = self.module.functions.iter().find(|f| f.name == name) else { return 0 };
        let size = self.block(&function.body, function.entry);
        self.functions.insert(name.to_string(), size);
        size
    }
}
