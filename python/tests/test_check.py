"""TRIDENT_CHECK=1 (``python -m trident --check``): every launch also runs on interp, and a result
that differs beyond the dtype's tolerance is reported with the kernel, the Python line of the
launch, the argument and the element. No backend here computes a wrong result on purpose, so
the tests corrupt one with the test hook TRIDENT_CHECK_PERTURB=NAME[:INDEX] (the device's result
of argument NAME, element INDEX, changed after the launch) and show that the check catches it."""

import subprocess
import sys

import numpy as np
import pytest
import trident
import trident.dropin

from conftest import SCRIPTS, require_backend, require_torch

trident.dropin.install()
sys.path.insert(0, str(SCRIPTS))
import api_kernels as k  # noqa: E402


def launch_scale(x, out):
    k.scale_kernel[(1, )](x, out, x.size, 2.0, NEGATE=False, BLOCK=128)
    return sys._getframe().f_lineno - 1  # the launch's line


def test_a_correct_launch_passes(backend, monkeypatch):
    monkeypatch.setenv("TRIDENT_CHECK", "1")
    x = np.arange(100, dtype=np.float32)
    out = np.zeros_like(x)
    launch_scale(x, out)
    launch_scale(x, out)  # a repeat launch is checked too
    assert np.array_equal(out, 2 * x)


def test_a_perturbed_result_is_caught(backend, monkeypatch):
    monkeypatch.setenv("TRIDENT_CHECK", "1")
    monkeypatch.setenv("TRIDENT_CHECK_PERTURB", "out_ptr:17")
    x = np.arange(100, dtype=np.float32)
    out = np.zeros_like(x)
    with pytest.raises(trident.CheckError) as raised:
        launch_scale(x, out)
    text = str(raised.value)
    line = launch_scale.__code__.co_firstlineno + 1
    assert f"test_check.py:{line}" in text, text
    assert "scale_kernel" in text and f"on {backend} disagrees with interp" in text, text
    assert "out_ptr[17] is 69" in text and "interp gives 34" in text, text
    assert out[17] == 69.0, "the hook corrupts the program's own result, as a wrong kernel would"


def test_warn_mode_reports_and_goes_on(backend, monkeypatch, capsys):
    monkeypatch.setenv("TRIDENT_CHECK", "warn")
    monkeypatch.setenv("TRIDENT_CHECK_PERTURB", "out_ptr")
    x = np.arange(100, dtype=np.float32)
    out = np.zeros_like(x)
    launch_scale(x, out)
    assert "TRIDENT_CHECK: scale_kernel" in capsys.readouterr().err
    assert out[0] == 1.0 and np.array_equal(out[1:], 2 * x[1:])


def test_checking_is_off_by_default(backend, monkeypatch):
    monkeypatch.delenv("TRIDENT_CHECK", raising=False)
    monkeypatch.setenv("TRIDENT_CHECK_PERTURB", "out_ptr")
    x = np.arange(100, dtype=np.float32)
    out = np.zeros_like(x)
    launch_scale(x, out)
    assert np.array_equal(out, 2 * x)


def test_python_m_trident_check(backend, monkeypatch):
    """The tutorial passes under ``--check``; with its output perturbed the run fails, naming the
    script's launch line."""
    assert run_checked("vector_add.py", backend).returncode == 0
    monkeypatch.setenv("TRIDENT_CHECK_PERTURB", "output_ptr:3")
    done = run_checked("vector_add.py", backend)
    assert done.returncode == 1, done.stderr
    assert "trident.errors.CheckError" in done.stderr, done.stderr
    assert "add_kernel (launched at" in done.stderr and "vector_add.py:24)" in done.stderr, done.stderr
    assert "output_ptr[3]" in done.stderr, done.stderr


def run_checked(script, backend):
    """``python -m trident --check --backend BACKEND scripts/SCRIPT``: the completed process."""
    command = [sys.executable, "-m", "trident", "--check", "--backend", backend, str(SCRIPTS / script)]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


def test_torch_cpu_tensors_are_checked(backend, monkeypatch, request):
    torch = require_torch(request.node.name)
    monkeypatch.setenv("TRIDENT_CHECK", "1")
    monkeypatch.setenv("TRIDENT_CHECK_PERTURB", "out_ptr:2")
    x = torch.arange(100, dtype=torch.float32)
    out = torch.zeros(100)
    with pytest.raises(trident.CheckError, match=r"out_ptr\[2\]"):
        k.scale_kernel[(1, )](x, out, 100, 2.0, NEGATE=False, BLOCK=128)


def test_cuda_tensors_on_nvptx_are_checked(monkeypatch, request):
    """On the GPU machine: the in-place launch on torch's stream, checked against interp."""
    torch = require_torch(request.node.name, cuda=True)
    require_backend("nvptx", request.node.name)
    trident.set_backend("nvptx")
    try:
        monkeypatch.setenv("TRIDENT_CHECK", "1")
        x = torch.arange(1000, dtype=torch.float32, device="cuda")
        out = torch.zeros(1000, device="cuda")
        k.scale_kernel[(8, )](x, out, 1000, 2.0, NEGATE=False, BLOCK=128)
        monkeypatch.setenv("TRIDENT_CHECK_PERTURB", "out_ptr:999")
        with pytest.raises(trident.CheckError, match=r"on nvptx disagrees with interp: out_ptr\[999\]"):
            k.scale_kernel[(8, )](x, out, 1000, 2.0, NEGATE=False, BLOCK=128)
    finally:
        trident.set_backend(None)
