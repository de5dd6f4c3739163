"""Vector addition, as in Triton's first tutorial (01-vector-add.py).

Each program adds one BLOCK_SIZE-long block of x and y into output; the mask keeps the last
block inside n_elements.

    cargo run --release -- run examples/vector_add.py --kernel add_kernel --backend auto \
        --grid 4 --const BLOCK_SIZE=256 --arg x_ptr=@examples/data/x.npy \
        --arg y_ptr=@examples/data/y.npy --arg output_ptr=@examples/data/output.npy \
        --arg n_elements=1000 --out out
"""
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr,  # Pointer to the first input vector.
               y_ptr,  # Pointer to the second input vector.
               output_ptr,  # Pointer to the output vector.
               n_elements,  # Size of the vectors.
               BLOCK_SIZE: tl.constexpr,  # Number of elements each program processes.
               ):
    # Several programs process different blocks of the data; this one is number `pid`.
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    # Guard the accesses past the end of the vectors.
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)
