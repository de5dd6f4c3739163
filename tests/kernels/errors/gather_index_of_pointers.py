# compile: --kernel gather_kernel --arg src_ptr=*fp32 --arg index_ptr=*i32 --arg out_ptr=*fp32
"""`tl.gather`'s index must be integers: pointers to integers are not (found by the fuzzer)."""
import triton
import triton.language as tl


@triton.jit
def gather_kernel(src_ptr, index_ptr, out_ptr):
    src = tl.load(src_ptr + tl.arange(0, 8)[:, None] * 16 + tl.arange(0, 16)[None, :])
    index = index_ptr + tl.arange(0, 8)[:, None] * 16 + tl.arange(0, 16)[None, :]
    tl.store(out_ptr + tl.arange(0, 8)[:, None] * 16 + tl.arange(0, 16)[None, :], tl.gather(src, index, 1))
