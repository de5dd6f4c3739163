"""Repeat launches: the kernel object keeps its loaded specializations in memory, so a launch of
a specialization seen before runs without the frontend, a compilation, the kernel's file or the
on-disk cache; a new specialization (dtype, Triton's ==1 and %16 classes, constexprs, warps,
backend) loads its own."""

import importlib.util
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import trident
import trident.dropin

from conftest import SCRIPTS

trident.dropin.install()
sys.path.insert(0, str(SCRIPTS))
import api_kernels as k  # noqa: E402


def loaded(kernel):
    """How many specializations `kernel` has loaded."""
    return kernel._native.loaded() if kernel._native is not None else 0


def fresh(kernel):
    """Drops what `kernel` has loaded (its native object, and with it its table)."""
    kernel._native = None


def test_a_repeat_launch_reuses_the_loaded_kernel(backend):
    x = np.arange(100, dtype=np.float32)
    out = np.zeros_like(x)
    fresh(k.scale_kernel)
    for factor in (1.0, 2.0, 3.0):
        k.scale_kernel[(1, )](x, out, x.size, factor, NEGATE=False, BLOCK=128)
        assert np.array_equal(out, factor * x)
    assert loaded(k.scale_kernel) == 1


def test_each_specialization_is_loaded_once(backend):
    x = np.arange(64, dtype=np.float32)
    out = np.zeros_like(x)
    fresh(k.select_kernel)
    k.select_kernel[(1, )](x, out, 64, True, BLOCK=64)
    assert loaded(k.select_kernel) == 1
    k.select_kernel[(1, )](x, out, 48, True, BLOCK=64)  # 48 % 16 == 0, like 64: the same kernel
    assert loaded(k.select_kernel) == 1
    k.select_kernel[(1, )](x, out, 50, True, BLOCK=64)  # not divisible by 16
    assert loaded(k.select_kernel) == 2
    k.select_kernel[(1, )](x, out, 50, False, BLOCK=64)  # False is i1 0, True is the constant 1
    assert loaded(k.select_kernel) == 3
    k.select_kernel[(1, )](x, out, 50, False, BLOCK=64, num_warps=2)
    assert loaded(k.select_kernel) == 4
    k.select_kernel[(1, )](x.astype(np.int32), out.astype(np.int32), 50, False, BLOCK=64)
    assert loaded(k.select_kernel) == 5
    k.select_kernel[(1, )](x, out, 50, False, BLOCK=32)
    assert loaded(k.select_kernel) == 6
    k.select_kernel[(1, )](x, out, 50, False, BLOCK=32)
    assert loaded(k.select_kernel) == 6


def test_an_integer_equal_to_one_is_its_own_specialization(backend):
    """Triton compiles an integer argument equal to 1 as the constant 1: a kernel loaded for 1
    must not run for 2, and the other way round."""
    x = np.arange(1, 65, dtype=np.int32)
    for n in (1, 2, 1, 17, 2):
        out = np.zeros_like(x)
        k.select_kernel[(1, )](x, out, n, True, BLOCK=64)
        expected = np.where(np.arange(64) < n, x, 0)
        assert np.array_equal(out, expected), n


def test_a_repeat_launch_reads_no_file(backend, tmp_path, monkeypatch):
    """After the first launch the kernel's file and the cache directory may go: the loaded kernel
    is in memory."""
    source = tmp_path / "moved_kernels.py"
    shutil.copy(SCRIPTS / "api_kernels.py", source)
    spec = importlib.util.spec_from_file_location("moved_kernels", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = np.arange(32, dtype=np.float32)
    out = np.zeros_like(x)
    module.scale_kernel[(1, )](x, out, 32, 2.0, NEGATE=True, BLOCK=32)
    source.unlink()
    shutil.rmtree(tmp_path / "cache", ignore_errors=True)
    monkeypatch.setenv("TRIDENT_CACHE_DIR", str(tmp_path / "no-such-dir" / "cache"))
    out[:] = 0
    module.scale_kernel[(1, )](x, out, 32, 3.0, NEGATE=True, BLOCK=32)
    assert np.array_equal(out, -3 * x)


def test_kernels_with_heuristics_key_on_values(backend):
    """even_kernel's heuristic reads n (EVEN = n % BLOCK == 0): 192 and 208 are both multiples of
    16, one of 64 and one not, so they must not share a loaded kernel."""
    fresh(k.even_kernel)
    for n, added in ((192, 1), (208, 2), (192, 1)):
        x = np.zeros(n, dtype=np.int32)
        k.even_kernel[(trident.cdiv(n, 64), )](x, n, BLOCK=64)
        assert np.all(x == added), n
    assert loaded(k.even_kernel) == 2


def test_launch_overhead_on_interp():
    """The host time of a launch over an empty grid (no program runs): binding, typing, the
    lookup, reading and writing back three small arrays. Measured, printed, and bounded loosely
    (the first step of the package took about 400 us per launch; the bound catches a return to
    a compilation or a file read per launch, not noise on a busy machine)."""
    trident.set_backend("interp")
    try:
        x = np.ones(16, dtype=np.float32)
        out = np.zeros_like(x)
        launch = k.scale_kernel[(0, )]
        launch(x, out, 16, 1.0, NEGATE=False, BLOCK=16)
        count = 2000
        started = time.perf_counter()
        for _ in range(count):
            launch(x, out, 16, 1.0, NEGATE=False, BLOCK=16)
        us = (time.perf_counter() - started) / count * 1e6
    finally:
        trident.set_backend(None)
    print(f"launch overhead on interp: {us:.2f} us/launch", file=sys.__stderr__)
    assert us < 100, f"{us:.1f} us per launch"


def test_the_benchmark_script_runs_on_interp():
    script = Path(__file__).parents[1] / "benchmarks" / "launch_overhead.py"
    done = subprocess.run([sys.executable, str(script), "--backend", "interp", "--launches", "200",
                           "--rounds", "2"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("BENCH impl=trident backend=interp") == 2, done.stdout
    assert "BENCH impl=trident rounds=2 median_us=" in done.stdout, done.stdout


def test_the_drivers_launch_floor_is_measured_on_a_cuda_gpu_only():
    # The benchmark prints it beside trident's launches on nvptx: an empty kernel's launches
    # through the runtime, host time per launch with cuLaunchKernel, then replayed from a graph,
    # then the replays with the final synchronization.
    floor = trident._native.launch_floor(200)
    if not any(name == "nvptx" and available for name, available, _ in trident.backends()):
        assert floor is None
        return
    direct, replayed, synchronized = floor
    assert 0 < direct < 1000
    assert 0 < replayed <= synchronized < 1000
