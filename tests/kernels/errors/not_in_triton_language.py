# compile: --kernel log_kernel --const BLOCK=64 --arg x_ptr=*fp32 --arg n=100
"""`tl.lod` is a typo: triton.language has no `lod`, and the error offers the nearest names."""
import triton
import triton.language as tl


@triton.jit
def log_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, tl.lod(x), mask=offs < n)
