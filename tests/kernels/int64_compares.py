# compile: --kernel int64_compares_kernel --const BLOCK=16 --arg x_ptr=*i32 --arg out_ptr=*i32 --arg n=100
"""Integers widened to int64 and compared with constants, scalar and tensor (the test
`int64_compares_agree_with_interp`: lavapipe, Mesa 22.3, folded such a comparison of a value
sign-extended by `OpSConvert` to a constant; the spirv backend sign-extends by shifts instead)."""
import triton
import triton.language as tl


@triton.jit
def int64_compares_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(tl.int64)
    s = n.to(tl.int64)
    rows = (
        (x >= 128, s >= 128),
        (x > 127, s > 127),
        (x < 128, s < 128),
        (x <= -3, s <= -3),
        (x == 100, s == 100),
        (x != -5, s != -5),
        (x >= -2147483648, s < 50),
    )
    for i in tl.static_range(7):
        tensor, scalar = rows[i]
        tl.store(out_ptr + (2 * i) * BLOCK + offs, tensor.to(tl.int32))
        tl.store(out_ptr + (2 * i + 1) * BLOCK + offs, tl.full((BLOCK,), 0, tl.int32) + scalar.to(tl.int32))
