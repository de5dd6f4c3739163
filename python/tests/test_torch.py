"""torch tensors as kernel arguments: CPU tensors are copied in and written back like numpy
arrays; CUDA tensors on nvptx are used in place (their ``data_ptr()``) on torch's current stream;
CUDA tensors on spirv and interp are copied through the host. Tests that need torch, or torch
with a CUDA GPU, say SKIP without them (``TRIDENT_REQUIRE_DEVICES`` turns that into a failure:
conftest)."""

import sys
import time

import numpy as np
import pytest
import trident
import trident.dropin

from conftest import SCRIPTS, require_backend, require_torch, run_script

trident.dropin.install()
sys.path.insert(0, str(SCRIPTS))
import api_kernels as k  # noqa: E402

TUTORIALS = ["torch_vector_add.py", "torch_fused_softmax.py", "torch_matmul_autotune.py"]


@pytest.fixture
def nvptx(request):
    """torch with CUDA and trident's nvptx backend, made the backend of every launch."""
    torch = require_torch(request.node.name, cuda=True)
    require_backend("nvptx", request.node.name)
    trident.set_backend("nvptx")
    yield torch
    trident.set_backend(None)


@pytest.mark.parametrize("script", TUTORIALS)
def test_torch_tutorial(script, backend, request):
    """CPU tensors here; CUDA tensors copied through the host on a GPU machine."""
    require_torch(request.node.name)
    done = run_script(script, backend)
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert f"PASS {script[:-3]}" in done.stdout, done.stdout


@pytest.mark.parametrize("script", TUTORIALS)
def test_torch_tutorial_on_nvptx(script, nvptx):
    """CUDA tensors used in place on nvptx."""
    done = run_script(script, "nvptx")
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert f"PASS {script[:-3]} on cuda" in done.stdout, done.stdout


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64", "int8", "int32", "int64", "uint8"])
def test_cpu_tensor_dtypes(dtype, backend, request):
    torch = require_torch(request.node.name)
    values = torch.arange(64, dtype=torch.float32) - 8
    if dtype == "uint8":
        values = values.abs()
    x = values.to(getattr(torch, dtype))
    out = torch.zeros(64, dtype=torch.float32)
    k.cast_kernel[(1, )](x, out, 64, OUT_DTYPE=trident.language.float32, BLOCK=64)
    assert torch.equal(out, x.to(torch.float32)), out


def test_cpu_tensors_are_written_back_in_place(backend, request):
    torch = require_torch(request.node.name)
    x = torch.arange(100, dtype=torch.float32)
    out = torch.zeros(200, dtype=torch.float32)
    view = out[100:]  # a contiguous view: the kernel's result lands in `out`'s memory
    k.scale_kernel[(1, )](x, view, 100, 2.0, NEGATE=True, BLOCK=128)
    assert torch.equal(out[100:], -2 * x) and torch.equal(out[:100], torch.zeros(100))


def test_cpu_tensor_reinterpreted(backend, request):
    torch = require_torch(request.node.name)
    values = torch.tensor([1.0, -2.5, 3.25, 0.0] * 16)
    bits = values.to(torch.bfloat16).view(torch.int16)
    out = torch.zeros(64)
    k.cast_kernel[(1, )](trident.reinterpret(bits, trident.language.bfloat16), out, 64,
                         OUT_DTYPE=trident.language.float32, BLOCK=64)
    assert torch.equal(out, values)


def test_strided_cpu_tensors_keep_their_layout(backend, request):
    """A strided tensor is copied as it lies in memory, from its data_ptr() to its last element:
    the kernel reads it as a GPU kernel would (here 64 elements on from the start of x.T, which
    are x's rows)."""
    torch = require_torch(request.node.name)
    x = torch.arange(64, dtype=torch.float32).reshape(8, 8)
    out = torch.zeros(64)
    k.scale_kernel[(1, )](x.T, out, 64, 2.0, NEGATE=False, BLOCK=64)
    assert torch.equal(out, 2 * x.flatten())


def test_cuda_tensors_are_copied_on_spirv_and_interp(backend, request):
    torch = require_torch(request.node.name, cuda=True)
    x = torch.arange(100, dtype=torch.float32, device="cuda")
    out = torch.zeros(100, device="cuda")
    k.scale_kernel[(1, )](x, out, 100, 3.0, NEGATE=False, BLOCK=128)
    assert out.is_cuda and torch.equal(out, 3 * x)


