"""Fused softmax (Triton's tutorial 02) with torch host code: CUDA tensors where torch has a GPU,
else CPU tensors."""

import torch
import triton
import triton.language as tl

# The current GPU as torch names its tensors' device (`cuda:0`), as Triton's tutorials take it from
# triton.runtime.driver.active.get_active_torch_device(): `torch.device("cuda")` compares unequal.
DEVICE = torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() else torch.device("cpu")


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


def softmax(x):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8
    num_stages = 2
    y = torch.empty_like(x)
    num_programs = min(n_rows, 32)
    softmax_kernel[(num_programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                         num_stages=num_stages, num_warps=num_warps)
    return y


if __name__ == "__main__":
    torch.manual_seed(0)
    for shape in [(1823, 781), (64, 1000), (7, 33)]:
        x = torch.randn(shape, device=DEVICE)
        y_triton = softmax(x)
        y_torch = torch.softmax(x, axis=1)
        assert torch.allclose(y_triton, y_torch, rtol=1e-5, atol=1e-6), (shape, (y_triton - y_torch).abs().max())
        print(f"softmax {shape}: max difference {(y_triton - y_torch).abs().max().item():.3g}")
    print(f"PASS torch_fused_softmax on {DEVICE.type}")
