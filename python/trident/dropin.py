"""trident standing in for Triton: the modules ``triton``, ``triton.language`` (and its
``math`` and ``extra`` submodules), ``triton.runtime`` (its ``driver``), ``triton.testing`` and
``triton.tools.tensor_descriptor``
become trident's, so that a script's
``import triton`` and ``import triton.language as tl`` get trident unchanged.
"""

import importlib
import sys

# trident's modules that a Triton script may import under Triton's names.
_MODULES = (
    "trident",
    "trident.language",
    "trident.language.math",
    "trident.language.extra",
    "trident.language.extra.libdevice",
    "trident.language.extra.cuda",
    "trident.language.extra.cuda.libdevice",
    "trident.runtime",
    "trident.runtime.driver",
    "trident.testing",
    "trident.tools",
    "trident.tools.tensor_descriptor",
)


def install():
    """Registers trident's modules as ``triton``'s in ``sys.modules`` (a real Triton, if
    installed, is shadowed for this process)."""
    for name in _MODULES:
        module = importlib.import_module(name)
        sys.modules["triton" + name[len("trident"):]] = module
