# compile: --kernel softmax_row_kernel --const BLOCK_SIZE=256 --arg out_ptr=*fp32 --arg in_ptr=*fp32 --arg in_row_stride=250 --arg out_row_stride=250 --arg n_cols=250
"""Row softmax (Triton tutorial 02): one program per row, the row in one block."""
import triton
import triton.language as tl


@triton.jit
def softmax_row_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=mask)
