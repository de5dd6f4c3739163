"""Stand-ins for the parts of ``triton.language`` that exist only inside kernels.

A script may name them outside a kernel without calling them: ``from triton.language.extra import
libdevice`` at the top of a file, ``tl.math`` in a module-level alias. A stub resolves such names
(attribute after attribute), and says what is wrong if Python calls one.
"""


class KernelOnly:
    """A ``tl`` function or module that only a kernel may use."""

    def __init__(self, path):
        self._path = path

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return KernelOnly(f"{self._path}.{name}")

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            f"{self._path} can only be used inside a @triton.jit kernel (trident compiles kernels from "
            "their source; their bodies never run as Python)")

    def __repr__(self):
        return f"<{self._path}: kernel-only>"


def stub_getattr(module):
    """A module ``__getattr__`` (PEP 562) that gives a stub for every unknown public name."""

    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        return KernelOnly(f"{module}.{name}")

    return __getattr__
