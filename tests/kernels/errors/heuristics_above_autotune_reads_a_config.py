# compile: --kernel copy_kernel --arg x_ptr=*fp32 --arg y_ptr=*fp32 --arg n=100
import triton
import triton.language as tl


@triton.heuristics({'EVEN': lambda args: args['n'] % args['BLOCK'] == 0})
@triton.autotune(configs=[triton.Config({'BLOCK': 64}), triton.Config({'BLOCK': 128})], key=['n'])
@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(y_ptr + offsets, tl.load(x_ptr + offsets))
    else:
        tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)
