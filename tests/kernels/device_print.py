# compile: --kernel device_print_kernel --num-warps 4 --const BLOCK=8 --const COLS=4 --arg x_ptr=*i32 --arg y_ptr=*fp32 --arg n=13 --arg scale=0.5
"""tl.device_print of every kind of operand, for comparing the backends' lines with the
interpreter's (`pid (x, y, z) idx (i, j) prefix value`): scalars (program ids, a float argument, a
reduction), i32/f32/f16/bf16/i8/u8/bool/i64 tensors, hex bits, pointers, several operands in one
print, a masked tile with three live columns of four, a tensor of two elements on 128 threads,
one of 256 (two per thread), a print in a loop, and a print without operands."""
import triton
import triton.language as tl


@triton.jit
def device_print_kernel(x_ptr, y_ptr, n, scale, BLOCK: tl.constexpr, COLS: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=-7)
    tl.device_print("program", pid, tl.program_id(1))
    tl.device_print("scale", scale)
    tl.device_print("x", x)
    tl.device_print("x * scale", x * scale)
    tl.device_print("tenths", x.to(tl.float16) * 0.1, x.to(tl.bfloat16) * 0.1)
    tl.device_print("bits", x.to(tl.float16), hex=True)
    tl.device_print("narrow", (x - 100).to(tl.int8), x.to(tl.uint8), x < 0)
    tl.device_print("wide", x.to(tl.int64) * 3000000000)
    tl.device_print("pointers", x_ptr + offs)
    rows = tl.arange(0, 2)[:, None]
    cols = tl.arange(0, COLS)[None, :]
    tile_mask = (cols < 3) & (pid * 2 + rows < 5)
    tile = tl.load(y_ptr + (pid * 2 + rows) * 3 + cols, mask=tile_mask, other=-1.0)
    tl.device_print("tile", tile)
    tl.device_print("pair", tl.arange(0, 2) + pid)
    tl.device_print("wide range", tl.arange(0, 256) * (pid + 1))
    for i in range(2):
        tl.device_print("loop", i, tl.sum(x) + i)
    tl.device_print("done")
