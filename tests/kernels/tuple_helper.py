# compile: --kernel min_max_kernel --const BLOCK=128 --arg x_ptr=*fp32 --arg lo_ptr=*fp32 --arg hi_ptr=*fp32 --arg n=1000
"""A @triton.jit helper that returns a tuple, unpacked by the caller."""
import triton
import triton.language as tl


@triton.jit
def block_min_max(x, mask):
    lo = tl.min(tl.where(mask, x, float("inf")), axis=0)
    hi = tl.max(tl.where(mask, x, -float("inf")), axis=0)
    return lo, hi


@triton.jit
def min_max_kernel(x_ptr, lo_ptr, hi_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    lo, hi = block_min_max(x, mask)
    tl.store(lo_ptr + pid, lo)
    tl.store(hi_ptr + pid, hi)
