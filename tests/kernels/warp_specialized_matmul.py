# compile: --kernel warp_specialized_matmul_kernel --num-warps 8 --num-stages 3 --const BLOCK_M=128 --const BLOCK_N=128 --const BLOCK_K=64 --arg a_ptr=*fp16 --arg b_ptr=*fp16 --arg c_ptr=*fp16 --arg M=1000 --arg N=512 --arg K=256
"""A descriptor GEMM whose K loop asks for warp specialization (`tl.range(...,
warp_specialize=True)`). On sm_90a the loop becomes a `ttng.warp_specialize`: a producer
warpgroup issues the TMA copies of both operands into mbarrier rings, as far ahead as the ring
allows, while the program's 8 warps (two consumer warpgroups, 64 rows each) wait for each slot,
run the warpgroup MMAs (one in flight) and hand the slot back; the producer gives its registers to
the consumers (`setmaxnreg`). Elsewhere (interp, spirv, sm_80) the hint changes nothing."""
import triton
import triton.language as tl


@triton.jit
def warp_specialized_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, warp_specialize=True):
        a = a_desc.load([off_m, k])
        b = b_desc.load([k, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(tl.float16))
