# compile: --kernel descriptor_matmul_kernel --num-warps 8 --num-stages 3 --const BLOCK_M=128 --const BLOCK_N=128 --const BLOCK_K=64 --const WARP_SPECIALIZE=False --arg a_ptr=*fp16 --arg b_ptr=*fp16 --arg c_ptr=*fp16 --arg M=1000 --arg N=512 --arg K=256
# compile: --kernel descriptor_scale_kernel --num-warps 4 --const BLOCK_R=32 --const BLOCK_C=64 --arg x_ptr=*fp32 --arg y_ptr=*fp32 --arg R=100 --arg C=96 --arg scale=2.5
# compile: --kernel descriptor_band_kernel --num-warps 4 --const BLOCK_R=32 --const BLOCK_C=64 --arg x_ptr=*fp32 --arg y_ptr=*fp32 --arg R=100 --arg C=96 --arg scale=2.5
# compile: --kernel descriptor_matmul_kernel --num-warps 8 --num-stages 3 --const BLOCK_M=128 --const BLOCK_N=128 --const BLOCK_K=64 --const WARP_SPECIALIZE=True --arg a_ptr=*fp16 --arg b_ptr=*fp16 --arg c_ptr=*fp16 --arg M=1000 --arg N=512 --arg K=256
"""Tensor descriptors made in the kernel (`tl.make_tensor_descriptor`, the style of Triton's
tutorial 09). On sm_90a they stay descriptors, and the accesses become TMA copies
(`cp.async.bulk.tensor`) waited on with mbarriers. A descriptor made from the kernel's
arguments alone (every one here but the band kernel's) has its tensor map encoded by the
runtime on the host, once per launch, and passed as a kernel parameter; the band kernel's
descriptors start at each program's own rows, so each program builds its maps in global
scratch.
The GEMM's K loop streams both operands through swizzled shared-memory rings filled by TMA (one
mbarrier per slot) into warpgroup MMAs; its output tile is stored through TMA (rows past M are
clipped by the tensor map). With `WARP_SPECIALIZE` (`tl.range(..., warp_specialize=True)`) the K
loop becomes a `ttng.warp_specialize` on sm_90a: a producer warpgroup issues the TMA copies into
the rings, as far ahead as they allow, while the program's 8 warps (two consumer warpgroups, 64
rows each) wait for each slot, run the MMAs (one in flight) and hand the slot back; the producer
gives its registers to the consumers (`setmaxnreg`). Elsewhere the hint changes nothing. The
scale kernel loads and stores 2-D blocks that overhang the tensor on both axes: the overhang
reads zeros and is never written; the band kernel does the same through descriptors of one
band of rows each."""
import triton
import triton.language as tl


@triton.jit
def descriptor_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                             WARP_SPECIALIZE: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, warp_specialize=WARP_SPECIALIZE):
        a = a_desc.load([off_m, k])
        b = b_desc.load([k, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(tl.float16))


@triton.jit
def descriptor_scale_kernel(x_ptr, y_ptr, R, C, scale, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[R, C], strides=[C, 1], block_shape=[BLOCK_R, BLOCK_C])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[R, C], strides=[C, 1], block_shape=[BLOCK_R, BLOCK_C])
    off_r = tl.program_id(0) * BLOCK_R
    off_c = tl.program_id(1) * BLOCK_C
    x = x_desc.load([off_r, off_c])
    y_desc.store([off_r, off_c], x * scale + 1.0)


@triton.jit
def descriptor_band_kernel(x_ptr, y_ptr, R, C, scale, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    band = tl.program_id(0) * BLOCK_R
    rows = tl.minimum(R - band, BLOCK_R)
    x_desc = tl.make_tensor_descriptor(x_ptr + band * C, shape=[rows, C], strides=[C, 1],
                                       block_shape=[BLOCK_R, BLOCK_C])
    y_desc = tl.make_tensor_descriptor(y_ptr + band * C, shape=[rows, C], strides=[C, 1],
                                       block_shape=[BLOCK_R, BLOCK_C])
    off_c = tl.program_id(1) * BLOCK_C
    x = x_desc.load([0, off_c])
    y_desc.store([0, off_c], x * scale + 1.0)
