# compile: --kernel random_conversions_kernel --const BLOCK=64 --arg words_ptr=*i32 --arg wide_ptr=*i64 --arg uniform_ptr=*fp32 --arg uniform64_ptr=*fp32 --arg normal_ptr=*fp32
"""The random generator's conversions called on a kernel's own words: `tl.uint_to_uniform_float`
(32- and 64-bit) and `tl.pair_uniform_to_normal`."""
import triton
import triton.language as tl


@triton.jit
def random_conversions_kernel(words_ptr, wide_ptr, uniform_ptr, uniform64_ptr, normal_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    u1 = tl.uint_to_uniform_float(tl.load(words_ptr + offs))
    u2 = tl.uint_to_uniform_float(tl.load(words_ptr + BLOCK + offs))
    tl.store(uniform_ptr + offs, u1)
    tl.store(uniform_ptr + BLOCK + offs, u2)
    tl.store(uniform64_ptr + offs, tl.uint_to_uniform_float(tl.load(wide_ptr + offs)))
    n1, n2 = tl.pair_uniform_to_normal(u1, u2)
    tl.store(normal_ptr + offs, n1)
    tl.store(normal_ptr + BLOCK + offs, n2)
