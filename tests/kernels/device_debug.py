# compile: --kernel device_debug_kernel --num-warps 4 --const BLOCK=8 --arg x_ptr=*i32 --arg n=8
"""tl.device_print and tl.device_assert with a mask: the backends print the interpreter's lines
(`pid (x, y, z) idx (i) prefix value`) and assert only where the mask is on."""
import triton
import triton.language as tl


@triton.jit
def device_debug_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_print("x", x)
    tl.device_print("bits", x.to(tl.float16), hex=True)
    tl.device_assert(x < 100, "x is small", mask=offs < n)
