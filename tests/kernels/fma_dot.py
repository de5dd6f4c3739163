# compile: --kernel fma_dot_kernel --num-warps 4 --num-stages 2 --const BLOCK_M=64 --const BLOCK_N=64 --const BLOCK_K=32 --arg a_ptr=*fp32 --arg b_ptr=*fp32 --arg c_ptr=*fp32 --arg K=128
"""An fp32 dot with input_precision="ieee" stays on FMAs. accelerate-matmul gives its accumulator
register blocks (sizePerThread [4, 4]: 8x4 per thread for 64x64 over 128 threads), which the
loop carries; pipeline-dot-loads copies A and B into padded row-major rings with cp.async, and
the backend reads them in place: four k steps at a time, each row of A as one 16-byte vector
along K and each row of B as one 16-byte vector per thread."""
import triton
import triton.language as tl


@triton.jit
def fma_dot_kernel(a_ptr, b_ptr, c_ptr, K,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * BLOCK_N + rn[None, :])
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], acc)
