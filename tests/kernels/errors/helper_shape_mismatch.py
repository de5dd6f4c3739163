# compile: --kernel outer_kernel --const BLOCK=32 --arg a_ptr=*fp32 --arg b_ptr=*fp32
"""The error is inside a @triton.jit helper: a (32, 32) tile plus a (16,) vector."""
import triton
import triton.language as tl


@triton.jit
def add_bias(tile, bias):
    return tile + bias


@triton.jit
def outer_kernel(a_ptr, b_ptr, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)
    tile = tl.load(a_ptr + rows[:, None] * BLOCK + rows[None, :])
    bias = tl.load(b_ptr + tl.arange(0, 16))
    out = add_bias(tile, bias)
    tl.store(a_ptr + rows[:, None] * BLOCK + rows[None, :], out)
