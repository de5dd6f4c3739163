"""Host-side tensor descriptors (``triton.tools.tensor_descriptor.TensorDescriptor``): the class
is there, and passing one to a kernel is an ArgumentError that says why (trident's compiler takes
no descriptor parameters yet) and what works instead (``tl.make_tensor_descriptor`` in the
kernel), which run whatever allocator the program sets with ``triton.set_allocator``."""

import sys

import numpy as np
import pytest
import trident
import trident.dropin

from conftest import SCRIPTS, require_backend

trident.dropin.install()
sys.path.insert(0, str(SCRIPTS))
import api_kernels as k  # noqa: E402
import triton  # noqa: E402  (trident, through the drop-in)
from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: E402


def test_the_descriptor_keeps_triton_fields():
    x = np.zeros((64, 32), dtype=np.float32)
    desc = TensorDescriptor.from_tensor(x, [16, 32])
    assert desc.shape == [64, 32] and desc.strides == [32, 1] and desc.block_shape == [16, 32] and desc.base is x
    with pytest.raises(ValueError, match="same rank"):
        TensorDescriptor(x, [64, 32], [32, 1], [16])


def test_a_descriptor_argument_is_refused_with_the_alternative():
    x = np.zeros((8, 8), dtype=np.float32)
    desc = TensorDescriptor(x, [8, 8], [8, 1], [8, 8])
    trident.set_backend("interp")
    try:
        with pytest.raises(trident.ArgumentError) as raised:
            k.scale_kernel[(1, )](desc, x, 64, 1.0, NEGATE=False, BLOCK=64)
    finally:
        trident.set_backend(None)
    text = str(raised.value)
    assert "x_ptr: a host-side TensorDescriptor" in text and "tl.make_tensor_descriptor" in text, text


@pytest.mark.parametrize("backend", ["interp", "spirv"])
def test_in_kernel_descriptors_run_with_a_program_allocator(backend):
    # Triton's persistent-matmul tutorial sets an allocator for in-kernel descriptors' memory;
    # trident's runtime allocates it itself, so the allocator is kept and never called.
    require_backend(backend, f"test_in_kernel_descriptors_run_with_a_program_allocator[{backend}]")
    calls = []
    triton.set_allocator(lambda size, alignment, stream: calls.append(size))
    with pytest.raises(TypeError, match="must be callable"):
        triton.set_allocator(42)
    x = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    out = np.zeros_like(x)
    trident.set_backend(backend)
    try:
        k.descriptor_copy_kernel[(4, )](x, out, 64, 32, BM=16, BN=32)
    finally:
        trident.set_backend(None)
        triton.set_allocator(None)
    assert np.array_equal(out, x) and calls == []
