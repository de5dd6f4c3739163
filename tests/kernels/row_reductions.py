# compile: --kernel row_reductions_kernel --num-warps 8 --const BLOCK=2048 --arg x_ptr=*fp32 --arg xi_ptr=*i64 --arg sum_ptr=*fp32 --arg max_ptr=*fp32 --arg arg_ptr=*i32 --arg isum_ptr=*i64 --arg N=2000
"""Row reductions wide enough that the spirv backend combines 512 partials per row (a halving
tree): sum, max and argmax of f32 (integer-valued, so sums are exact and argmax has ties), and
the sum of i64 (two-word partials)."""
import triton
import triton.language as tl


@triton.jit
def row_reductions_kernel(x_ptr, xi_ptr, sum_ptr, max_ptr, arg_ptr, isum_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    live = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=live, other=0.0)
    xi = tl.load(xi_ptr + row * N + cols, mask=live, other=0)
    tl.store(sum_ptr + row, tl.sum(x, axis=0))
    masked = tl.where(live, x, float("-inf"))
    tl.store(max_ptr + row, tl.max(masked, axis=0))
    tl.store(arg_ptr + row, tl.argmax(masked, axis=0))
    tl.store(isum_ptr + row, tl.sum(xi, axis=0))
