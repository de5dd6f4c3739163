"""``triton.language.math``: kernel-only functions (see trident._stubs)."""

from trident._stubs import stub_getattr

__getattr__ = stub_getattr("triton.language.math")
