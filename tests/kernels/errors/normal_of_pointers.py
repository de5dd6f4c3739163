# compile: --kernel normal_kernel --arg x_ptr=*fp32 --arg out_ptr=*fp32
"""`tl.pair_uniform_to_normal` takes numbers: the error names it, not the functions it is made of."""
import triton
import triton.language as tl


@triton.jit
def normal_kernel(x_ptr, out_ptr):
    a, b = tl.pair_uniform_to_normal(x_ptr + tl.arange(0, 16), x_ptr + tl.arange(0, 16))
    tl.store(out_ptr + tl.arange(0, 16), a + b)
