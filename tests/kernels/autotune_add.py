# compile: --kernel add_kernel --arg x_ptr=*fp32 --arg y_ptr=*fp32 --arg output_ptr=*fp32 --arg n_elements=1000
# compile: --kernel add_kernel --config 1 --arg x_ptr=*fp32 --arg y_ptr=*fp32 --arg output_ptr=*fp32 --arg n_elements=1000
"""Vector addition (Triton tutorial 01) whose BLOCK_SIZE comes from @triton.autotune: two configs,
each with its own num_warps and num_stages; the output is zeroed between trials."""
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({'BLOCK_SIZE': 64}, num_warps=2),
        triton.Config({'BLOCK_SIZE': 256}, num_warps=4, num_stages=2),
    ],
    key=['n_elements'],
    reset_to_zero=['output_ptr'],
)
@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)
