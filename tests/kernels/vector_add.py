# compile: --kernel add_kernel --const BLOCK_SIZE=1024 --arg x_ptr=*fp32 --arg y_ptr=*fp32 --arg output_ptr=*fp32 --arg n_elements=1000
# compile: --kernel add_kernel --const BLOCK_SIZE=128 --arg x_ptr=*fp16 --arg y_ptr=*fp16 --arg output_ptr=*fp16 --arg n_elements=4096
"""Vector addition (Triton tutorial 01), in f32 and in f16 with a size divisible by 16."""
import triton
import triton.language as tl


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