def test_cuda_tensors_in_place_on_the_current_stream(nvptx):
    torch = nvptx
    x = torch.arange(1000, dtype=torch.float32, device="cuda")
    out = torch.zeros(1000, device="cuda")
    address = out.data_ptr()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        # Ordered on `stream` after the fill, which a launch on another stream would race with.
        out.fill_(-1.0)
        k.scale_kernel[(8, )](x, out, 1000, 0.5, NEGATE=False, BLOCK=128)
    stream.synchronize()
    assert out.data_ptr() == address and torch.equal(out, 0.5 * x)


def test_hot_launches_keep_their_order_and_arguments(nvptx):
    """A kernel launched again and again over one grid on one stream is replayed from a CUDA
    graph (the runtime's graphs.rs): every launch still runs after the one before it on the
    stream, with its own arguments, whether they changed or not."""
    torch = nvptx
    x = torch.arange(1000, dtype=torch.float32, device="cuda")
    outs = [torch.zeros(1000, device="cuda") for _ in range(3)]
    acc = torch.zeros(1000, device="cuda")
    for launch in range(60):
        out = outs[launch % 3]
        k.scale_kernel[(8, )](x, out, 1000, float(launch), NEGATE=launch % 2 == 1, BLOCK=128)
        # Reads the launch's output on the same stream: ordered after it.
        acc += out
    torch.cuda.synchronize()
    for index, out in enumerate(outs):
        last = max(launch for launch in range(60) if launch % 3 == index)
        sign = -1.0 if last % 2 else 1.0
        assert torch.equal(out, sign * last * x), index
    want = sum((-1.0 if launch % 2 else 1.0) * launch for launch in range(60))
    assert torch.allclose(acc, want * x), (acc[:4], want)


def test_repeat_launches_go_by_the_plan_only_while_their_arguments_keep_their_kinds(nvptx):
    """After a launch with CUDA tensors on nvptx, a launch from the same call site whose arguments
    are of the same kinds goes by the kernel's plan (python/src/plan.rs), without binding and
    keying them again; one with an argument of another kind (dtype, alignment, integer class,
    scalar type, constexpr value) goes the whole way, to its own specialization, and leaves the
    plan of its kind. Every launch computes its own arguments' result, on the current stream."""
    torch = nvptx
    x32 = torch.arange(1040, dtype=torch.float32, device="cuda")
    other = torch.cuda.Stream()
    # (x, n, factor, BLOCK, stream, planned): whether the launch goes by the plan the launch
    # before it left (None: the first, whatever an earlier test left).
    launches = [
        (x32, 1000, 2.0, 128, None, None),
        (x32, 1000, 2.0, 128, None, True),
        (x32, 1000, 3.0, 128, None, True),  # a float's value is not in the key
        (x32, 1000, 3.0, 128, other, True),  # nor is the stream: read at every launch
        (x32[1:], 1000, 2.0, 128, None, False),  # 4 bytes off a 16-byte boundary
        (x32[1:], 1000, 2.0, 128, None, True),
        (x32.half(), 1000, 2.0, 128, None, False),  # another dtype
        (x32, 992, 2.0, 128, None, False),  # back to float32, n divisible by 16
        (x32, 992, 2.0, 128, None, True),
        (x32, 1, 2.0, 128, None, False),  # n == 1
        (x32, 1000, 2, 128, None, False),  # an int factor
        (x32, 1000, 2.0, 256, None, False),  # another BLOCK
        (x32, 1000, 2.0, 256, None, True),
    ]
    native = k.scale_kernel._native
    for number, (x, n, factor, block, stream, planned) in enumerate(launches):
        with torch.cuda.stream(stream or torch.cuda.current_stream()):
            # Written on the launch's stream just before it: a launch on another stream races.
            out = torch.full((1040, ), -1.0, device="cuda")
            before = k.scale_kernel._native.planned_launches() if native else 0
            k.scale_kernel[(9, 1)](x, out, n, factor, NEGATE=False, BLOCK=block)
            native = k.scale_kernel._native
            went_by_plan = native.planned_launches() - before == 1
        torch.cuda.synchronize()
        if planned is not None:
            assert went_by_plan == planned, (number, went_by_plan)
        want = torch.full((1040, ), -1.0, device="cuda")
        want[:n] = factor * x[:n].float()
        assert torch.equal(out, want), number
    # A host tensor where the plan has a CUDA one goes the whole way, and is refused there.
    with pytest.raises(Exception, match="host array"):
        k.scale_kernel[(9, 1)](x32, torch.zeros(1040), 1000, 2.0, NEGATE=False, BLOCK=256)


