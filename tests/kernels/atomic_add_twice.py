# compile: --kernel atomic_add_twice_kernel --const BLOCK=64 --arg out_ptr=*fp32 --arg value=1.0
"""Two float atomic adds on the same elements: every program adds `value`, then `10 * value`.

On a zero buffer the result is `11 * value * programs`. On lavapipe the compare-and-swap loop the
spirv backend used for f32 atomic_add lost adds when programs raced; the native OpAtomicFAddEXT
does not (tests/cli.rs runs this on interp and spirv).
"""
import triton
import triton.language as tl


@triton.jit
def atomic_add_twice_kernel(out_ptr, value, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.zeros((BLOCK,), tl.float32) + value
    tl.atomic_add(out_ptr + offs, v)
    tl.atomic_add(out_ptr + offs, v * 10.0)
