# compile: --kernel asm_kernel --const BLOCK=64 --arg x_ptr=*fp32 --arg n=100
"""`tl.inline_asm_elementwise` is Triton's, but trident does not lower inline assembly."""
import triton
import triton.language as tl


@triton.jit
def asm_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(x_ptr + offs, y, mask=offs < n)
