# compile: --kernel swizzle2d_kernel --const BLOCK_I=8 --const BLOCK_J=4 --arg new_i_ptr=*i32 --arg new_j_ptr=*i32 --arg size_i=8 --arg size_j=4 --arg size_g=3
# compile: --kernel swizzle2d_program_kernel --const SIZE_I=5 --const SIZE_J=4 --const SIZE_G=2 --arg new_i_ptr=*i32 --arg new_j_ptr=*i32
"""`tl.swizzle2d` on tensors with runtime sizes, and on scalars with compile-time ones."""
import triton
import triton.language as tl


@triton.jit
def swizzle2d_kernel(new_i_ptr, new_j_ptr, size_i, size_j, size_g, BLOCK_I: tl.constexpr,
                     BLOCK_J: tl.constexpr):
    # Every position (i, j) of the grid, as tensors; where tl.swizzle2d sends it.
    i = tl.arange(0, BLOCK_I)[:, None]
    j = tl.arange(0, BLOCK_J)[None, :]
    new_i, new_j = tl.swizzle2d(i, j, size_i, size_j, size_g)
    offsets = i * BLOCK_J + j
    mask = (i < size_i) & (j < size_j)
    tl.store(new_i_ptr + offsets, new_i, mask=mask)
    tl.store(new_j_ptr + offsets, new_j, mask=mask)


@triton.jit
def swizzle2d_program_kernel(new_i_ptr, new_j_ptr, SIZE_I: tl.constexpr, SIZE_J: tl.constexpr,
                             SIZE_G: tl.constexpr):
    # One program per position, on scalars, the sizes compile-time constants.
    pid = tl.program_id(0)
    new_i, new_j = tl.swizzle2d(pid // SIZE_J, pid % SIZE_J, SIZE_I, SIZE_J, SIZE_G)
    tl.store(new_i_ptr + pid, new_i)
    tl.store(new_j_ptr + pid, new_j)
