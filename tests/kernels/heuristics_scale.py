# compile: --kernel scale_kernel --const BLOCK=128 --arg x_ptr=*fp32 --arg out_ptr=*fp32 --arg n=1024
# compile: --kernel scale_kernel --const BLOCK=128 --arg x_ptr=*fp32 --arg out_ptr=*fp32 --arg n=1000
"""`out = 2 x + 1` with the mask dropped when @triton.heuristics finds that BLOCK divides n (EVEN):
the first compilation has no mask, the second has one."""
import triton
import triton.language as tl


@triton.heuristics({'EVEN': lambda args: args['n'] % args['BLOCK'] == 0})
@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offsets)
        tl.store(out_ptr + offsets, x * 2.0 + 1.0)
    else:
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, x * 2.0 + 1.0, mask=mask)
