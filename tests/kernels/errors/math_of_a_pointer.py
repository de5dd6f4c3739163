# compile: --kernel sqrt_kernel --arg x_ptr=*fp32 --arg y_ptr=*fp32 --arg n=100
"""The float math functions take fp32 or fp64 numbers (Triton: `Expected dtype ['fp32', 'fp64']
but got pointer<fp32>`): a pointer given by mistake for the value it points to is an error at the
call, not a math op on an address."""
import triton
import triton.language as tl


@triton.jit
def sqrt_kernel(x_ptr, y_ptr, n):
    offs = tl.arange(0, 128)
    tl.store(y_ptr + offs, tl.sqrt(x_ptr + offs), mask=offs < n)
