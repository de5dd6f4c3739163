# compile: --kernel desc_kernel --arg x_ptr=*fp16 --arg M=256 --arg N=256
"""A tensor descriptor is used through its methods (`desc.load`, `desc.store`), through
tl.load_tensor_descriptor / tl.store_tensor_descriptor, or passed to a @triton.jit function;
anywhere else (arithmetic, math, comparisons, casts, shape functions) it is an error."""
import triton
import triton.language as tl


@triton.jit
def desc_kernel(x_ptr, M, N):
    desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[64, 64])
    tile = tl.expand_dims(desc, 0).load([0, 0])
    desc.store([0, 0], tile * 2)
