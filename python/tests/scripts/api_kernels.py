"""Kernels for test_api.py: each exercises one part of the launch API."""

import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, factor, NEGATE: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = x * factor
    if NEGATE:
        y = -y
    tl.store(out_ptr + offsets, y, mask=mask)


@triton.jit
def select_kernel(x_ptr, out_ptr, n, flag, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.where(flag, x, 0), mask=mask)


@triton.jit
def cast_kernel(x_ptr, out_ptr, n, OUT_DTYPE: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x.to(OUT_DTYPE), mask=mask)


@triton.heuristics({'EVEN': lambda args: args['n'] % args['BLOCK'] == 0})
@triton.jit
def even_kernel(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(x_ptr + offsets, tl.load(x_ptr + offsets) + 1)
    else:
        mask = offsets < n
        tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 2, mask=mask)


@triton.jit
def out_of_bounds_kernel(x_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets) * 2)


@triton.jit
def rows_kernel(out_ptr, in_ptr, n_rows, n_cols, BLOCK: tl.constexpr, num_stages: tl.constexpr):
    # A parameter named as a launch option binds as an argument (Triton's softmax tutorial has it).
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=num_stages):
        cols = tl.arange(0, BLOCK)
        values = tl.load(in_ptr + row * n_cols + cols, mask=cols < n_cols)
        tl.store(out_ptr + row * n_cols + cols, values * 2, mask=cols < n_cols)


@triton.jit
def descriptor_copy_kernel(in_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    source = tl.make_tensor_descriptor(in_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    target = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    row = tl.program_id(0) * BM
    target.store([row, 0], source.load([row, 0]))


@triton.jit
def descriptor_args_kernel(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    row = tl.program_id(0) * BM
    col = tl.program_id(1) * BN
    out_desc.store([row, col], in_desc.load([row, col]) * 2)


@triton.jit
def matmul_descriptor_args_kernel(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr,
                                  BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_desc.load([pid_m * BM, k]), b_desc.load([k, pid_n * BN]), acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))
