# compile: --kernel desc_kernel --arg x_ptr=*fp16 --arg M=256 --arg N=256
"""The offsets of `desc.load` / `desc.store` (and the shape and strides of
tl.make_tensor_descriptor) are integer scalars: the block's corner, not a tensor of indices."""
import triton
import triton.language as tl


@triton.jit
def desc_kernel(x_ptr, M, N):
    desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[64, 64])
    rows = tl.program_id(0) * 64 + tl.arange(0, 64)
    tile = desc.load([rows, 0])
    desc.store([0, 0], tile * 2)
