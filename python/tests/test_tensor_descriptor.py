"""Host-side tensor descriptors (``triton.tools.tensor_descriptor.TensorDescriptor``) as kernel
arguments, and descriptors made in the kernel (``tl.make_tensor_descriptor``), which run whatever
allocator the program sets with ``triton.set_allocator``."""

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


@pytest.mark.parametrize("backend", ["interp", "spirv"])
def test_descriptor_arguments_load_and_store_tiles(backend):
    require_backend(backend, f"test_descriptor_arguments_load_and_store_tiles[{backend}]")
    k.descriptor_args_kernel._native = None  # loads afresh (the other backend's run loaded it too)
    x = np.arange(100 * 72, dtype=np.float32).reshape(100, 72)
    out = np.zeros_like(x)
    trident.set_backend(backend)
    try:
        # 4 x 5 tiles of 32 x 16 cover 128 x 80 elements: the loads past the edges read zeros and
        # the stores there are dropped, as TMA's are.
        source, target = TensorDescriptor.from_tensor(x, [32, 16]), TensorDescriptor.from_tensor(out, [32, 16])
        k.descriptor_args_kernel[(4, 5)](source, target, BM=32, BN=16)
        assert np.array_equal(out, 2 * x)
        # A view of rows 10..60 through shape and strides of the same array: another launch,
        # the same specialization (the shape and strides are runtime values).
        out[:] = 0
        rows = TensorDescriptor(x[10:], [50, 72], [72, 1], [32, 16])
        k.descriptor_args_kernel[(2, 5)](rows, TensorDescriptor(out, [50, 72], [72, 1], [32, 16]), BM=32, BN=16)
        assert np.array_equal(out[:50], 2 * x[10:60]) and not out[50:].any()
        assert k.descriptor_args_kernel._native.loaded() == 1
    finally:
        trident.set_backend(None)


def test_a_descriptor_argument_says_what_is_wrong_with_it():
    x = np.zeros((64, 32), dtype=np.float32)
    trident.set_backend("interp")
    try:
        odd = TensorDescriptor.from_tensor(x, [16, 32])
        odd.strides = [32, 2]  # changed after the checks of the constructor
        with pytest.raises(trident.ArgumentError, match="in_desc: a TensorDescriptor needs its last stride to be 1"):
            k.descriptor_args_kernel[(1, 1)](odd, odd, BM=16, BN=32)
        padded = TensorDescriptor.from_tensor(x, [16, 32], padding="inf")
        with pytest.raises(trident.ArgumentError, match='padding "inf"'):
            k.descriptor_args_kernel[(1, 1)](padded, padded, BM=16, BN=32)
        narrow = TensorDescriptor.from_tensor(x, [16, 2])  # 8 bytes a row: less than TMA's 16
        with pytest.raises(trident.KernelError, match="at least 16 bytes"):
            k.descriptor_args_kernel[(1, 1)](narrow, narrow, BM=16, BN=2)
    finally:
        trident.set_backend(None)


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
