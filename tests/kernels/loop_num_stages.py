# compile: --kernel loop_stages_kernel --num-warps 4 --num-stages 3 --const BLOCK=64 --const STAGES=1 --arg a_ptr=*fp16 --arg b_ptr=*fp16 --arg c_ptr=*fp32 --arg K=256
# compile: --kernel loop_stages_kernel --num-warps 4 --num-stages 3 --const BLOCK=64 --const STAGES=4 --arg a_ptr=*fp16 --arg b_ptr=*fp16 --arg c_ptr=*fp32 --arg K=256
"""`tl.range(..., num_stages=N)` overrides the kernel's `num_stages` for its loop (Triton's
per-loop `tt.num_stages`). The kernel is compiled with num_stages 3; first line: the loop asks for
1, so its loads stay where they are (no rings); second line: it asks for 4, so its rings hold 4
slots and the copies run 3 iterations ahead (against 3 slots, 2 ahead, at the kernel's depth)."""
import triton
import triton.language as tl


@triton.jit
def loop_stages_kernel(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    r = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK, num_stages=STAGES):
        a = tl.load(a_ptr + r[:, None] * K + (k + r)[None, :])
        b = tl.load(b_ptr + (k + r)[:, None] * BLOCK + r[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)
