# compile: --kernel copy_kernel --arg x_ptr=*fp32 --arg y_ptr=*fp32 --arg n=100
import triton
import triton.language as tl


def prune(configs, named_args, **kwargs):
    return configs


@triton.autotune(
    configs=[triton.Config({'BLOCK': 64}), triton.Config({'BLOCK': 128})],
    key=['n'],
    prune_configs_by={'early_config_prune': prune},
)
@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)
