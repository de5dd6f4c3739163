# compile: --kernel negate_kernel --arg x_ptr=*fp32 --arg y_ptr=*fp32 --arg n=100
"""Arithmetic on a pointer is `+` or `-` of an integer offset; negating one is an error (Triton:
`wrong type argument to unary minus`)."""
import triton
import triton.language as tl


@triton.jit
def negate_kernel(x_ptr, y_ptr, n):
    offs = tl.arange(0, 128)
    tl.store(-y_ptr + offs, tl.load(x_ptr + offs), mask=offs < n)