def test_launches_of_two_kinds_by_turns_keep_a_plan_each(nvptx):
    """A kernel launched by turns with arguments of two kinds (here a float32 and a float16
    tensor, each launch with its own `NEGATE`), from one line or two, keeps a plan for each
    kind: after the first round every launch goes by a plan, each to its own specialization."""
    torch = nvptx
    x32 = torch.arange(1000, dtype=torch.float32, device="cuda")
    x16 = x32.half()
    out_a = torch.zeros(1000, device="cuda")
    out_b = torch.zeros(1000, device="cuda")
    grid = (8, 3)
    planned = []
    for turn in range(4):
        native = k.scale_kernel._native
        before = native.planned_launches() if native else 0
        for x, out, negate in ((x32, out_a, False), (x16, out_b, True)):
            k.scale_kernel[grid](x, out, 1000, float(turn), NEGATE=negate, BLOCK=128)
        k.scale_kernel[grid](x16, out_b, 1000, float(turn), NEGATE=True, BLOCK=128)
        planned.append(k.scale_kernel._native.planned_launches() - before)
        torch.cuda.synchronize()
        assert torch.equal(out_a, turn * x32) and torch.equal(out_b, -turn * x32), turn
    assert planned[1:] == [3, 3, 3], planned


def test_a_wrapper_making_its_grid_and_block_at_every_call_goes_by_the_plan(nvptx):
    """A wrapper function that makes its grid tuple and computes BLOCK at every call (as the
    tutorials' softmax does), and passes the constexprs as `**meta`, passes new objects each
    time: the plan takes an int constexpr equal to its own, keyword names in a tuple made for
    the call, and the grid as each launch gives it."""
    torch = nvptx

    def scale(x, factor):
        out = torch.full_like(x, -1.0)
        n = x.numel()
        block = trident.next_power_of_2(n // 2)  # above 256: a new int object at every call
        meta = {"NEGATE": False, "BLOCK": block}
        k.scale_kernel[(trident.cdiv(n, block), )](x, out, n, factor, **meta)
        return out

    sizes = [1000, 1000, 1000, 1992, 1992]  # BLOCK 512, then 1024; n in one integer class
    planned = []
    for n in sizes:
        x = torch.arange(n, dtype=torch.float32, device="cuda")
        native = k.scale_kernel._native
        before = native.planned_launches() if native else 0
        out = scale(x, 3.0)
        planned.append(k.scale_kernel._native.planned_launches() - before)
        torch.cuda.synchronize()
        assert torch.equal(out, 3.0 * x), n
    assert planned[1:] == [1, 1, 0, 1], planned


def test_planned_launches_call_the_grid_function_every_time(nvptx):
    """A plan keeps no grid that a function gives: every launch by the plan calls it with that
    launch's arguments and meta-parameters, as the whole way (and Triton) does."""
    torch = nvptx
    x = torch.arange(4000, dtype=torch.float32, device="cuda")
    calls = []

    def grid(meta):
        calls.append((meta["n"], meta["BLOCK"], meta["NEGATE"]))
        return (trident.cdiv(meta["n"], meta["BLOCK"]), )

    sizes = [1000, 1000, 1992, 3000]  # one integer class (not 1, not a multiple of 16)
    planned = []
    for n in sizes:
        out = torch.full((4000, ), -1.0, device="cuda")
        native = k.scale_kernel._native
        before = native.planned_launches() if native else 0
        k.scale_kernel[grid](x, out, n, 2.0, NEGATE=False, BLOCK=128)
        planned.append(k.scale_kernel._native.planned_launches() - before)
        torch.cuda.synchronize()
        want = torch.full((4000, ), -1.0, device="cuda")
        want[:n] = 2.0 * x[:n]
        assert torch.equal(out, want), n
    assert planned[1:] == [1, 1, 1], planned
    assert calls == [(n, 128, False) for n in sizes], calls


def test_hot_launches_are_captured_into_a_torch_cuda_graph(nvptx):
    """A launch that would be replayed from trident's graph is launched directly while its stream
    is captured (a capture takes kernels, not graph launches), so torch.cuda.graph records it."""
    torch = nvptx
    x = torch.arange(1000, dtype=torch.float32, device="cuda")
    out = torch.zeros(1000, device="cuda")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for _ in range(20):  # hot on the capture's stream
            k.scale_kernel[(8, )](x, out, 1000, 2.0, NEGATE=False, BLOCK=128)
    stream.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        k.scale_kernel[(8, )](x, out, 1000, 3.0, NEGATE=False, BLOCK=128)
    out.zero_()
    torch.cuda.synchronize()
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(out, 3 * x)


def test_cuda_views_in_place(nvptx):
    """A view's data_ptr() is where the kernel starts: 16-byte aligned or not, each its own
    specialization."""
    torch = nvptx
    base = torch.arange(1024, dtype=torch.float32, device="cuda")
    k.scale_kernel._native = None
    for start in (16, 1, 16):
        x = base[start:start + 512]
        out = torch.zeros(512, device="cuda")
        k.scale_kernel[(4, )](x, out, 512, 2.0, NEGATE=False, BLOCK=128)
        torch.cuda.synchronize()
        assert torch.equal(out, 2 * x), start
    assert k.scale_kernel._native.loaded() == 2


def test_cuda_tensors_with_host_arrays_are_refused_on_nvptx(nvptx):
    torch = nvptx
    x = torch.zeros(64, device="cuda")
    with pytest.raises(trident.ArgumentError, match="host array"):
        k.scale_kernel[(1, )](x, np.zeros(64, dtype=np.float32), 64, 1.0, NEGATE=False, BLOCK=64)


def test_launch_overhead_on_nvptx(nvptx):
    """20000 launches of a 4-argument kernel with CUDA tensors, without synchronizing: the host
    time per launch (the issue's target is 5 us on an H100). Printed; bounded loosely here (the
    benchmark script, python/benchmarks/launch_overhead.py, is the measurement)."""
    torch = nvptx
    x = torch.rand(1024, device="cuda")
    out = torch.empty_like(x)
    launch = k.scale_kernel[(1, )]
    launch(x, out, 1024, 2.0, NEGATE=False, BLOCK=1024)
    torch.cuda.synchronize()
    count = 20000
    started = time.perf_counter()
    for _ in range(count):
        launch(x, out, 1024, 2.0, NEGATE=False, BLOCK=1024)
    us = (time.perf_counter() - started) / count * 1e6
    torch.cuda.synchronize()
    print(f"launch overhead on nvptx (torch CUDA tensors): {us:.2f} us/launch", file=sys.__stderr__)
    assert torch.equal(out, 2 * x)
    assert us < 50, f"{us:.1f} us per launch"


def test_descriptor_arguments_of_cpu_tensors(backend, request):
    torch = require_torch(request.node.name)
    from trident.tools.tensor_descriptor import TensorDescriptor

    x = torch.arange(100 * 72, dtype=torch.float16).reshape(100, 72)
    out = torch.zeros_like(x)
    k.descriptor_args_kernel[(4, 5)](TensorDescriptor.from_tensor(x, [32, 16]),
                                     TensorDescriptor.from_tensor(out, [32, 16]), BM=32, BN=16)
    assert torch.equal(out, 2 * x)


def test_descriptor_arguments_in_place_on_nvptx(nvptx):
    """A GEMM through descriptor arguments: on sm_90a their loads feed warpgroup dots through
    tensor maps encoded on the host; elsewhere they are masked loads."""
    torch = nvptx
    from trident.tools.tensor_descriptor import TensorDescriptor

    a = torch.randn(256, 192, dtype=torch.float16, device="cuda")
    b = torch.randn(192, 384, dtype=torch.float16, device="cuda")
    c = torch.empty(256, 384, dtype=torch.float16, device="cuda")
    descriptors = [TensorDescriptor.from_tensor(a, [128, 64]), TensorDescriptor.from_tensor(b, [64, 128]),
                   TensorDescriptor.from_tensor(c, [128, 128])]
    k.matmul_descriptor_args_kernel[(2, 3)](*descriptors, 192, BM=128, BN=128, BK=64, num_warps=8)
    torch.cuda.synchronize()
    assert torch.allclose(c.float(), a.float() @ b.float(), atol=1e-1, rtol=1e-2)
