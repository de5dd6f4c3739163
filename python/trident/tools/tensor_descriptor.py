"""``triton.tools.tensor_descriptor.TensorDescriptor``: a host-side tensor descriptor.

Triton passes such a descriptor to a kernel as one argument. So does trident: the kernel is
specialized on the descriptor's element type, block shape and padding, takes its base, shape and
strides, and makes the descriptor on entry (on sm_90a, a tensor map encoded on the host where the
descriptor's loads feed warpgroup dots).
"""


class TensorDescriptor:
    """``TensorDescriptor(base, shape, strides, block_shape)`` (Triton's fields)."""

    __trident_tensor_descriptor__ = True

    def __init__(self, base, shape, strides, block_shape, padding="zero"):
        self.base = base
        self.shape = list(shape)
        self.strides = list(strides)
        self.block_shape = list(block_shape)
        self.padding = padding
        if len(self.shape) != len(self.strides) or len(self.shape) != len(self.block_shape):
            raise ValueError("shape, strides and block_shape must have the same rank")
        if self.strides and self.strides[-1] != 1:
            raise ValueError(f"the last dimension must be contiguous (stride 1), not {self.strides[-1]}")

    @staticmethod
    def from_tensor(tensor, block_shape, padding="zero"):
        """The descriptor of a whole tensor (torch: ``shape``, ``stride()``; numpy: ``shape``,
        ``strides`` in elements)."""
        shape = list(tensor.shape)
        strides = tensor.stride() if callable(getattr(tensor, "stride", None)) else [
            s // tensor.itemsize for s in tensor.strides]
        return TensorDescriptor(tensor, shape, list(strides), block_shape, padding)

    def __repr__(self):
        return (f"TensorDescriptor(shape={self.shape}, strides={self.strides}, block_shape={self.block_shape}, "
                f"padding={self.padding!r})")
