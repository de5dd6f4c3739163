# compile: --kernel square_kernel --const BLOCK=64 --arg x_ptr=*fp32 --arg n=100
"""A lambda inside a kernel: Triton kernels cannot build closures."""
import triton
import triton.language as tl


@triton.jit
def square_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    square = lambda v: v * v
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, square(x), mask=offs < n)
