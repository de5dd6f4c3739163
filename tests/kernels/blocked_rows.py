# compile: --kernel blocked_rows_kernel --num-warps 1 --const BLOCK=64 --arg x_ptr=*fp32 --arg y_ptr=*fp32 --arg sum_ptr=*fp32 --arg N=589
"""Rows walked in blocks, as layer norm walks them: a masked reading loop (on spirv split into
whole blocks, four a trip, without masks, and the masked rest) and a masked writing loop (split
at its last whole block). With N = 2 * 4 * 64 + 64 + 13 both the main loops and the partial
last block run; y has room past the last row, which a store that lost its mask would write."""
import triton
import triton.language as tl


@triton.jit
def blocked_rows_kernel(x_ptr, y_ptr, sum_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    part = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, N, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        part += tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    total = tl.sum(part, axis=0)
    tl.store(sum_ptr + row, total)
    for c0 in range(0, N, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        live = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=live, other=0.0)
        tl.store(y_ptr + row * N + cols, tl.where(live, x * 2.0 - total, 0.0), mask=live)
