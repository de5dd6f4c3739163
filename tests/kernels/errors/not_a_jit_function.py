# compile: --kernel scale_kernel --const BLOCK=64 --arg x_ptr=*fp32 --arg n=100
"""The kernel calls a plain Python function: only @triton.jit functions can be called."""
import triton
import triton.language as tl


def twice(x):
    return x * 2.0


@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, twice(x), mask=offs < n)
