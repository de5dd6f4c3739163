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
//!
//! Counting operations alone misses what the backends do with each: they lay a tensor out in
//! registers and emit its elementwise work once per element a thread holds, so one op on a
//! 2^20-element tensor with 4 warps is 8,192 instructions per thread. A few thousand such ops
//! (`loop_unroll_factor=1024` around a loop of 2^20-element blocks) are fine by the operation
//! count but tens of millions of emitted instructions: minutes of PTX or SPIR-V emission and
//! gigabytes of text. So [`check_kernel_size`] also weighs each operation by the elements per
//! thread of its largest result (its element count over `32 * num_warps` threads, at least 1:
//! the backends' instructions per thread, within a small factor) and bounds the sum by
//! [`MAX_KERNEL_ELEMENT_OPS`]. The limit is checked here, once for both backends, before any pass
//! runs; it is far above any real kernel (the corpus' largest weigh a few thousand) and still
//! lets a single 2^20-element block through at one warp.

use std::collections::HashMap;

use trident_midend::ir::{Block, Body, Module, Op, Opcode};

use crate::diagnostics::Diagnostic;

/// `TRITON_MAX_TENSOR_NUMEL`.
pub const MAX_TENSOR_NUMEL: u64 = 1 << 20;

/// The most operations a kernel may have after inlining and unrolling: a hundred times the
/// largest kernel of the corpus (flash attention, the dropout kernels and the unrolled
/// convolution have 150 to 250), and a few seconds of compiling through every stage.
pub const MAX_KERNEL_OPS: u64 = 1 << 15;

/// The most per-thread element operations a kernel may have after inlining and unrolling: each
/// operation weighs the elements per thread of its largest result (see the module docs). The
/// backends emit about two million instructions a second, so this is a few seconds of emission.
pub const MAX_KERNEL_ELEMENT_OPS: u64 = 1 << 22;

/// Threads of a warp, as the weights count them (the nvptx backend's; the spirv backend's layout
/// warp is larger, which only makes its per-thread share smaller).
const THREADS_PER_WARP: u64 = 32;

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
/// [`KernelSize`] does, passes [`MAX_KERNEL_OPS`] operations or [`MAX_KERNEL_ELEMENT_OPS`]
/// per-thread element operations with `num_warps` warps.
pub fn check_kernel_size(module: &Module, num_warps: u32) -> Result<(), Diagnostic> {
    let Some(kernel) = module.kernel() else { return Ok(()) };
    let threads = THREADS_PER_WARP * u64::from(num_warps.max(1));
    let mut sizes = KernelSize { module, threads, functions: HashMap::new() };
    let body = &kernel.body;
    let mut total = Size::default();
    for &op in &body.blocks[kernel.entry].ops {
        let size = sizes.op(body, op);
        total = total.plus(size);
        if total.ops <= MAX_KERNEL_OPS && total.element_ops <= MAX_KERNEL_ELEMENT_OPS {
            continue;
        }
        let data = body.op(op);
        let factor = unroll_factor(body, op);
        if total.ops <= MAX_KERNEL_OPS {
            let unrolled = if factor > 1 {
                format!(" (loop_unroll_factor={factor} makes {} copies of this loop's body)", factor + 1)
            } else {
                String::new()
            };
            let message = format!(
                "the kernel is too large: it grows past {MAX_KERNEL_ELEMENT_OPS} per-thread element operations \
                 here{unrolled}; with {num_warps} warps, each operation on a tensor costs an instruction per \
                 element each thread holds ({} operations so far, weighing {} in all); trident compiles at \
                 most {MAX_KERNEL_ELEMENT_OPS}: use smaller blocks, more warps or less unrolling",
                total.ops, total.element_ops
            );
            return Err(Diagnostic::error(message, Some(body.span(op))));
        }
        let message = if factor > 1 && size.ops > MAX_KERNEL_OPS / 2 {
            let copy = sizes.block(body, data.regions[0]).ops;
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

/// The size of some code after inlining and unrolling: its operations, and the same weighed by
/// the elements per thread of each one's largest result.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Size {
    ops: u64,
    element_ops: u64,
}

impl Size {
    fn plus(self, other: Size) -> Size {
        Size {
            ops: self.ops.saturating_add(other.ops),
            element_ops: self.element_ops.saturating_add(other.element_ops),
        }
    }

    fn times(self, n: u64) -> Size {
        Size { ops: self.ops.saturating_mul(n), element_ops: self.element_ops.saturating_mul(n) }
    }
}

/// Sizes after inlining and unrolling, memoized per function.
struct KernelSize<'m> {
    module: &'m Module,
    /// Threads of the program (`32 * num_warps`), over which a tensor's elements spread.
    threads: u64,
    functions: HashMap<String, Size>,
}

impl KernelSize<'_> {
    /// One op with its regions (a loop unrolled `U` times has `U + 1` copies of its body: the
    /// main loop's and the remainder's) and, for a call, the callee it inlines.
    fn op(&mut self, body: &Body, op: Op) -> Size {
        let data = body.op(op);
        let mut regions = Size::default();
        for &region in &data.regions {
            regions = regions.plus(self.block(body, region));
        }
        let factor = unroll_factor(body, op);
        let copies = if factor > 1 { factor.saturating_add(1) } else { 1 };
        let per_thread =
            data.results.iter().map(|&r| body.ty(r).numel().div_ceil(self.threads)).max().unwrap_or(1).max(1);
        let mut size = Size { ops: 1, element_ops: per_thread }.plus(regions.times(copies));
        if data.opcode == Opcode::Call {
            if let Some(callee) = data.attrs.str("callee") {
                size = size.plus(self.function(callee));
            }
        }
        size
    }

    fn block(&mut self, body: &Body, block: Block) -> Size {
        body.blocks[block].ops.iter().fold(Size::default(), |n, &op| n.plus(self.op(body, op)))
    }

    fn function(&mut self, name: &str) -> Size {
        if let Some(&size) = self.functions.get(name) {
            return size;
        }
        // The frontend refuses recursion, so this terminates; a callee it did not lower costs 0.
        let Some(function) = self.module.functions.iter().find(|f| f.name == name) else {
            return Size::default();
        };
        let size = self.block(&function.body, function.entry);
        self.functions.insert(name.to_string(), size);
        size
    }
}

