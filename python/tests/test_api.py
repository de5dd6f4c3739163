"""The launch API in-process: argument types, grids, meta-parameters, errors."""

import sys
import weakref

import numpy as np
import pytest
import trident
import trident.dropin

from conftest import SCRIPTS

trident.dropin.install()
sys.path.insert(0, str(SCRIPTS))
import api_kernels as k  # noqa: E402  (needs `triton`, which the line above provides)


def test_scalars_constexprs_and_grid_forms(backend):
    x = np.arange(1000, dtype=np.float32)
    for grid in [(8, ), 8, [8, 1, 1], lambda meta: (trident.cdiv(meta['n'], meta['BLOCK']), )]:
        out = np.zeros_like(x)
        k.scale_kernel[grid](x, out, x.size, 0.5, NEGATE=True, BLOCK=128)
        assert np.array_equal(out, -0.5 * x), grid


def test_one_grid_object_keeps_its_launcher_and_is_read_at_each_launch(backend):
    x = np.arange(1000, dtype=np.float32)
    grid = [2]
    assert k.scale_kernel[grid] is k.scale_kernel[grid]
    assert k.scale_kernel[(2, )] is not k.scale_kernel[[2]]
    out = np.zeros_like(x)
    k.scale_kernel[grid](x, out, x.size, 1.0, NEGATE=False, BLOCK=128)
    assert np.array_equal(out[:256], x[:256]) and not out[256:].any()
    grid[0] = 8  # the same list, now eight programs: the launch reads it again
    k.scale_kernel[grid](x, out, x.size, 1.0, NEGATE=False, BLOCK=128)
    assert np.array_equal(out, x)


def test_a_grid_of_ints_is_read_once_and_a_refused_one_at_each_launch(backend):
    x = np.arange(1000, dtype=np.float32)
    for grid in [(8, ), 8, (np.int64(8), )]:  # the last one is read at each launch
        launch = k.scale_kernel[grid]
        for scale in (1.0, 2.0):
            out = np.zeros_like(x)
            launch(x, out, x.size, scale, NEGATE=False, BLOCK=128)
            assert np.array_equal(out, scale * x), grid
    refused = k.scale_kernel[(-1, )]
    for _ in range(2):
        with pytest.raises(trident.errors.ArgumentError, match="negative dimension"):
            refused(x, out, x.size, 1.0, NEGATE=False, BLOCK=128)


def test_a_launch_keeps_no_argument_alive(backend):
    # A first launch with a grid function holds the arguments while it compiles; they are
    # released when the launch returns (not later, through PyO3's deferred pool).
    x = np.arange(64, dtype=np.float32)
    out = np.zeros_like(x)
    alive = weakref.ref(x)
    k.scale_kernel[lambda meta: (1, )](x, out, x.size, 1.0, NEGATE=False, BLOCK=64)
    del x
    assert alive() is None
    assert np.array_equal(out, np.arange(64, dtype=np.float32))


def test_constexpr_by_position_and_wrapped(backend):
    x = np.arange(100, dtype=np.float32)
    out = np.zeros_like(x)
    k.scale_kernel[(1, )](x, out, x.size, 2.0, False, trident.language.constexpr(128))
    assert np.array_equal(out, 2 * x)


def test_bool_argument_is_i1(backend):
    x = np.arange(1, 65, dtype=np.int32)
    for flag in (True, False):
        out = np.full_like(x, -1)
        k.select_kernel[(1, )](x, out, x.size, flag, BLOCK=64)
        assert np.array_equal(out, x if flag else np.zeros_like(x))


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int8, np.int16, np.int64, np.uint8, np.uint32])
def test_array_dtypes(dtype, backend):
    x = np.arange(64).astype(dtype)
    out = np.zeros(64, dtype=np.float32)
    k.cast_kernel[(1, )](x, out, x.size, OUT_DTYPE=trident.language.float32, BLOCK=64)
    assert np.array_equal(out, x.astype(np.float32))


def test_bfloat16_through_reinterpret(backend):
    values = np.array([1.0, -2.5, 3.25, 0.0] * 16, dtype=np.float32)
    bf16_bits = (values.view(np.uint32) >> 16).astype(np.uint16)
    out = np.zeros(64, dtype=np.float32)
    k.cast_kernel[(1, )](trident.reinterpret(bf16_bits, trident.language.bfloat16), out, 64,
                         OUT_DTYPE=trident.language.float32, BLOCK=64)
    assert np.array_equal(out, values)


