"""Layer normalization forward (Triton's tutorial 05) with numpy host code: fp16 rows, fp32
statistics, the mean and reciprocal standard deviation of each row stored beside the output."""

import numpy as np
import triton
import triton.language as tl


@triton.jit
def _layer_norm_fwd_fused(
    X,  # pointer to the input
    Y,  # pointer to the output
    W,  # pointer to the weights
    B,  # pointer to the biases
    Mean,  # pointer to the mean
    Rstd,  # pointer to the 1/std
    stride,  # how much to increase the pointer when moving by 1 row
    N,  # number of columns in X
    eps,  # epsilon to avoid division by zero
    BLOCK_SIZE: tl.constexpr,
):
    # Map the program id to the row of X and Y it should compute.
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    # Compute mean
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    # Compute variance
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    # Write mean / rstd
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    # Normalize and apply linear transformation
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        # Write output
        tl.store(Y + cols, y, mask=mask)


def layer_norm(x, weight, bias, eps):
    y = np.empty_like(x)
    M, N = x.shape
    mean = np.empty((M, ), dtype=np.float32)
    rstd = np.empty((M, ), dtype=np.float32)
    # Less than 64KB per feature: enqueue fused kernel
    MAX_FUSED_SIZE = 65536 // x.itemsize
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
    if N > BLOCK_SIZE:
        raise RuntimeError("This layer norm doesn't support feature dim >= 64KB.")
    # heuristics for number of warps
    num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
    _layer_norm_fwd_fused[(M, )](x, y, weight, bias, mean, rstd, x.strides[0] // x.itemsize, N, eps,
                                 BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps, num_ctas=1)
    return y, mean, rstd


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    M, N = 151, 1000
    x = (-2.3 + 0.5 * rng.standard_normal((M, N))).astype(np.float16)
    weight = rng.random(N).astype(np.float16)
    bias = rng.random(N).astype(np.float16)
    eps = 1e-5
    y, mean, rstd = layer_norm(x, weight, bias, eps)
    x32 = x.astype(np.float32)
    mean_ref = x32.mean(axis=1)
    rstd_ref = 1 / np.sqrt(x32.var(axis=1) + eps)
    y_ref = ((x32 - mean_ref[:, None]) * rstd_ref[:, None] * weight.astype(np.float32) + bias.astype(np.float32))
    assert np.allclose(mean, mean_ref, rtol=1e-4, atol=1e-4), np.abs(mean - mean_ref).max()
    assert np.allclose(rstd, rstd_ref, rtol=1e-3, atol=1e-3), np.abs(rstd - rstd_ref).max()
    assert np.allclose(y.astype(np.float32), y_ref, rtol=1e-2, atol=1e-2), np.abs(y - y_ref).max()
    print(f"layer norm ({M}, {N}) fp16: max difference {np.abs(y.astype(np.float32) - y_ref).max():.3g}")
    print("PASS layer_norm")
