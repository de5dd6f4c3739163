"""trident: Triton's Python API on trident's compiler.

``@trident.jit`` kernels launch with ``kernel[grid](*args, **meta)`` on nvptx (CUDA GPUs), spirv
(Vulkan) or interp (the CPU reference), chosen by ``TRIDENT_BACKEND`` or ``set_backend``. Arrays
(numpy, or anything with a buffer) and CPU tensors are copied to the device and back; CUDA tensors
on nvptx are used in place. ``TRIDENT_CHECK=1`` runs every launch on interp too and compares. ``python -m trident
script.py`` runs an unmodified Triton script with trident standing in for ``triton``.
"""

from . import _native, language, runtime
from ._native import __version__
from .config import Config, autotune, heuristics
from .errors import ArgumentError, CheckError, CompilationError, InternalError, KernelError, TridentError
from .jit import JITFunction, get_backend, jit, set_backend


def backends():
    """The backends and whether each can run here: ``[(name, available, detail), ...]`` for
    interp, nvptx and spirv, as ``trident devices`` lists them."""
    return _native.backends()


def cdiv(x, y):
    """Ceiling division, ``(x + y - 1) // y``."""
    return (x + y - 1) // y


def next_power_of_2(n):
    """The smallest power of two at least ``n`` (1 for ``n <= 1``), as ``triton.next_power_of_2``."""
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def set_allocator(allocator):
    """``triton.set_allocator(fn)``: Triton calls ``fn(size, alignment, stream)`` for the global
    memory of tensor descriptors made inside kernels (``tl.make_tensor_descriptor``). trident's
    runtime allocates that memory itself (per stream, kept between launches), so the allocator is
    checked and never called; a program that sets one runs unchanged."""
    if allocator is not None and not callable(allocator):
        raise TypeError(f"set_allocator: the allocator must be callable (size, alignment, stream), not {allocator!r}")


class TensorWrapper:
    """An array read as another element type of the same width: ``reinterpret(x, tl.bfloat16)``."""

    def __init__(self, base, dtype):
        self.base = base
        self.dtype = dtype

    @property
    def __trident_reinterpret__(self):
        return (self.base, self.dtype.name)


def reinterpret(array, dtype):
    """``triton.reinterpret``: ``array`` (16-bit integers for bf16, 8-bit for the fp8 types) as
    ``dtype``, for the element types numpy lacks."""
    if isinstance(array, TensorWrapper):
        array = array.base
    return TensorWrapper(array, dtype)


__all__ = [
    "ArgumentError", "CheckError", "CompilationError", "Config", "InternalError", "JITFunction", "KernelError",
    "TensorWrapper", "TridentError", "autotune", "backends", "cdiv", "get_backend", "heuristics", "jit", "language",
    "next_power_of_2", "reinterpret", "runtime", "set_allocator", "set_backend", "__version__",
]
