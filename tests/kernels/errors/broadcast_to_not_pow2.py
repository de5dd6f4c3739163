# compile: --kernel histogram_kernel --const BLOCK=127 --arg x_ptr=*i32 --arg hist_ptr=*i32 --arg N=1000
"""Every dimension of a Triton tensor is a power of two, whichever function makes it:
tl.broadcast_to to 127 elements is an error at the call."""
import triton
import triton.language as tl


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.broadcast_to(0, BLOCK)
    bins = tl.load(x_ptr + offs, mask=offs < N, other=0)
    tl.atomic_add(hist_ptr + bins, 1, mask=offs < N)
