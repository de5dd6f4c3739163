# compile: --kernel unrolled_kernel --const BLOCK=64 --const UNROLL=262144 --arg x_ptr=*fp32 --arg out_ptr=*fp32 --arg N=20
"""`loop_unroll_factor=U` copies the loop body U + 1 times (the unrolled loop and its remainder);
a kernel grown past trident's size limit by it is an error at the loop, not minutes of
unrolling."""
import triton
import triton.language as tl


@triton.jit
def unrolled_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr, UNROLL: tl.constexpr):
    r = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.range(0, N, 3, loop_unroll_factor=UNROLL):
        acc = acc * 0.5 + tl.load(x_ptr + i * BLOCK + r)
    tl.store(out_ptr + r, acc)
