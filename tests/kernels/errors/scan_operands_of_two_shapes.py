# compile: --kernel scan_kernel --arg a_ptr=*fp32 --arg h_ptr=*fp32
"""The operands of tl.associative_scan (and tl.reduce) are tensors of one shape: a Python scalar
among them is not broadcast."""
import triton
import triton.language as tl


@triton.jit
def _affine_compose(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


@triton.jit
def scan_kernel(a_ptr, h_ptr):
    cols = tl.arange(0, 128)
    a = tl.load(a_ptr + cols)
    _, h = tl.associative_scan((a, 1.0), 0, _affine_compose)
    tl.store(h_ptr + cols, h)
