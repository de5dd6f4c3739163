"""``triton.runtime``: the driver (``triton.runtime.driver``), as Triton's tutorials use it."""

from .driver import driver

__all__ = ["driver"]
