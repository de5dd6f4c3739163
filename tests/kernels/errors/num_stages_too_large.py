# compile: --kernel stages_kernel --const BLOCK=64 --const STAGES=2147483648 --arg a_ptr=*fp16 --arg b_ptr=*fp16 --arg c_ptr=*fp32 --arg K=256
"""A loop's `num_stages` is a pipeline depth: no GPU has the shared memory for more than a few
hundred stages, so a value past 256 is an error at the loop."""
import triton
import triton.language as tl


@triton.jit
def stages_kernel(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    r = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK, num_stages=STAGES):
        a = tl.load(a_ptr + r[:, None] * K + (k + r)[None, :])
        b = tl.load(b_ptr + (k + r)[:, None] * BLOCK + r[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)
