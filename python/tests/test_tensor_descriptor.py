"""Host-side tensor descriptors (``triton.tools.tensor_descriptor.TensorDescriptor``): the class
is there, and passing one to a kernel is an ArgumentError that says why (trident's compiler takes
no descriptor parameters yet) and what works instead (``tl.make_tensor_descriptor`` in the
kernel)."""

import sys

import numpy as np
import pytest
import trident
import trident.dropin

from conftest import SCRIPTS

trident.dropin.install()
sys.path.insert(0, str(SCRIPTS))
import api_kernels as k  # noqa: E402
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
