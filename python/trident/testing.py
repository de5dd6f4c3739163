"""``triton.testing``: ``do_bench``, ``perf_report`` and ``Benchmark``, as the tutorials use them.

``do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean")`` times
``fn`` as Triton's does: one call, an estimate from five calls, then ``warmup`` ms of warm-up calls
and ``rep`` ms of timed calls, and returns milliseconds (the mean, or ``min``, ``max``,
``median``, ``all``; or the ``quantiles``). Where torch has a CUDA GPU, calls are timed with CUDA
events on torch's current stream, each after a 256 MB write that evicts the L2 cache (as Triton
does); elsewhere with the host's clock, which is right for launches that finish before they
return (interp, spirv, and nvptx with host arrays: trident copies results back).

``@perf_report(Benchmark(...))`` wraps a function of the x values and the line value into an
object whose ``run(show_plots=False, print_data=False, save_path="", return_df=False)`` calls it
over the grid of values and gathers the results in a table: a pandas ``DataFrame`` when pandas is
installed, else a :class:`Table`. The table is printed when ``print_data`` asks, and also when a
plot was asked for and matplotlib is missing (so the numbers are never lost); the plot is drawn,
shown and saved (``save_path/PLOT_NAME.png``, with the table as ``.csv``) through matplotlib when
it is installed.
"""

