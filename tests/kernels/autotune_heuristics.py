# compile: --kernel row_sum_kernel --arg x_ptr=*fp32 --arg out_ptr=*fp32 --arg n_cols=200
# compile: --kernel row_sum_kernel --config 3 --arg x_ptr=*fp32 --arg out_ptr=*fp32 --arg n_cols=256
"""Row sums with the usual stacking: @triton.autotune (configs from a list comprehension over a
module-level list) above @triton.heuristics, whose lambdas see the config's BLOCK."""
import triton
import triton.language as tl

BLOCKS = [64, 128]


@triton.autotune(
    configs=[triton.Config({'BLOCK': b}, num_warps=w) for b in BLOCKS for w in [2, 4]],
    key=['n_cols'],
)
@triton.heuristics({
    'EVEN': lambda args: args['n_cols'] % args['BLOCK'] == 0,
    'CHUNKS': lambda args: triton.cdiv(args['n_cols'], args['BLOCK']),
})
@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr, EVEN: tl.constexpr, CHUNKS: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for chunk in tl.static_range(CHUNKS):
        cols = chunk * BLOCK + tl.arange(0, BLOCK)
        if EVEN:
            acc += tl.load(x_ptr + row * n_cols + cols)
        else:
            acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))
