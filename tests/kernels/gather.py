# compile: --kernel gather_kernel --const SRC_ROWS=8 --const SRC_COLS=16 --const ROWS=4 --const COLS=16 --const AXIS=0 --arg src_ptr=*fp32 --arg index_ptr=*i32 --arg out_ptr=*fp32
# compile: --kernel gather_kernel --const SRC_ROWS=8 --const SRC_COLS=16 --const ROWS=8 --const COLS=32 --const AXIS=1 --arg src_ptr=*fp16 --arg index_ptr=*i64 --arg out_ptr=*fp16
"""`tl.gather` of a tile along either axis, with an index tile of another length along it."""
import triton
import triton.language as tl


@triton.jit
def gather_kernel(src_ptr, index_ptr, out_ptr, SRC_ROWS: tl.constexpr, SRC_COLS: tl.constexpr,
                  ROWS: tl.constexpr, COLS: tl.constexpr, AXIS: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, SRC_ROWS)[:, None] * SRC_COLS + tl.arange(0, SRC_COLS)[None, :])
    offsets = tl.arange(0, ROWS)[:, None] * COLS + tl.arange(0, COLS)[None, :]
    index = tl.load(index_ptr + offsets)
    tl.store(out_ptr + offsets, tl.gather(src, index, AXIS))
