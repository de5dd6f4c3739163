# compile: --kernel cast_kernel --const BLOCK=16 --arg x_ptr=*fp32
"""`tl.float8e4b15` is a dtype of Triton's that trident does not have: said so, not "not a dtype"."""
import triton
import triton.language as tl


@triton.jit
def cast_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(x_ptr + tl.arange(0, BLOCK), x.to(tl.float8e4b15).to(tl.float32))
