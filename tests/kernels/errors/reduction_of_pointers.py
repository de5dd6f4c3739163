# compile: --kernel min_kernel --arg x_ptr=*fp32 --arg out_ptr=*fp32
"""Reductions and scans combine numbers: the minimum of a tensor of pointers is an error at the
call (the load was forgotten)."""
import triton
import triton.language as tl


@triton.jit
def min_kernel(x_ptr, out_ptr):
    offs = tl.arange(0, 128)
    tl.store(out_ptr, tl.min(x_ptr + offs, axis=0))
