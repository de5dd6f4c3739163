# compile: --kernel outer_kernel --arg x_ptr=*fp32 --arg out_ptr=*fp32
"""Broadcasting two vectors of 2^11 elements makes a tensor of 2^22: refused with Triton's limit
on one tensor (TRITON_MAX_TENSOR_NUMEL) at the op that makes it, instead of reaching a backend
that would lay out four million elements in registers."""
import triton
import triton.language as tl


@triton.jit
def outer_kernel(x_ptr, out_ptr):
    offs = tl.arange(0, 2048)
    x = tl.load(x_ptr + offs)
    outer = x[:, None] * x[None, :]
    tl.store(out_ptr, tl.sum(tl.sum(outer, axis=1), axis=0))
