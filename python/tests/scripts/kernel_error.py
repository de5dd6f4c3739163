"""A kernel with a mistake (a name that is not defined): the launch raises
trident.KernelError with the file, the line, the Python line and a caret."""

import numpy as np
import triton
import triton.language as tl


@triton.jit
def broken_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    y = tl.load(x_ptr + offsets, mask=mask) + undefined_name
    tl.store(out_ptr + offsets, y, mask=mask)


if __name__ == "__main__":
    x = np.ones(100, dtype=np.float32)
    out = np.empty_like(x)
    broken_kernel[(1, )](x, out, x.size, BLOCK=128)
