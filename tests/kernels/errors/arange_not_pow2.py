# compile: --kernel fill_kernel --const BLOCK=48 --arg out_ptr=*i32 --arg n=100
"""tl.arange needs a power-of-two length; BLOCK=48 is not one."""
import triton
import triton.language as tl


@triton.jit
def fill_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs, mask=offs < n)
