# compile: --kernel windowed_buffers_kernel --const BLOCK=512 --arg x_ptr=*i8 --arg y_ptr=*i64 --arg out_ptr=*i64 --arg acc_ptr=*fp32 --arg N=24000
"""Every kind of buffer access, for buffers the spirv backend binds as two windows (run with
TRIDENT_VULKAN_MAX_BINDING_BYTES below their sizes): i8 loads and sub-word stores, i64 loads
and stores (two words each), and f32 atomic adds, at offsets on both sides of the split."""
import triton
import triton.language as tl


@triton.jit
def windowed_buffers_kernel(x_ptr, y_ptr, out_ptr, acc_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(x_ptr + offs, x + 1, mask=mask)
    j = offs // 8
    y = tl.load(y_ptr + j, mask=mask, other=0)
    tl.store(out_ptr + j, y * 3 + x.to(tl.int64), mask=mask & (offs % 8 == 5))
    tl.atomic_add(acc_ptr + offs // 4, x.to(tl.float32), mask=mask)
