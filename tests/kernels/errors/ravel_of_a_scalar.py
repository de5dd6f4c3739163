# compile: --kernel ravel_kernel --arg x_ptr=*fp32 --arg out_ptr=*fp32 --arg n=100
"""tl.reshape, tl.view and tl.ravel take tensors (Triton's reshape reads the element count of a
block type); a scalar is made a one-element tensor with x[None]."""
import triton
import triton.language as tl


@triton.jit
def ravel_kernel(x_ptr, out_ptr, n):
    offs = tl.arange(0, 128)
    total = tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0)
    tl.store(out_ptr + tl.arange(0, 1), tl.ravel(total))
