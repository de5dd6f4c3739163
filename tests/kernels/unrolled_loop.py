# compile: --kernel unrolled_loop_kernel --num-warps 4 --const BLOCK=64 --const UNROLL=4 --arg x_ptr=*fp32 --arg out_ptr=*fp32 --arg N=20
"""`tl.range(..., loop_unroll_factor=4)`: the loop becomes a main loop whose body runs the
original body four times (steps i, i+3, i+6, i+9) up to the last whole group of four iterations,
then the original loop runs what is left. The golden TTIR shows both loops; the values are the
same as without unrolling (tests/cli.rs runs both on interp)."""
import triton
import triton.language as tl


@triton.jit
def unrolled_loop_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr, UNROLL: tl.constexpr):
    r = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.range(0, N, 3, loop_unroll_factor=UNROLL):
        acc = acc * 0.5 + tl.load(x_ptr + i * BLOCK + r)
    tl.store(out_ptr + r, acc)
