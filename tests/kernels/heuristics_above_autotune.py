# compile: --kernel padded_row_sum_kernel --arg x_ptr=*fp32 --arg out_ptr=*fp32 --arg n_cols=200
# compile: --kernel padded_row_sum_kernel --config 2 --arg x_ptr=*fp32 --arg out_ptr=*fp32 --arg n_cols=256
"""Row sums with @triton.heuristics stacked above @triton.autotune, in Triton's order: the upper
heuristics run first, over the launch's arguments alone (EVEN and N_PADDED know nothing of BLOCK),
the autotuner's key names EVEN, and the heuristic below the autotuner sees both the config's BLOCK
and N_PADDED."""
import triton
import triton.language as tl


@triton.heuristics({
    'EVEN': lambda args: args['n_cols'] % 64 == 0,
    'N_PADDED': lambda args: triton.cdiv(args['n_cols'], 64) * 64,
})
@triton.autotune(
    configs=[
        triton.Config({'BLOCK': 16}, num_warps=1),
        triton.Config({'BLOCK': 32}, num_warps=2),
        triton.Config({'BLOCK': 64}, num_warps=2),
    ],
    key=['n_cols', 'EVEN'],
)
@triton.heuristics({'CHUNKS': lambda args: args['N_PADDED'] // args['BLOCK']})
@triton.jit
def padded_row_sum_kernel(x_ptr, out_ptr, n_cols, EVEN: tl.constexpr, N_PADDED: tl.constexpr,
                          BLOCK: tl.constexpr, CHUNKS: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    # Every BLOCK divides 64, so a row of a multiple of 64 columns needs no mask.
    for chunk in tl.static_range(CHUNKS):
        cols = chunk * BLOCK + tl.arange(0, BLOCK)
        if EVEN:
            acc += tl.load(x_ptr + row * n_cols + cols)
        else:
            acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))
