"""Scripts in the style of Triton's tutorials, unchanged Triton code with numpy host code, run
under ``python -m trident --backend B``: each checks its outputs against numpy and prints
``PASS <name>``."""

import pytest

from conftest import run_script

TUTORIALS = ["vector_add.py", "fused_softmax.py", "layer_norm.py", "matmul_autotune.py"]


@pytest.mark.parametrize("script", TUTORIALS)
def test_tutorial(script, backend):
    done = run_script(script, backend)
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert f"PASS {script[:-3]}" in done.stdout, done.stdout


def test_script_arguments_and_exit_code(backend):
    """The script sees its own arguments in ``sys.argv``; its exit code is the process's."""
    done = run_script("argv.py", backend, "--size", "300", "--fail")
    assert done.returncode == 3, done.stderr
    assert "argv ['--size', '300', '--fail']" in done.stdout, done.stdout


def test_kernel_error_has_the_python_line_and_a_caret(backend):
    done = run_script("kernel_error.py", backend)
    assert done.returncode == 1, done.stderr
    stderr = done.stderr
    assert "trident.errors.KernelError" in stderr, stderr
    assert "kernel_error.py:14:" in stderr, stderr
    assert "    y = tl.load(x_ptr + offsets, mask=mask) + undefined_name" in stderr, stderr
    caret_line = stderr.splitlines()[[i for i, line in enumerate(stderr.splitlines())
                                      if "+ undefined_name" in line][0] + 1]
    assert "^" in caret_line, stderr
