"""What the Python tests share: the backends to run on, and the SKIP convention of trident's
tests (README, "Tests").

A test that needs a device this machine lacks prints ``SKIP <test>: <reason>`` where the terminal
shows it (past pytest's capture) and is skipped, unless ``TRIDENT_REQUIRE_DEVICES``
(comma-separated) names the device: then it fails. CI sets ``TRIDENT_REQUIRE_DEVICES=interp,spirv``;
a GPU machine adds ``nvptx`` (which also requires torch with CUDA for the torch tests), and
``torch`` requires torch itself.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import trident

SCRIPTS = Path(__file__).parent / "scripts"


def required(device):
    names = os.environ.get("TRIDENT_REQUIRE_DEVICES", "")
    return device in [name.strip() for name in names.split(",")]


def require_backend(backend, test):
    """Skips (saying SKIP) or fails the calling test when ``backend`` cannot run here."""
    for name, available, detail in trident.backends():
        if name == backend and not available:
            if required(backend):
                pytest.fail(f"{test}: TRIDENT_REQUIRE_DEVICES names {backend}, but: {detail}")
            print(f"SKIP {test}: {detail} (set TRIDENT_REQUIRE_DEVICES={backend} to require it)",
                  file=sys.__stderr__)
            pytest.skip(detail)


def require_torch(test, cuda=False):
    """torch (with a CUDA GPU when ``cuda``), or a SKIP of the calling test; a failure instead when
    ``TRIDENT_REQUIRE_DEVICES`` names torch (or nvptx, for ``cuda``: the GPU machine's run has
    torch with CUDA)."""
    try:
        import torch
    except ImportError as error:
        reason = f"torch is not installed ({error})"
    else:
        if not cuda or torch.cuda.is_available():
            return torch
        reason = f"torch {torch.__version__} has no CUDA device"
    if required("torch") or (cuda and required("nvptx")):
        pytest.fail(f"{test}: TRIDENT_REQUIRE_DEVICES asks for torch{' with CUDA' if cuda else ''}, but {reason}")
    print(f"SKIP {test}: {reason}", file=sys.__stderr__)
    pytest.skip(reason)


@pytest.fixture(params=["interp", "spirv"])
def backend(request):
    """Each backend CI has; a test that takes it runs once per backend, with it as the backend of
    every launch the test makes in this process (scripts it runs take it as ``--backend``)."""
    require_backend(request.param, request.node.name)
    trident.set_backend(request.param)
    yield request.param
    trident.set_backend(None)


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """An empty trident cache per test, so that no test sees another's compiled kernels or tuning
    choices."""
    monkeypatch.setenv("TRIDENT_CACHE_DIR", str(tmp_path / "cache"))


def run_script(script, backend, *args):
    """``python -m trident --backend BACKEND scripts/SCRIPT ARGS``: the completed process."""
    command = [sys.executable, "-m", "trident", "--backend", backend, str(SCRIPTS / script), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)
