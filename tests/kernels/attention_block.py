# compile: --kernel attention_block_kernel --const BLOCK_M=64 --const BLOCK_N=32 --const HEAD_DIM=64 --num-stages 3 --arg q_ptr=*fp16 --arg k_ptr=*fp16 --arg v_ptr=*fp16 --arg o_ptr=*fp16 --arg N_CTX=256
# compile: --kernel attention_block_kt_kernel --const BLOCK_M=64 --const BLOCK_N=32 --const HEAD_DIM=64 --num-stages 3 --arg q_ptr=*fp16 --arg k_ptr=*fp16 --arg o_ptr=*fp16 --arg N_CTX=256
# compile: --kernel attention_block_kernel --num-warps 8 --const BLOCK_M=128 --const BLOCK_N=64 --const HEAD_DIM=128 --num-stages 3 --arg q_ptr=*fp16 --arg k_ptr=*fp16 --arg v_ptr=*fp16 --arg o_ptr=*fp16 --arg N_CTX=4096
"""The inner loop of flash attention: two chained dots with an online softmax between them.
The goldens (sm_90a) show what the Hopper tensor-core path makes of it: both dots are warpgroup
MMAs with every warp along M (a score row lives in one warp). Q is converted once, before the
loop, to the layout wgmma reads A from registers; P leaves the first dot's accumulator already
in that layout; the accumulator's layout differs from the scores' only in the order of each
thread's registers, so the loop carries it without a trip through shared memory. The K and V
tiles are copied asynchronously into swizzled shared-memory rings. K^T loaded with d contiguous
takes a column-major (K-major) ring; K loaded row by row and transposed (`k.T`, the second
kernel) is copied as it is into the same kind of ring (`transposed` copies). The third line, at
d128 on 8 warps, takes TMA instead (tma-pointer-tiles: the tiles become descriptor loads): one
producer warp fills the K and V rings, the two consumer warp groups read Q from shared memory,
and the programs run persistently."""
import triton
import triton.language as tl


@triton.jit
def attention_block_kernel(q_ptr, k_ptr, v_ptr, o_ptr, N_CTX,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + rows[:, None] * HEAD_DIM + d[None, :])
    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    for n0 in tl.range(0, N_CTX, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        k_t = tl.load(k_ptr + cols[None, :] * HEAD_DIM + d[:, None])
        s = tl.dot(q, k_t)
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + cols[:, None] * HEAD_DIM + d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_new
    tl.store(o_ptr + rows[:, None] * HEAD_DIM + d[None, :], (acc / l_i[:, None]).to(tl.float16))


@triton.jit
def attention_block_kt_kernel(q_ptr, k_ptr, o_ptr, N_CTX,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + rows[:, None] * HEAD_DIM + d[None, :])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for n0 in tl.range(0, N_CTX, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + cols[:, None] * HEAD_DIM + d[None, :])
        acc = tl.dot(q, k.T, acc)
    tl.store(o_ptr + rows[:, None] * BLOCK_N + tl.arange(0, BLOCK_N)[None, :], acc.to(tl.float16))
