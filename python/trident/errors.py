"""The exceptions a launch raises.

Their text is what ``trident run`` prints for the same failure: a kernel error carries the file,
the line, the Python line of the kernel and a caret under the expression at fault.
"""


class TridentError(Exception):
    """A launch failed: the backend cannot run here (no GPU, no Vulkan adapter), or the device
    failed. The base of trident's other exceptions."""


class KernelError(TridentError):
    """The kernel is wrong, found at compile time (a type error, an unsupported construct) or at
    run time (an out-of-bounds access on interp, a failed ``tl.device_assert``)."""


# Triton's name for the compile-time half.
CompilationError = KernelError


class ArgumentError(TridentError, TypeError):
    """The launch is wrong: a missing argument, an argument of a type a kernel cannot take, a bad
    grid, a meta-parameter that ``@triton.autotune`` sets given as well."""


class InternalError(TridentError):
    """trident itself is wrong (a bug, not the kernel's); the text has a command that reproduces
    it."""


class CheckError(TridentError):
    """``TRIDENT_CHECK``: a launch's result differs from the reference interpreter's beyond the
    dtype's tolerance. The text names the kernel, the Python line of the launch, the backend, the
    argument, the first element that differs and both values."""
