# compile: --kernel huge_kernel --arg x_ptr=*fp32
"""A shape whose element count overflows 64 bits (65536^4 = 2^64) is refused like any shape over
Triton's 2^20 elements, instead of wrapping around to 0 elements."""
import triton
import triton.language as tl


@triton.jit
def huge_kernel(x_ptr):
    z = tl.zeros((65536, 65536, 65536, 65536), dtype=tl.float32)
    tl.store(x_ptr, tl.sum(tl.reshape(z, (1,)), axis=0))
