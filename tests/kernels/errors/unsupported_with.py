# compile: --kernel scale_kernel --const BLOCK=64 --arg x_ptr=*fp32 --arg n=100
"""A `with` statement: context managers are not part of the Triton language."""
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    with open("log.txt") as log:
        x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, x * 2.0, mask=offs < n)
