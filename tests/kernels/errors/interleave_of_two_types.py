# compile: --kernel interleave_kernel --arg a_ptr=*fp32 --arg b_ptr=*bf16 --arg out_ptr=*fp32
"""tl.join and tl.interleave take two operands of one element type; Triton does not promote
them. An fp32 and a bf16 tensor must be cast to one type first."""
import triton
import triton.language as tl


@triton.jit
def interleave_kernel(a_ptr, b_ptr, out_ptr):
    i = tl.arange(0, 32)
    a = tl.load(a_ptr + i)
    b = tl.load(b_ptr + i)
    tl.store(out_ptr + tl.arange(0, 64), tl.interleave(a, b))
