# compile: --kernel propagate_nan_kernel --const BLOCK=16 --arg x_ptr=*fp32 --arg max_ptr=*fp32 --arg min_ptr=*fp32
"""`tl.PropagateNan.ALL` and `.NONE` as `propagate_nan=` (arith.maximumf / arith.minnumf), and
`tl.TRITON_MAX_TENSOR_NUMEL` in a static assertion."""
import triton
import triton.language as tl


@triton.jit
def propagate_nan_kernel(x_ptr, max_ptr, min_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK <= tl.TRITON_MAX_TENSOR_NUMEL)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(max_ptr + offs, tl.maximum(x, 0.5, propagate_nan=tl.PropagateNan.ALL))
    tl.store(min_ptr + offs, tl.minimum(x, 0.5, propagate_nan=tl.PropagateNan.NONE))
