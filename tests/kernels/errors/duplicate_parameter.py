# compile: --kernel copy_kernel --arg src=*fp32 --arg n=64 --const BLOCK=64
"""A parameter named twice: CPython refuses the definition, and so does trident (the Python parser
it uses accepts it)."""
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src, n, src, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(src + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)
