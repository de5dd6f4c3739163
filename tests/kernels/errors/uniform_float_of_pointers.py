# compile: --kernel uniform_kernel --arg x_ptr=*i32 --arg out_ptr=*fp32
"""`tl.uint_to_uniform_float` takes integers: pointers to integers are refused as such."""
import triton
import triton.language as tl


@triton.jit
def uniform_kernel(x_ptr, out_ptr):
    u = tl.uint_to_uniform_float(x_ptr + tl.arange(0, 16))
    tl.store(out_ptr + tl.arange(0, 16), u)
