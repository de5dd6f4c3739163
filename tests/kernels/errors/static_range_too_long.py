# compile: --kernel big_unroll_kernel --arg x_ptr=*i32
"""A tl.static_range unrolls a copy of its body per iteration: a range of 10^8 is refused with the
limit instead of hanging the compiler."""
import triton
import triton.language as tl


@triton.jit
def big_unroll_kernel(x_ptr):
    acc = 0
    for i in tl.static_range(0, 100000000):
        acc += i
    tl.store(x_ptr, acc)
