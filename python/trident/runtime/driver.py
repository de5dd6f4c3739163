"""``triton.runtime.driver``: the device that launches run on, as Triton's tutorials ask for it
(``DEVICE = triton.runtime.driver.active.get_active_torch_device()`` at their top).

``driver.active`` answers for the backend the next launch runs on (``trident.get_backend()``,
``auto`` resolved as a launch resolves it: nvptx where there is a CUDA GPU, else spirv where there
is a Vulkan adapter, else interp):

- ``get_active_torch_device()``: torch's current CUDA device where torch has one (trident reads
  CUDA tensors in place on nvptx and copies them on the other backends), else the CPU.
- ``get_current_target()``: ``GPUTarget(backend, arch, warp_size)``; nvptx is Triton's ``"cuda"``
  with the GPU's compute capability (``90`` for an H100); spirv and interp are ``"spirv"`` and
  ``"interp"`` with arch 0. Every backend runs ``num_warps`` warps of 32 threads.
- ``utils.get_device_properties(index)``: a CUDA GPU's properties under Triton's names
  (``multiprocessor_count``, ``max_shared_mem``, ``max_num_regs``, ``warpSize``, clocks and bus
  width), read from the CUDA driver. Other backends have no such figures: a ``RuntimeError`` says so.
- ``get_current_device()``, ``set_current_device(index)``, ``get_current_stream(index)`` and
  ``get_device_interface()`` through torch's CUDA module.
"""

import sys
from collections import namedtuple

from .. import _native

GPUTarget = namedtuple("GPUTarget", ["backend", "arch", "warp_size"])


def _backend():
    """The backend the next launch runs on, ``auto`` resolved."""
    chosen = _native.current_backend()
    if chosen != "auto":
        return chosen
    available = {name for name, ok, _ in _native.backends() if ok}
    return next(name for name in ("nvptx", "spirv", "interp") if name in available)


def _cuda_torch():
    """torch, where it is installed and sees a CUDA GPU; else None."""
    torch = sys.modules.get("torch")
    if torch is None:
        try:
            import torch
        except ImportError:
            return None
    return torch if torch.cuda.is_available() else None


def _cuda_device(index):
    devices = _native.cuda_devices()
    if not devices:
        raise RuntimeError("get_device_properties: there is no CUDA GPU here (see trident.backends())")
    if index is None:
        torch = _cuda_torch()
        index = torch.cuda.current_device() if torch is not None else 0
    if hasattr(index, "index"):  # a torch.device
        index = index.index or 0
    for device in devices:
        if device["index"] == index:
            return device
    raise RuntimeError(f"get_device_properties: there is no CUDA GPU {index} (there are {len(devices)})")


class _Utils:
    """``driver.active.utils``."""

    def get_device_properties(self, device=None):
        backend = _backend()
        if backend != "nvptx":
            raise RuntimeError(
                f"get_device_properties: trident runs on {backend} here, which has no CUDA device "
                "properties (SM count, registers, shared memory); they exist on nvptx only")
        properties = dict(_cuda_device(device))
        for extra in ("index", "name", "compute_capability"):
            properties.pop(extra)
        return properties


class ActiveDriver:
    """``triton.runtime.driver.active``."""

    def __init__(self):
        self.utils = _Utils()

    def get_current_target(self):
        backend = _backend()
        if backend == "nvptx":
            major, minor = _cuda_device(None)["compute_capability"]
            return GPUTarget("cuda", major * 10 + minor, 32)
        return GPUTarget(backend, 0, 32)

    def get_active_torch_device(self):
        import torch

        if torch.cuda.is_available():
            return torch.device("cuda", torch.cuda.current_device())
        return torch.device("cpu")

    def get_device_interface(self):
        torch = _cuda_torch()
        if torch is None:
            raise RuntimeError("get_device_interface: torch with a CUDA GPU is needed")
        return torch.cuda

    def get_current_device(self):
        torch = _cuda_torch()
        return torch.cuda.current_device() if torch is not None else 0

    def set_current_device(self, device):
        torch = _cuda_torch()
        if torch is not None:
            torch.cuda.set_device(device)

    def get_current_stream(self, device=None):
        torch = _cuda_torch()
        if torch is None:
            return 0
        if device is None:
            device = torch.cuda.current_device()
        return torch.cuda.current_stream(device).cuda_stream

    def is_active(self):
        return True


class _Driver:
    """``triton.runtime.driver``: ``active`` is the one driver trident has."""

    def __init__(self):
        self.active = ActiveDriver()
        self.default = self.active

    def set_active(self, driver):
        raise RuntimeError("trident has one driver; trident.set_backend(name) picks the backend")

    def reset_active(self):
        pass


driver = _Driver()
