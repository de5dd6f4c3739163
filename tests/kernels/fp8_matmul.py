# compile: --kernel fp8_matmul_kernel --num-warps 4 --num-stages 3 --const BLOCK_M=64 --const BLOCK_N=64 --const BLOCK_K=64 --arg a_ptr=*fp8e4nv --arg b_ptr=*fp8e4nv --arg c_ptr=*fp16 --arg K=256 --arg stride_bk=1 --arg stride_bn=256
# compile: --kernel fp8_matmul_kernel --num-warps 4 --num-stages 3 --const BLOCK_M=64 --const BLOCK_N=64 --const BLOCK_K=64 --arg a_ptr=*fp8e4nv --arg b_ptr=*fp8e5 --arg c_ptr=*fp16 --arg K=256 --arg stride_bk=64 --arg stride_bn=1
"""An fp8 K loop. On sm_90a the dot is a warpgroup MMA with K steps of 32 (`m64n64k32`), which
reads 8-bit operands K-major only. First line: B stored (N, K), K contiguous, so both operands
stream through K-major swizzled rings (a column-major ring for B). Second line: B stored (K, N)
with N contiguous, and e4m3 x e5m2: no ring can hold B K-major, so the loads stay in registers
and the backend stages B transposed into K-major scratch every iteration."""
import triton
import triton.language as tl


@triton.jit
def fp8_matmul_kernel(a_ptr, b_ptr, c_ptr, K, stride_bk, stride_bn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * stride_bk + rn[None, :] * stride_bn)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * (tl.num_programs(1) * BLOCK_N) + rn[None, :], acc.to(tl.float16))