def test_heuristics_values_reach_the_grid(backend):
    seen = []

    def grid(meta):
        seen.append(meta['EVEN'])
        return (trident.cdiv(meta['n'], meta['BLOCK']), )

    x = np.zeros(256, dtype=np.int32)
    k.even_kernel[grid](x, 256, BLOCK=64)
    assert np.all(x == 1) and seen[-1] is True
    y = np.zeros(250, dtype=np.int32)
    k.even_kernel[grid](y, 250, BLOCK=64)
    assert np.all(y == 2) and seen[-1] is False


def test_missing_argument_is_a_type_error(backend):
    x = np.zeros(8, dtype=np.float32)
    with pytest.raises(TypeError, match="missing a required argument: 'factor'"):
        k.scale_kernel[(1, )](x, x, 8, NEGATE=False, BLOCK=8)
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'BLOK'"):
        k.scale_kernel[(1, )](x, x, 8, 1.0, NEGATE=False, BLOK=8)
    # A keyword found by identity (a literal name) and one built at run time bind alike.
    with pytest.raises(TypeError, match="multiple values for argument 'factor'"):
        k.scale_kernel[(1, )](x, x, 8, 1.0, factor=2.0, NEGATE=False, BLOCK=8)
    built = "".join(["fac", "tor"])
    with pytest.raises(TypeError, match="multiple values for argument 'factor'"):
        k.scale_kernel[(1, )](x, x, 8, 1.0, NEGATE=False, BLOCK=8, **{built: 2.0})
    k.scale_kernel[(1, )](x, x, 8, NEGATE=False, BLOCK=8, **{built: 2.0})


def test_strided_arrays_are_refused(backend):
    x = np.zeros((8, 8), dtype=np.float32)
    with pytest.raises(ValueError, match="not C-contiguous"):
        k.scale_kernel[(1, )](x.T, x, 64, 1.0, NEGATE=False, BLOCK=64)


def test_grid_function_errors_propagate(backend):
    x = np.zeros(8, dtype=np.float32)

    def grid(meta):
        raise ZeroDivisionError("from the grid")

    with pytest.raises(ZeroDivisionError, match="from the grid"):
        k.scale_kernel[grid](x, x, 8, 1.0, NEGATE=False, BLOCK=8)
    with pytest.raises(trident.ArgumentError, match="1 to 3"):
        k.scale_kernel[(1, 1, 1, 1)](x, x, 8, 1.0, NEGATE=False, BLOCK=8)


def test_out_of_bounds_on_interp_names_the_line():
    trident.set_backend("interp")
    x = np.zeros(10, dtype=np.float32)
    try:
        with pytest.raises(trident.KernelError) as raised:
            k.out_of_bounds_kernel[(1, )](x, BLOCK=16)
    finally:
        trident.set_backend(None)
    text = str(raised.value)
    assert "api_kernels.py:" in text and "tl.store(x_ptr + offsets" in text and "^" in text, text


def test_calling_a_kernel_directly_is_an_error():
    with pytest.raises(RuntimeError, match=r"launch it with scale_kernel\[grid\]"):
        k.scale_kernel(1, 2)


def test_backend_names(monkeypatch):
    trident.set_backend(None)
    monkeypatch.setenv("TRIDENT_BACKEND", "cuda")
    with pytest.raises(ValueError, match="TRIDENT_BACKEND='cuda'"):
        trident.get_backend()
    monkeypatch.setenv("TRIDENT_BACKEND", "interp")
    assert trident.get_backend() == "interp"
    assert ("interp", True, "the reference interpreter (CPU)") in trident.backends()


def test_launches_follow_set_backend_then_the_environment(monkeypatch):
    x = np.ones(8, dtype=np.float32)
    launch = k.scale_kernel[(1, )]
    # Native: a builtin function bound to the launcher (vectorcall, Python 3.10 on), or the launcher.
    native = launch if type(launch).__name__ == "Launcher" else launch.__self__
    assert type(native).__name__ == "Launcher"
    assert type(launch).__name__ == ("Launcher" if sys.version_info < (3, 10) else "builtin_function_or_method")
    monkeypatch.setenv("TRIDENT_BACKEND", "cuda")
    trident.set_backend("interp")
    try:
        launch(x, x, 8, 2.0, NEGATE=False, BLOCK=8)  # interp, whatever the environment says
        assert (x == 2.0).all()
        trident.set_backend(None)
        with pytest.raises(ValueError, match="TRIDENT_BACKEND='cuda'"):
            launch(x, x, 8, 2.0, NEGATE=False, BLOCK=8)
    finally:
        trident.set_backend(None)
    with pytest.raises(ValueError, match="unknown backend"):
        trident.set_backend("cuda")
