# compile: --kernel nested_unroll_kernel --arg x_ptr=*i32
"""Nested tl.static_range loops multiply: 100 copies inside 100 copies is 10000 bodies, over the
unroll limit though each loop alone is under it."""
import triton
import triton.language as tl


@triton.jit
def nested_unroll_kernel(x_ptr):
    acc = 0
    for i in tl.static_range(0, 100):
        for j in tl.static_range(0, 100):
            acc += i * j
    tl.store(x_ptr, acc)
