"""``triton.Config``, ``triton.autotune`` and ``triton.heuristics``.

trident reads these decorators from the kernel's source, as the command line does (the frontend
evaluates the configs, the key and the heuristics' lambdas), and picks a config per launch: on
nvptx and spirv it times every config once and keeps the choice in its on-disk cache; on interp it
takes config 0. So at run time the decorators only have to stay out of the way: each returns the
kernel it decorates, with what it was given kept for inspection.
"""


class Config:
    """One autotune configuration: meta-parameters, ``num_warps``, ``num_stages`` (Triton's)."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None):
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook

    def all_kwargs(self):
        options = {"num_warps": self.num_warps, "num_stages": self.num_stages, "num_ctas": self.num_ctas}
        if self.maxnreg is not None:
            options["maxnreg"] = self.maxnreg
        return {**self.kwargs, **options}

    def __repr__(self):
        parts = [f"{name}: {value}" for name, value in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}", f"num_stages: {self.num_stages}"]
        return ", ".join(parts)


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
             post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=False):
    """``@triton.autotune``: the kernel is tuned by trident from its source (see the module doc)."""

    def decorator(kernel):
        kernel.configs = list(configs)
        kernel.key = list(key)
        return kernel

    return decorator


def heuristics(values):
    """``@triton.heuristics``: the lambdas are evaluated by trident from the source."""

    def decorator(kernel):
        kernel.heuristics = dict(values)
        return kernel

    return decorator