import math
import os
import statistics
import sys
import time


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Milliseconds per call of ``fn`` (Triton's ``triton.testing.do_bench``)."""
    if return_mode not in ("min", "max", "mean", "median", "all"):
        raise ValueError(f"return_mode={return_mode!r}: min, max, mean, median or all")
    timer = _CudaTimer() if _cuda_torch() is not None else _HostTimer()
    fn()
    timer.synchronize()
    estimate = timer.time(fn, 5) / 5
    warmup_runs = max(1, int(warmup / max(estimate, 1e-6)))
    timed_runs = max(1, int(rep / max(estimate, 1e-6)))
    for _ in range(warmup_runs):
        fn()
    times = []
    for _ in range(timed_runs):
        for tensor in grad_to_none or ():
            tensor.grad = None
        times.append(timer.time(fn, 1))
    timer.synchronize()
    return _summarize(times, quantiles, return_mode)


def _summarize(times, quantiles, return_mode):
    if quantiles is not None:
        values = [_quantile(times, q) for q in quantiles]
        return values[0] if len(values) == 1 else values
    if return_mode == "all":
        return list(times)
    return {"min": min, "max": max, "mean": statistics.fmean, "median": statistics.median}[return_mode](times)


def _quantile(values, q):
    """The ``q`` quantile with linear interpolation (``torch.quantile``'s default)."""
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _cuda_torch():
    """torch, when the program has imported it and it has a CUDA GPU."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    try:
        return torch if torch.cuda.is_available() else None
    except Exception:
        return None


class _HostTimer:
    """The host's clock: launches that return when they are done."""

    def synchronize(self):
        pass

    def time(self, fn, calls):
        started = time.perf_counter()
        for _ in range(calls):
            fn()
        return (time.perf_counter() - started) * 1e3


class _CudaTimer:
    """CUDA events on torch's current stream, each call after an L2-evicting write."""

    def __init__(self):
        self.torch = _cuda_torch()
        self.cache = self.torch.empty(256 * 1024 * 1024, dtype=self.torch.int8, device="cuda")

    def synchronize(self):
        self.torch.cuda.synchronize()

    def time(self, fn, calls):
        start = self.torch.cuda.Event(enable_timing=True)
        end = self.torch.cuda.Event(enable_timing=True)
        total = 0.0
        for _ in range(calls):
            self.cache.zero_()
            start.record()
            fn()
            end.record()
            end.synchronize()
            total += start.elapsed_time(end)
        return total


class Benchmark:
    """One benchmark of a ``perf_report``: the x values, the lines, the plot (Triton's)."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args, xlabel="", ylabel="",
                 x_log=False, y_log=False, styles=None, color=None):
        self.x_names = list(x_names)
        self.x_vals = list(x_vals)
        self.line_arg = line_arg
        self.line_vals = list(line_vals)
        self.line_names = list(line_names)
        self.plot_name = plot_name
        self.args = dict(args)
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.x_log = x_log
        self.y_log = y_log
        self.styles = styles


class Table:
    """The results of a benchmark when pandas is missing: named columns of equal length."""

    def __init__(self, columns):
        self.columns = list(columns)
        self.rows = []

    def append(self, row):
        self.rows.append(list(row))

    def __getitem__(self, column):
        if isinstance(column, list):
            table = Table(column)
            for row in self.rows:
                table.append([row[self.columns.index(name)] for name in column])
            return table
        index = self.columns.index(column)
        return [row[index] for row in self.rows]

    def __len__(self):
        return len(self.rows)

    def to_string(self):
        cells = [[str(c) for c in self.columns]] + [[_cell(value) for value in row] for row in self.rows]
        widths = [max(len(row[i]) for row in cells) for i in range(len(self.columns))]
        return "\n".join("  ".join(cell.rjust(width) for cell, width in zip(row, widths)) for row in cells)

    def to_csv(self, path, float_format=None, index=False):
        with open(path, "w") as file:
            file.write(",".join(self.columns) + "\n")
            for row in self.rows:
                file.write(",".join(_cell(value, float_format) for value in row) + "\n")

    def __str__(self):
        return self.to_string()


def _cell(value, float_format=None):
    if value is None:
        return ""
    if isinstance(value, float):
        return (float_format or "%.6g") % value
    return str(value)


def _table(columns):
    try:
        import pandas
    except ImportError:
        return Table(columns)
    return pandas.DataFrame(columns=columns)


def _append(table, row):
    if isinstance(table, Table):
        table.append(row)
    else:
        table.loc[len(table)] = row


def _matplotlib():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


class Mark:
    """A function decorated with ``perf_report``: ``run`` measures it over its benchmarks."""

    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _run(self, bench, save_path, show_plots, print_data, diff_col=False, save_precision=6, **kwargs):
        means = list(bench.line_names)
        mins = [f"{name}-min" for name in means]
        maxs = [f"{name}-max" for name in means]
        x_names = list(bench.x_names)
        table = _table(x_names + means + mins + maxs)
        for x in bench.x_vals:
            if not isinstance(x, (list, tuple)):
                x = [x for _ in x_names]
            if len(x) != len(x_names):
                raise ValueError(f"expected {len(x_names)} values, got {x}")
            x_args = dict(zip(x_names, x))
            row_mean, row_min, row_max = [], [], []
            for y in bench.line_vals:
                ret = self.fn(**x_args, **{bench.line_arg: y}, **bench.args, **kwargs)
                try:
                    y_mean, y_min, y_max = ret
                except TypeError:
                    y_mean, y_min, y_max = ret, None, None
                row_mean.append(y_mean)
                row_min.append(y_min)
                row_max.append(y_max)
            _append(table, list(x) + row_mean + row_min + row_max)
        plotted = False
        if bench.plot_name and (show_plots or save_path):
            plt = _matplotlib()
            if plt is not None:
                self._plot(plt, bench, table, x_names, save_path, show_plots)
                plotted = True
        table = table[x_names + means]
        if diff_col and len(means) == 2:
            _add_difference(table, means)
        if print_data or (bench.plot_name and (show_plots or save_path) and not plotted):
            if not plotted and not print_data:
                print(f"(matplotlib is not installed: {bench.plot_name} as a table)")
            print(f"{bench.plot_name}:")
            print(table.to_string())
        if save_path:
            table.to_csv(os.path.join(save_path, f"{bench.plot_name}.csv"), float_format=f"%.{save_precision}f",
                         index=False)
        return table

    @staticmethod
    def _plot(plt, bench, table, x_names, save_path, show_plots):
        plt.figure()
        axes = plt.subplot()
        first_x = x_names[0]
        xs = list(table[first_x])
        for index, name in enumerate(bench.line_names):
            color = bench.styles[index][0] if bench.styles else None
            style = bench.styles[index][1] if bench.styles else None
            axes.plot(xs, list(table[name]), label=name, color=color, ls=style)
            low, high = list(table[f"{name}-min"]), list(table[f"{name}-max"])
            if all(v is not None for v in low + high) and not any(_is_nan(v) for v in low + high):
                axes.fill_between(xs, [float(v) for v in low], [float(v) for v in high], alpha=0.15, color=color)
        axes.legend()
        axes.set_xlabel(bench.xlabel or first_x)
        axes.set_ylabel(bench.ylabel)
        axes.set_xscale("log" if bench.x_log else "linear")
        axes.set_yscale("log" if bench.y_log else "linear")
        if show_plots:
            plt.show()
        if save_path:
            plt.savefig(os.path.join(save_path, f"{bench.plot_name}.png"))

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        single = isinstance(self.benchmarks, Benchmark)
        benchmarks = [self.benchmarks] if single else self.benchmarks
        tables = []
        html = None
        if save_path:
            os.makedirs(save_path, exist_ok=True)
            html = open(os.path.join(save_path, "results.html"), "w")
            html.write("<html><body>\n")
        try:
            for bench in benchmarks:
                tables.append(self._run(bench, save_path, show_plots, print_data, **kwargs))
                if html is not None:
                    html.write(f'<image src="{bench.plot_name}.png"/>\n')
        finally:
            if html is not None:
                html.write("</body></html>\n")
                html.close()
        if return_df:
            return tables[0] if single else tables
        return None


def _is_nan(value):
    return isinstance(value, float) and math.isnan(value)


def _add_difference(table, means):
    first, second = means
    name = f"Diff {first} - {second}"
    if isinstance(table, Table):
        table.columns.append(name)
        for row in table.rows:
            row.append(row[-2] - row[-1])
    else:
        table[name] = table[first] - table[second]


def perf_report(benchmarks):
    """``@triton.testing.perf_report(Benchmark(...))``."""

    def wrapper(fn):
        return Mark(fn, benchmarks)

    return wrapper
