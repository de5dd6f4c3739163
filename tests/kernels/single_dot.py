# compile: --kernel single_dot_kernel --const BLOCK_M=64 --const BLOCK_N=64 --const BLOCK_K=32 --arg a_ptr=*fp16 --arg b_ptr=*fp16 --arg c_ptr=*fp32
"""One tile product with no loop: on sm_90a the warpgroup dot stages both operands from
registers into swizzled shared memory itself (no pipelined ring to read in place)."""
import triton
import triton.language as tl


@triton.jit
def single_dot_kernel(a_ptr, b_ptr, c_ptr,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + rm[:, None] * BLOCK_K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BLOCK_N + rn[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], c)