#[cfg(test)]
mod tests {
    use trident_midend::ir::DType;

    use crate::spec::{ArgSpec, ConstValue, Specialization};

    /// A loop of `BLOCK`-element blocks, unrolled `UNROLL` times (the diagnostic test's kernel).
    const UNROLLED: &str = include_str!("../../tests/kernels/errors/loop_unroll_of_large_blocks.py");

    /// The message of compiling [`UNROLLED`], or `None` when it compiles.
    fn check(block: i64, unroll: i64, num_warps: u32) -> Option<String> {
        let pointer = ArgSpec::Pointer { dtype: DType::F32, aligned16: true };
        let spec = Specialization {
            args: vec![
                ("x_ptr".into(), pointer.clone()),
                ("out_ptr".into(), pointer),
                ("N".into(), ArgSpec::Int { value: 20, dtype: DType::I32 }),
            ],
            constexprs: vec![
                ("BLOCK".into(), ConstValue::Int(block)),
                ("UNROLL".into(), ConstValue::Int(unroll)),
            ],
            num_warps,
            num_stages: 3,
        };
        let result = crate::compile_kernel("t.py", UNROLLED, "unrolled_kernel", &spec);
        result.err().map(|errors| errors.render())
    }

    #[test]
    fn element_operations_bound_large_blocks_times_copies() {
        // Sane sizes compile: a single 2^20-element block even on one warp, 1,024-element blocks
        // unrolled 64 times, 2^20-element blocks unrolled 4 times on 4 warps.
        for (block, unroll, num_warps) in [(1 << 20, 1, 1), (1024, 64, 4), (1 << 20, 4, 4)] {
            assert_eq!(
                check(block, unroll, num_warps),
                None,
                "BLOCK={block} UNROLL={unroll} warps={num_warps}"
            );
        }
        // 1,025 copies of 2^20-element blocks: fifty million instructions per thread.
        let message = check(1 << 20, 1024, 4).expect("too large");
        assert!(
            message.contains("the kernel is too large: it grows past 4194304 per-thread element operations")
                && message.contains("loop_unroll_factor=1024 makes 1025 copies"),
            "{message}"
        );
    }
}
