"""``triton.testing``: not there yet.

``do_bench``, ``perf_report`` and ``Benchmark`` (the tutorials' timing and plots) are the next step
of the Python package; until then they raise, saying so. ``trident bench`` times a kernel from the
command line.
"""


def _not_yet(name):
    def missing(*args, **kwargs):
        raise NotImplementedError(
            f"triton.testing.{name} is not in trident yet; `trident bench FILE.py --kernel NAME ...` "
            "times a kernel from the command line")

    missing.__name__ = name
    return missing


do_bench = _not_yet("do_bench")
perf_report = _not_yet("perf_report")
Benchmark = _not_yet("Benchmark")
