# compile: --kernel loop_hints_kernel --num-warps 4 --const BLOCK=64 --arg x_ptr=*fp32 --arg out_ptr=*fp32 --arg N=8
"""Loop hints that trident records but does not apply yet: `flatten=True` and
`warp_specialize=True` leave the loop as written, and `trident` warns about each with the Python
line (tests/cli.rs checks the warnings)."""
import triton
import triton.language as tl


@triton.jit
def loop_hints_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.range(0, N, flatten=True, warp_specialize=True):
        acc += tl.load(x_ptr + i * BLOCK + r)
    tl.store(out_ptr + r, acc)
