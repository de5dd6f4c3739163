"""``@trident.jit`` and ``kernel[grid](*args, **meta)``.

A kernel is named by its source file and its function name: the frontend (in Rust) reads the
whole file, so the kernel's callees, module-level constants and decorators resolve as they do for
``trident run``. The file is the one the function was defined in (``fn.__code__.co_filename``); a
kernel typed into a REPL has none and cannot be compiled.

``kernel[grid]`` is the native kernel's launcher (``trident._native.Launcher``), which takes
the positional and keyword arguments of ``kernel[grid](...)`` as they are: binding them to the
parameters (Python's rules, Triton's launch options ``num_warps``, ``num_stages``, ... taken
out), typing them, looking the specialization up among those already loaded and launching happen
in Rust, so that a repeat launch costs a few microseconds of host time. The grid is a tuple, or,
as in Triton, a function of a dict of the kernel's arguments and meta-parameters (after the
autotune config and the heuristics), called for each launch (each timed config included).
"""

import inspect
import types

from . import _native


def set_backend(name):
    """Runs every later launch on ``name`` (auto, nvptx, spirv or interp), whatever
    ``TRIDENT_BACKEND`` says; ``None`` goes back to the variable."""
    _native.set_backend(name)


def get_backend():
    """The backend of the next launch: ``set_backend``'s, else ``TRIDENT_BACKEND``, else auto
    (nvptx on a CUDA GPU, else spirv on a Vulkan adapter, else interp)."""
    return _native.current_backend()


class JITFunction(_native.JitBase):
    """A ``@triton.jit`` kernel. Launch it with ``kernel[grid](*args, **meta)``; calling it
    directly is an error outside a kernel, as in Triton.

    ``kernel[grid]`` is the native base class's (``_native.JitBase``): it makes the native kernel
    on the first launch (``_load``), and gives a loop launching with one grid object (a tuple, a
    function) the same launcher again, without running Python code."""

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

    def _load(self):
        """The native kernel, made on the first launch (it reads the kernel's file)."""
        self._native = _native.Kernel(self.path, self.fn.__name__)
        return self._native

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            f"{self.__name__} is a @triton.jit kernel: launch it with {self.__name__}[grid](...), or call it "
            "from another kernel")

    def __repr__(self):
        return f"JITFunction({self.__module__}:{self.__qualname__})"

    def run(self, *args, grid, warmup=False, **kwargs):
        """Launches the kernel over ``grid`` (Triton's ``JITFunction.run``); with ``warmup=True``
        compiles it for these arguments instead, as ``warmup`` does."""
        if warmup:
            native = self._native or self._load()
            return CompiledKernel(self, native.warmup(grid, args, kwargs))
        self[grid](*args, **kwargs)

    def warmup(self, *args, grid, **kwargs):
        """Compiles and loads the kernel for these arguments (tensors and scalars as a launch takes
        them, ``num_warps``/``num_stages`` among the keywords) on the current backend, without
        launching it, and returns the ``CompiledKernel`` (Triton's ``JITFunction.warmup``). An
        autotuned kernel is tuned first, on copies of the arguments."""
        return self.run(*args, grid=grid, warmup=True, **kwargs)


class CompiledKernel:
    """A compiled specialization, as Triton's ``warmup`` returns it: ``n_regs``, ``n_spills`` (local
    memory words per thread) and ``n_max_threads`` as the CUDA driver reports them (``None`` off
    nvptx), ``metadata`` (``name``, ``backend``, ``num_warps``, ``num_stages``, ``shared``: bytes of
    shared or workgroup memory), ``asm`` (``ttir``, and ``ptx`` or ``spirv``), and
    ``kernel[grid](*args)``, which launches it with its warps and stages (every parameter given,
    constexprs too, as Triton's compiled kernels take them)."""

    def __init__(self, function, info):
        self.function = function
        self.asm = info.pop("asm")
        self.n_regs = info.pop("n_regs")
        self.n_spills = info.pop("n_spills")
        self.n_max_threads = info.pop("n_max_threads")
        self.metadata = types.SimpleNamespace(**info)
        self.name = self.metadata.name

    def _init_handles(self):
        """Loaded already (``warmup`` loads it): nothing to do."""

    def __getitem__(self, grid):
        launch = self.function[grid]
        # The launch options, except those the kernel takes as parameters (they bind as arguments).
        options = {name: getattr(self.metadata, name) for name in ("num_warps", "num_stages")
                   if name not in self.function.arg_names}

        def runner(*args, **kwargs):
            return launch(*args, **{**options, **kwargs})

        return runner

    def __repr__(self):
        return f"CompiledKernel({self.name} on {self.metadata.backend})"


def jit(fn=None, *, do_not_specialize=None, debug=None, noinline=None, **unused):
    """``@triton.jit`` and ``@triton.jit(...)``."""

    def decorator(function):
        return JITFunction(function, do_not_specialize=do_not_specialize, debug=debug, noinline=noinline)

    return decorator if fn is None else decorator(fn)
