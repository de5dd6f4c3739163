"""``triton.testing``: do_bench (Triton's signature and statistics) and perf_report / Benchmark
(tables always; plots through matplotlib when it is installed)."""

import importlib.util
import sys
import time

import numpy as np
import pytest
import trident
import trident.testing as testing

from conftest import run_script


def sleeper(ms):
    return lambda: time.sleep(ms / 1e3)


def test_do_bench_statistics():
    mean = testing.do_bench(sleeper(2), warmup=4, rep=20)
    assert 1.5 < mean < 50, mean
    low, median, high = testing.do_bench(sleeper(1), warmup=2, rep=10, quantiles=[0.2, 0.5, 0.8])
    assert low <= median <= high
    times = testing.do_bench(sleeper(1), warmup=2, rep=10, return_mode="all")
    assert isinstance(times, list) and len(times) >= 1
    assert testing.do_bench(sleeper(1), warmup=2, rep=10, return_mode="min") <= max(times) + 5
    assert isinstance(testing.do_bench(sleeper(1), warmup=2, rep=10, quantiles=[0.5]), float)
    with pytest.raises(ValueError, match="return_mode"):
        testing.do_bench(sleeper(1), return_mode="p50")


def test_quantiles_interpolate_like_torch():
    assert testing._quantile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert testing._quantile([4.0, 1.0, 3.0, 2.0], 0.0) == 1.0
    assert testing._quantile([1.0, 2.0, 3.0, 4.0], 1.0) == 4.0


def test_do_bench_clears_gradients():
    class Leaf:
        grad = 1
    leaf = Leaf()
    testing.do_bench(lambda: None, warmup=1, rep=1, grad_to_none=[leaf])
    assert leaf.grad is None


def report(**benchmark):
    defaults = dict(x_names=["n"], x_vals=[1, 2, 3], line_arg="kind", line_vals=["a", "b"], line_names=["A", "B"],
                    plot_name="toy", args={"scale": 10})
    return testing.perf_report(testing.Benchmark(**{**defaults, **benchmark}))


def test_perf_report_tables(capsys, tmp_path):
    @report()
    def bench(n, kind, scale):
        value = n * scale + (1 if kind == "b" else 0)
        return value, value - 1, value + 1

    table = bench.run(print_data=True, return_df=True, save_path=str(tmp_path))
    out = capsys.readouterr().out
    assert "toy:" in out and "A" in out and "B" in out and "31" in out, out
    assert list(table["A"]) == [10, 20, 30] and list(table["B"]) == [11, 21, 31]
    assert (tmp_path / "toy.csv").read_text().splitlines()[0].split(",") == ["n", "A", "B"]
    assert (tmp_path / "results.html").exists()


def test_perf_report_without_matplotlib_prints_the_table(capsys):
    @report(line_vals=["a"], line_names=["A"])
    def bench(n, kind, scale):
        return float(n)

    assert bench.run(show_plots=True) is None
    out = capsys.readouterr().out
    if importlib.util.find_spec("matplotlib") is None:
        assert "matplotlib is not installed" in out and "toy:" in out, out


def test_tutorial_benchmark_script(backend):
    done = run_script("vector_add_bench.py", backend)
    assert done.returncode == 0, done.stderr
    assert "vector-add-performance:" in done.stdout and "Triton" in done.stdout, done.stdout
    assert "PASS vector_add_bench" in done.stdout


def test_do_bench_times_a_launch(backend):
    import trident.dropin
    trident.dropin.install()
    from conftest import SCRIPTS
    sys.path.insert(0, str(SCRIPTS))
    import api_kernels as k
    trident.set_backend(backend)
    try:
        x = np.arange(256, dtype=np.float32)
        out = np.zeros_like(x)
        ms = testing.do_bench(lambda: k.scale_kernel[(2, )](x, out, 256, 2.0, NEGATE=False, BLOCK=128),
                              warmup=2, rep=10)
    finally:
        trident.set_backend(None)
    assert ms > 0 and np.array_equal(out, 2 * x)
