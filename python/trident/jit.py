"""``@trident.jit`` and ``kernel[grid](*args, **meta)``.

A kernel is named by its source file and its function name: the frontend (in Rust) reads the
whole file, so the kernel's callees, module-level constants and decorators resolve as they do for
``trident run``. The file is the one the function was defined in (``fn.__code__.co_filename``); a
kernel typed into a REPL has none and cannot be compiled.

A launch binds the arguments with Python's own rules (``inspect.Signature.bind_partial``: an
unknown keyword is a ``TypeError`` here; a missing one is reported by trident, which knows what the
autotune configs and heuristics give), separates Triton's launch options (``num_warps``,
``num_stages``, ...) and hands everything to ``trident._native.launch``. The grid is a tuple, or,
as in Triton, a function of a dict of the kernel's arguments and meta-parameters (after the
autotune config and the heuristics), called for each launch (each timed config included).
"""

import inspect
import operator
import os
import warnings

from . import _native
from .errors import ArgumentError

_BACKENDS = ("auto", "nvptx", "spirv", "interp")

# Triton's launch options, taken out of the keyword arguments unless the kernel has a parameter of
# that name.
_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion", "debug",
            "launch_cooperative_grid")

_backend = None


def set_backend(name):
    """Runs every later launch on ``name`` (auto, nvptx, spirv or interp), whatever
    ``TRIDENT_BACKEND`` says; ``None`` goes back to the variable."""
    global _backend
    if name is not None and name not in _BACKENDS:
        raise ValueError(f"unknown backend {name!r}: auto, nvptx, spirv or interp")
    _backend = name


def get_backend():
    """The backend of the next launch: ``set_backend``'s, else ``TRIDENT_BACKEND``, else auto
    (nvptx on a CUDA GPU, else spirv on a Vulkan adapter, else interp)."""
    if _backend is not None:
        return _backend
    name = os.environ.get("TRIDENT_BACKEND", "") or "auto"
    if name not in _BACKENDS:
        raise ValueError(f"TRIDENT_BACKEND={name!r}: auto, nvptx, spirv or interp")
    return name


class JITFunction:
    """A ``@triton.jit`` kernel. Launch it with ``kernel[grid](*args, **meta)``; calling it
    directly is an error outside a kernel, as in Triton."""

    def __init__(self, fn, do_not_specialize=None, debug=None, noinline=None):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.path = fn.__code__.co_filename
        self.signature = inspect.signature(fn)
        self.arg_names = list(self.signature.parameters)
        self.do_not_specialize = do_not_specialize

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            f"{self.__name__} is a @triton.jit kernel: launch it with {self.__name__}[grid](...), or call it "
            "from another kernel")

    def __repr__(self):
        return f"JITFunction({self.__module__}:{self.__qualname__})"

    def run(self, *args, grid, warmup=False, **kwargs):
        """Launches the kernel over ``grid`` (Triton's ``JITFunction.run``)."""
        options = {name: kwargs.pop(name) for name in _OPTIONS if name in kwargs and name not in self.arg_names}
        num_ctas = options.get("num_ctas", 1)
        if num_ctas != 1:
            raise ArgumentError(f"{self.__name__}: num_ctas={num_ctas}: trident launches one CTA per program")
        if options.get("maxnreg") is not None:
            warnings.warn(f"{self.__name__}: maxnreg is not applied by trident yet", stacklevel=3)
        bound = self.signature.bind_partial(*args, **kwargs)
        values = {name: _host_value(value) for name, value in bound.arguments.items()}
        if warmup:
            raise NotImplementedError("warmup launches (compile without running) are not in trident yet")
        _native.launch(
            self.path,
            self.fn.__name__,
            list(values.items()),
            _grid_function(self.__name__, grid, values),
            num_warps=options.get("num_warps", 4),
            num_stages=options.get("num_stages", 3),
            backend=get_backend(),
        )


def jit(fn=None, *, do_not_specialize=None, debug=None, noinline=None, **unused):
    """``@triton.jit`` and ``@triton.jit(...)``."""

    def decorator(function):
        return JITFunction(function, do_not_specialize=do_not_specialize, debug=debug, noinline=noinline)

    return decorator if fn is None else decorator(fn)


def _host_value(value):
    """A numpy scalar as the Python scalar it holds; every other value as it is."""
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        return value.item()
    return value


def _grid_function(kernel, grid, values):
    """The grid as ``trident._native.launch`` calls it: a function of the meta-parameters that
    returns ``(x, y, z)``."""

    def grid_for(meta):
        dims = grid
        if callable(grid):
            dims = grid({**values, **meta})
        return _three_dims(kernel, dims)

    return grid_for


def _three_dims(kernel, dims):
    if not isinstance(dims, (tuple, list)):
        dims = (dims,)
    if not 1 <= len(dims) <= 3:
        raise ArgumentError(f"{kernel}: the grid {dims!r} has {len(dims)} dimensions; a grid has 1 to 3")
    try:
        numbers = [operator.index(d) for d in dims]
    except TypeError:
        raise ArgumentError(f"{kernel}: the grid {dims!r} must hold integers") from None
    if any(n < 0 for n in numbers):
        raise ArgumentError(f"{kernel}: the grid {tuple(numbers)} has a negative dimension")
    return tuple(numbers + [1] * (3 - len(numbers)))
