# compile: --kernel fill_kernel --const START=9223372036854775807 --const END=-9223372036854775808 --arg out_ptr=*i32
"""tl.arange's bounds must fit in int32; here `END - START` overflows i64 (and would wrap to 1)."""
import triton
import triton.language as tl


@triton.jit
def fill_kernel(out_ptr, START: tl.constexpr, END: tl.constexpr):
    offs = tl.arange(START, END)
    tl.store(out_ptr + offs, offs)
