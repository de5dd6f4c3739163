# compile: --kernel select_kernel --arg x_ptr=*fp32 --arg stride=4 --arg n=100
"""A runtime selection (`tl.where`, or `a if c else b` on a runtime condition) has one result type:
a pointer is selected only with a pointer of the same type. Here operator precedence makes the
else-branch `0 + offs * stride`, an integer tensor."""
import triton
import triton.language as tl


@triton.jit
def select_kernel(x_ptr, stride, n):
    offs = tl.arange(0, 128)
    ptrs = x_ptr + offs if stride else 0 + offs * stride
    tl.store(ptrs, 1.0, mask=offs < n)
