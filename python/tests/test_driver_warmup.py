"""``triton.runtime.driver.active`` and ``kernel.warmup``, as Triton's tutorials use them."""

import sys

import numpy as np
import pytest
import trident
import trident.dropin

from conftest import SCRIPTS, require_torch, run_script

trident.dropin.install()
sys.path.insert(0, str(SCRIPTS))
import api_kernels as k  # noqa: E402
import triton  # noqa: E402  (trident, through the drop-in)


def test_the_target_names_the_backend(backend):
    target = triton.runtime.driver.active.get_current_target()
    assert (target.backend, target.arch, target.warp_size) == (backend, 0, 32)


def test_device_properties_are_cuda_ones(backend):
    with pytest.raises(RuntimeError, match=f"runs on {backend} here.*nvptx only"):
        triton.runtime.driver.active.utils.get_device_properties(0)


def test_cuda_devices_list_tritons_properties():
    devices = trident._native.cuda_devices()
    has_gpu = any(name == "nvptx" and available for name, available, _ in trident.backends())
    assert bool(devices) == has_gpu
    for device in devices:
        assert device["multiprocessor_count"] > 0 and device["warpSize"] == 32
        assert device["max_num_regs"] >= 65536 and device["max_shared_mem"] >= 48 * 1024


def test_warmup_compiles_without_launching_and_its_kernel_launches(backend):
    k.rows_kernel._native = None  # loads afresh (the other backend's run loaded it too)
    x = np.arange(40 * 50, dtype=np.float32).reshape(40, 50)
    out = np.zeros_like(x)
    compiled = k.rows_kernel.warmup(out, x, 40, 50, BLOCK=64, num_stages=2, num_warps=2, grid=(1, ))
    compiled._init_handles()
    assert not out.any(), "warmup ran the kernel"
    assert k.rows_kernel._native.loaded() == 1
    assert (compiled.metadata.name, compiled.metadata.backend) == ("rows_kernel", backend)
    assert compiled.metadata.num_warps == 2 and compiled.metadata.shared >= 0
    assert "tt.func" in compiled.asm["ttir"] and ("spirv" in compiled.asm) == (backend == "spirv")
    assert compiled.n_regs is None and compiled.n_spills is None  # CUDA figures, nvptx only
    # Every parameter positionally, constexprs (and the parameter named num_stages) included.
    compiled[(3, 1, 1)](out, x, 40, 50, 64, 2)
    assert np.array_equal(out, 2 * x)
    assert k.rows_kernel._native.loaded() == 1, "the launch compiled again"
    again = k.rows_kernel.run(out, x, 40, 50, BLOCK=64, num_stages=2, num_warps=2, grid=(1, ), warmup=True)
    assert again.metadata.num_warps == 2 and k.rows_kernel._native.loaded() == 1


def test_tritons_softmax_tutorial_on_nvptx():
    # Triton's tutorial 02 host code: the device's properties, warmup, occupancy from the
    # compiled kernel's registers and shared memory. CUDA GPUs only (the properties are CUDA's).
    require_torch("test_tritons_softmax_tutorial_on_nvptx", cuda=True)
    result = run_script("torch_softmax_tutorial.py", "nvptx")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS torch_softmax_tutorial" in result.stdout
