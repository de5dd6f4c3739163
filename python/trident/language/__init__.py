"""``triton.language`` (``tl``) as a Python program sees it outside its kernels.

Kernel bodies are compiled by trident from their source and never run as Python, so ``tl.load``
and the rest need no Python definition. What a program does touch at import and launch time is
here: ``tl.constexpr`` (annotations, ``X = tl.constexpr(32)`` at module level), the dtypes
(``tl.float16`` passed as a meta-parameter) and ``tl.cdiv``. Any other ``tl`` name is a stub
that raises if Python calls it outside a kernel, so that module-level references (``tl.math``,
``libdevice`` imports) resolve.
"""

import operator

from .._stubs import stub_getattr


class constexpr:
    """``tl.constexpr``: the annotation of compile-time parameters, and a wrapper of a value."""

    def __init__(self, value=None):
        self.value = value.value if isinstance(value, constexpr) else value

    @property
    def __trident_constexpr__(self):
        return self.value

    def __repr__(self):
        return f"constexpr[{self.value!r}]"

    def __index__(self):
        return operator.index(self.value)

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __bool__(self):
        return bool(self.value)

    def __eq__(self, other):
        return self.value == getattr(other, "value", other)

    def __hash__(self):
        return hash(self.value)


class dtype:
    """A Triton element type (``tl.float16``); ``name`` is Triton's (``fp16``, ``int32``)."""

    def __init__(self, name):
        self.name = name

    @property
    def __trident_dtype__(self):
        return self.name

    def __eq__(self, other):
        return isinstance(other, dtype) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"triton.language.{_PYTHON_NAMES.get(self.name, self.name)}"

    def __str__(self):
        return self.name

    @property
    def primitive_bitwidth(self):
        return _BITS[self.name]

    def is_floating(self):
        return self.name.startswith(("fp", "bf"))

    def is_int_signed(self):
        return self.name.startswith("int")

    def is_int_unsigned(self):
        return self.name.startswith("uint")


# The attribute each dtype goes by in `tl`, with Triton's name and width.
_DTYPES = {
    "int1": ("int1", 1), "int8": ("int8", 8), "int16": ("int16", 16), "int32": ("int32", 32),
    "int64": ("int64", 64), "uint8": ("uint8", 8), "uint16": ("uint16", 16), "uint32": ("uint32", 32),
    "uint64": ("uint64", 64), "float8e4nv": ("fp8e4nv", 8), "float8e5": ("fp8e5", 8),
    "float16": ("fp16", 16), "bfloat16": ("bf16", 16), "float32": ("fp32", 32), "float64": ("fp64", 64),
}
_PYTHON_NAMES = {name: attribute for attribute, (name, _) in _DTYPES.items()}
_BITS = {name: bits for name, bits in _DTYPES.values()}
for _attribute, (_name, _) in _DTYPES.items():
    globals()[_attribute] = dtype(_name)
del _attribute, _name


def cdiv(x, div):
    """Ceiling division, ``(x + div - 1) // div``."""
    return (x + div - 1) // div


__getattr__ = stub_getattr("triton.language")
