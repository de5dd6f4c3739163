# compile: --kernel unrolled_kernel --num-warps 4 --const BLOCK=1048576 --const UNROLL=1024 --arg x_ptr=*fp32 --arg out_ptr=*fp32 --arg N=20
"""Each copy of the loop body is a few ops, but on 2^20-element blocks: 8,192 elements per thread
with 4 warps, an instruction each. 1,025 copies pass trident's budget of per-thread element
operations (fifty million instructions, minutes of PTX emission); the error is at the loop. The
same kernel with smaller blocks or less unrolling compiles (frontend/tests/kernel_size.rs)."""
import triton
import triton.language as tl


@triton.jit
def unrolled_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr, UNROLL: tl.constexpr):
    r = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.range(0, N, 3, loop_unroll_factor=UNROLL):
        acc = acc * 0.5 + tl.load(x_ptr + i * BLOCK + r)
    tl.store(out_ptr + r, acc)
