# compile: --kernel conv_kernel --const KH=1024 --const KW=2 --const BH=8 --const BW=8 --arg x_ptr=*fp32 --arg k_ptr=*fp32 --arg z_ptr=*fp32 --arg H=6 --arg W=7
"""Each copy a tl.static_range makes is legal, but 2048 copies of a convolution's taps make a kernel
of more than 32768 operations: an error where the kernel outgrows the limit, instead of seconds
to minutes in the passes and backends."""
import triton
import triton.language as tl


@triton.jit
def conv_kernel(x_ptr, k_ptr, z_ptr, H, W, KH: tl.constexpr, KW: tl.constexpr,
                BH: tl.constexpr, BW: tl.constexpr):
    r = tl.arange(0, BH)[:, None]
    c = tl.arange(0, BW)[None, :]
    acc = tl.zeros((BH, BW), dtype=tl.float32)
    for di in tl.static_range(KH):
        for dj in tl.static_range(KW):
            w = tl.load(k_ptr + di * KW + dj)
            ok = (r + di < H) & (c + dj < W)
            acc += w * tl.load(x_ptr + (r + di) * W + c + dj, mask=ok, other=0.0)
    tl.store(z_ptr + r * W + c, acc, mask=(r < H) & (c < W))
