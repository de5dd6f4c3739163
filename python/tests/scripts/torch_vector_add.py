"""Vector addition (Triton's tutorial 01) with torch host code, as the tutorial has it: CUDA
tensors where torch has a GPU (used in place on nvptx), else CPU tensors."""

import torch
import triton
import triton.language as tl

# The current GPU as torch names its tensors' device (`cuda:0`), as Triton's tutorials take it from
# triton.runtime.driver.active.get_active_torch_device(): `torch.device("cuda")` compares unequal.
DEVICE = torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() else torch.device("cpu")


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor):
    output = torch.empty_like(x)
    assert x.device == DEVICE and y.device == DEVICE and output.device == DEVICE
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


if __name__ == "__main__":
    torch.manual_seed(0)
    size = 98432
    x = torch.rand(size, device=DEVICE)
    y = torch.rand(size, device=DEVICE)
    output_torch = x + y
    output_triton = add(x, y)
    print(output_torch)
    print(output_triton)
    difference = torch.max(torch.abs(output_torch - output_triton)).item()
    print(f'The maximum difference between torch and triton is {difference}')
    assert difference == 0.0
    print(f"PASS torch_vector_add on {DEVICE.type}")
