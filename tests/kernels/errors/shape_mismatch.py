# compile: --kernel add_rows_kernel --arg x_ptr=*fp32 --arg y_ptr=*fp32 --arg out_ptr=*fp32
"""Adding a 64-vector to a 128-vector: the shapes cannot be broadcast together."""
import triton
import triton.language as tl


@triton.jit
def add_rows_kernel(x_ptr, y_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 64))
    y = tl.load(y_ptr + tl.arange(0, 128))
    tl.store(out_ptr + tl.arange(0, 64), x + y)
