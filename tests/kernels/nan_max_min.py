# compile: --kernel nan_max_min_kernel --num-warps 4 --const BLOCK=256 --arg x_ptr=*fp32 --arg y_ptr=*fp32 --arg max_ptr=*fp32 --arg min_ptr=*fp32 --arg row_max_ptr=*fp32 --arg row_min_ptr=*fp32
"""NaN operands of tl.maximum / tl.minimum and of the max and min reductions (Triton's default:
the non-NaN operand wins, `arith.maxnumf` / `arith.minnumf`), elementwise and across a row."""
import triton
import triton.language as tl


@triton.jit
def nan_max_min_kernel(x_ptr, y_ptr, max_ptr, min_ptr, row_max_ptr, row_min_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = row * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols)
    y = tl.load(y_ptr + cols)
    tl.store(max_ptr + cols, tl.maximum(x, y))
    tl.store(min_ptr + cols, tl.minimum(x, y))
    tl.store(row_max_ptr + row, tl.max(x, axis=0))
    tl.store(row_min_ptr + row, tl.min(x, axis=0))
