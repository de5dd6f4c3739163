# compile: --kernel loop_hints_kernel --num-warps 4 --const BLOCK=64 --arg x_ptr=*fp32 --arg out_ptr=*fp32 --arg N=8
"""Loop hints that trident records but does not apply: `flatten=True`, and `warp_specialize=True`
on a loop without a dot reading tiles through tensor descriptors, leave the loop as written, and
`trident` warns about each with the Python line, once, though the helper holding the loop is
inlined at two calls (tests/cli.rs checks the warnings)."""
import triton
import triton.language as tl


@triton.jit
def _accumulate(acc, x_ptr, r, N, BLOCK: tl.constexpr):
    for i in tl.range(0, N, flatten=True, warp_specialize=True):
        acc += tl.load(x_ptr + i * BLOCK + r)
    return acc


@triton.jit
def loop_hints_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    acc = _accumulate(acc, x_ptr, r, N, BLOCK)
    acc = _accumulate(acc, x_ptr, r, N, BLOCK)
    tl.store(out_ptr + r, acc)
