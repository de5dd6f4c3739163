"""Fused softmax (Triton's tutorial 02) with numpy host code: one program per row block, rows
strided over the programs with tl.range."""

import numpy as np
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    # starting row of the program
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        # The stride represents how much we need to increase the pointer to advance 1 row
        row_start_ptr = input_ptr + row_idx * input_row_stride
        # The block size is the next power of two greater than n_cols, so we can fit each
        # row in a single block
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        # Load the row into SRAM, using a mask since BLOCK_SIZE may be > than n_cols
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
        # Subtract maximum for numerical stability
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        # Write back output to DRAM
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


def softmax(x):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8
    num_stages = 2
    y = np.empty_like(x)
    num_programs = min(n_rows, 32)
    softmax_kernel[(num_programs, 1, 1)](
        y, x, x.strides[0] // x.itemsize, y.strides[0] // y.itemsize, n_rows, n_cols,
        BLOCK_SIZE=BLOCK_SIZE, num_stages=num_stages, num_warps=num_warps)
    return y


def naive_softmax(x):
    z = x - x.max(axis=1, keepdims=True)
    numerator = np.exp(z)
    return numerator / numerator.sum(axis=1, keepdims=True)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    for shape in [(1823, 781), (64, 1000), (7, 33)]:
        x = rng.standard_normal(shape, dtype=np.float32)
        y_triton = softmax(x)
        y_numpy = naive_softmax(x)
        assert np.allclose(y_triton, y_numpy, rtol=1e-5, atol=1e-6), (shape, np.abs(y_triton - y_numpy).max())
        print(f"softmax {shape}: max difference {np.abs(y_triton - y_numpy).max():.3g}")
    print("PASS fused_softmax")
