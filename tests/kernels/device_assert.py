# compile: --kernel device_assert_kernel --num-warps 4 --const BLOCK=64 --arg x_ptr=*i32 --arg n=100
"""tl.device_assert on every backend: each program checks its block (masked to n) and then
increments it; a failed assertion stops the run with the message, the program and the line."""
import triton
import triton.language as tl


@triton.jit
def device_assert_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_assert(x < 100, "x is small", mask=offs < n)
    tl.store(x_ptr + offs, x + 1, mask=offs < n)
