# compile: --kernel copy_kernel --const BLOCK=128 --arg src_ptr=*fp16 --arg dst_ptr=*fp16 --arg n=1000
"""The kernel uses `offsets`, but only `offs` is defined."""
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(src_ptr + offsets, mask=offs < n)
    tl.store(dst_ptr + offs, v, mask=offs < n)
