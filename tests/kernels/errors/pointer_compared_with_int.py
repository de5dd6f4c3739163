# compile: --kernel compare_kernel --arg x_ptr=*fp32 --arg n=16
"""A pointer compares only with a pointer (Triton raises IncompatibleTypeErrors): comparing one
with an integer is an error at the comparison."""
import triton
import triton.language as tl


@triton.jit
def compare_kernel(x_ptr, n):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, 1.0, mask=x_ptr + offs < n)
