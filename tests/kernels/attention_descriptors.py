# compile: --kernel attention_descriptors_kernel --num-warps 8 --num-stages 3 --const HEAD_DIM=128 --const BLOCK_M=128 --const BLOCK_N=64 --arg q_ptr=*fp16 --arg k_ptr=*fp16 --arg v_ptr=*fp16 --arg o_ptr=*fp16 --arg qk_scale=0.1275 --arg N_CTX=1024
# compile: --kernel attention_heads_kernel --num-warps 8 --num-stages 3 --const HEAD_DIM=128 --const BLOCK_M=128 --const BLOCK_N=64 --arg q_ptr=*fp16 --arg k_ptr=*fp16 --arg v_ptr=*fp16 --arg o_ptr=*fp16 --arg qk_scale=0.1275 --arg HEADS=300 --arg N_CTX=128
# compile: --kernel attention_head_views_kernel --num-warps 8 --num-stages 3 --const HEAD_DIM=128 --const BLOCK_M=128 --const BLOCK_N=64 --arg q_ptr=*fp16 --arg k_ptr=*fp16 --arg v_ptr=*fp16 --arg o_ptr=*fp16 --arg qk_scale=0.1275 --arg HEADS=300 --arg N_CTX=128
"""Attention whose K and V tiles come through tensor descriptors, with no loop hint: on sm_90a
trident warp-specializes its loop unasked (attention's chain of warpgroup dots, rings that leave
room for one program per SM): a producer warpgroup issues the TMA copies of K and V while the
program's 8 warps run `Q K^T`, the softmax and `P V`. One head of N_CTX rows; grid (N_CTX //
BLOCK_M,); `attention_heads_kernel` runs it over several heads."""
import triton
import triton.language as tl


@triton.jit
def attention_descriptors_kernel(q_ptr, k_ptr, v_ptr, o_ptr, qk_scale, N_CTX,
                                 HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    _attend_head(q_ptr, k_ptr, v_ptr, o_ptr, qk_scale, N_CTX, 0, N_CTX, HEAD_DIM, BLOCK_M, BLOCK_N)


@triton.jit
def attention_heads_kernel(q_ptr, k_ptr, v_ptr, o_ptr, qk_scale, HEADS, N_CTX,
                           HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """The same attention over HEADS heads of N_CTX rows each, stacked; grid (N_CTX // BLOCK_M,
    HEADS). More programs than an H100 has SMs: on sm_90a the kernel runs persistent, each CTA
    walking several (query block, head) programs."""
    _attend_head(q_ptr, k_ptr, v_ptr, o_ptr, qk_scale, HEADS * N_CTX, tl.program_id(1) * N_CTX, N_CTX,
                 HEAD_DIM, BLOCK_M, BLOCK_N)


@triton.jit
def attention_head_views_kernel(q_ptr, k_ptr, v_ptr, o_ptr, qk_scale, HEADS, N_CTX,
                                HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """`attention_heads_kernel` with descriptors over one head each (based at the head's first
    row, N_CTX rows long). They depend on the program, and a descriptor is made by the whole CTA,
    so on sm_90a the kernel stays one program per CTA (warp-specialized, not persistent: a
    persistent producer would have to make each program's descriptors alone)."""
    head = tl.program_id(1).to(tl.int64) * N_CTX * HEAD_DIM
    _attend_head(q_ptr + head, k_ptr + head, v_ptr + head, o_ptr + head, qk_scale, N_CTX, 0, N_CTX,
                 HEAD_DIM, BLOCK_M, BLOCK_N)


@triton.jit
def _attend_head(q_ptr, k_ptr, v_ptr, o_ptr, qk_scale, rows, head_row, N_CTX,
                 HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Query block tl.program_id(0) of the head whose N_CTX rows start at row head_row of the
    (rows, HEAD_DIM) tensors, attending to the head's keys."""
    desc_q = tl.make_tensor_descriptor(q_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    desc_k = tl.make_tensor_descriptor(k_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    desc_v = tl.make_tensor_descriptor(v_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    desc_o = tl.make_tensor_descriptor(o_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    start_m = head_row + tl.program_id(0) * BLOCK_M
    q = desc_q.load([start_m, 0])
    m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    for start_n in range(0, N_CTX, BLOCK_N):
        k = desc_k.load([head_row + start_n, 0])
        qk = tl.dot(q, k.T)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = desc_v.load([head_row + start_n, 0])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    desc_o.store([start_m, 0], (acc / l_i[:, None]).to(tl.float16))
