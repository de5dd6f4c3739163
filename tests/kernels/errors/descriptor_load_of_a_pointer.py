# compile: --kernel desc_kernel --arg x_ptr=*fp16
"""tl.load_tensor_descriptor takes a tensor descriptor (from tl.make_tensor_descriptor), not the
pointer it would be made from."""
import triton
import triton.language as tl


@triton.jit
def desc_kernel(x_ptr):
    tile = tl.load_tensor_descriptor(x_ptr, [0, 0])
    tl.store(x_ptr + tl.arange(0, 16), tl.sum(tile, axis=1))
