"""Host time per launch from Python: trident's ``kernel[grid](...)``, and real Triton's beside it.

    python python/benchmarks/launch_overhead.py [--backend auto|nvptx|spirv|interp] [--launches N]
                                                [--grid tuple|function] [--rounds R]

launches a 4-argument kernel (``x``, ``y``, ``out``, ``n``, plus the constexpr ``BLOCK``)
``N`` times (20000 by default) without synchronizing between launches, after a warm-up launch
that compiles it, and prints the host time per launch, then the time with the final
synchronization. The grid is the tuple ``(1,)``, or with ``--grid function`` a function of the
meta-parameters as the tutorials write it (called at every launch, in Triton as in trident). The arguments are torch CUDA tensors where torch has CUDA (used in place on
nvptx), else numpy arrays (copied to the device and back on every launch, so that time counts
too; on interp the launch includes running the kernel on the CPU, over a block of 16 elements).

Each implementation runs in its own process: trident under ``python -m trident`` (its drop-in
for ``triton``), Triton (when ``import triton`` works without trident) as a plain script; with
``--rounds R``, R times each, alternating, and then each one's median, least and most over the
rounds (a host's launch costs drift from process to process: on the H100 hosts measured, by up
to a factor of 1.8 within one command), and each round's ratio of the two. Lines that start with
``BENCH`` are for scripts:

    BENCH impl=trident backend=nvptx args=torch-cuda grid=tuple launches=20000 us_per_launch=2.88 us_with_sync=2.88 gpu_us=2.88 floor_us=3.70 replay_us=1.73

With torch CUDA tensors, ``gpu_us`` is the GPU's time from before the first launch to after the
last, per launch (CUDA events): as long as the host's while the GPU keeps up with the launches,
longer where they queue up faster than it runs them (the host's time then does not measure the
launch alone). Queued behind a sleeping kernel, the GPU of the H100 host ran this kernel's
launches 1.9 us apart, Triton's 2.1.

On nvptx, trident also measures the CUDA driver's own cost of a launch on the machine (an empty
kernel launched from Rust in the same process): with ``cuLaunchKernel`` (``floor_us``, which no
launch that calls it can go under: 2.8 to 4.9 microseconds on the H100 hosts measured so far) and
replayed from a one-node graph (``replay_us``: 1.5 to 2.8), as trident replays a kernel launched
again and again over one grid on one stream (``TRIDENT_CUDA_GRAPHS=0`` turns that off). The floor
varies from host to host, so compare hosts by the share above it, and implementations within one
run.
"""

import argparse
import importlib.util
import os
import subprocess
import sys
import time

if "triton" not in sys.modules and importlib.util.find_spec("triton") is None:
    # Neither Triton nor trident's drop-in: run again under the drop-in.
    os.execv(sys.executable, [sys.executable, "-m", "trident", os.path.abspath(__file__), *sys.argv[1:]])

import triton  # noqa: E402  (trident's drop-in, or Triton)
import triton.language as tl  # noqa: E402


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
             mask=mask)


def is_trident():
    return triton.__name__ == "trident"


def cuda_torch():
    """torch, when it has a CUDA device; else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def measure(backend, launches, grid_kind):
    """Times the launches in this process; prints one line for people and one BENCH line."""
    impl = "trident" if is_trident() else "triton"
    if is_trident():
        triton.set_backend(backend)
        chosen = backend
    else:
        chosen = "nvptx"
    torch = cuda_torch() if chosen in ("auto", "nvptx") else None
    block = 1024 if torch is not None or chosen != "interp" else 16
    if torch is not None:
        x = torch.rand(block, device="cuda")
        y = torch.rand(block, device="cuda")
        out = torch.empty_like(x)
        kind = "torch-cuda"
        synchronize = torch.cuda.synchronize
    else:
        import numpy as np
        x = np.random.default_rng(0).random(block, dtype=np.float32)
        y = np.ones(block, dtype=np.float32)
        out = np.zeros(block, dtype=np.float32)
        kind = "numpy"

        def synchronize():
            pass

    if grid_kind == "function":
        # As the tutorials write it: called at every launch with the arguments and constexprs.
        def grid(meta):
            return (triton.cdiv(meta["n"], meta["BLOCK"]), )
    else:
        grid = (1, )
    add_kernel[grid](x, y, out, block, BLOCK=block)  # compiles (or loads from the cache)
    synchronize()
    # CUDA events before and after the launches time the GPU's side of them: longer than the
    # host's time where the launches queued up faster than the GPU ran them.
    events = [torch.cuda.Event(enable_timing=True) for _ in range(2)] if torch is not None else None
    if events:
        events[0].record()
    started = time.perf_counter()
    for _ in range(launches):
        add_kernel[grid](x, y, out, block, BLOCK=block)
    host = time.perf_counter() - started
    if events:
        events[1].record()
    synchronize()
    total = time.perf_counter() - started
    us, us_sync = host / launches * 1e6, total / launches * 1e6
    gpu_field = ""
    if events:
        gpu_us = events[0].elapsed_time(events[1]) * 1e3 / launches
        gpu_field = f" gpu_us={gpu_us:.3f}"
    if torch is not None:
        assert torch.allclose(out, x + y), "wrong result"
    else:
        assert (out == x + y).all(), "wrong result"
    print(f"{impl} on {chosen} ({kind}): {launches} launches, {us:.2f} us/launch host time, "
          f"{us_sync:.2f} us/launch with the final synchronization"
          + (f", {gpu_us:.2f} us/launch on the GPU (events)" if events else ""))
    floor = driver_floor(launches) if chosen == "nvptx" else None
    floor_field = ""
    if floor is not None:
        direct, replayed = floor
        print(f"  the CUDA driver on this machine (an empty kernel, same process): {direct:.2f} us a cuLaunchKernel, "
              f"{replayed:.2f} us a graph replay; {impl}'s share above the replay: {us - replayed:.2f} us")
        floor_field = f" floor_us={direct:.3f} replay_us={replayed:.3f}"
    print(f"BENCH impl={impl} backend={chosen} args={kind} grid={grid_kind} launches={launches} "
          f"us_per_launch={us:.3f} "
          f"us_with_sync={us_sync:.3f}{gpu_field}{floor_field}")


def driver_floor(launches):
    """Host time per launch of an empty kernel of four parameters on this machine (trident's
    runtime, without Python), ``(cuLaunchKernel, graph replay)``: the floor under a launch that
    calls ``cuLaunchKernel`` (Triton's), and under trident's repeat launches, which are replayed
    from one-node graphs; it varies from host to host. ``None`` where trident cannot measure it
    (real Triton, no GPU)."""
    native = getattr(triton, "_native", None)
    if native is None or not hasattr(native, "launch_floor"):
        return None
    floor = native.launch_floor(launches)
    return None if floor is None else floor[:2]


def real_triton_runs():
    """Whether a plain ``import triton`` (without trident's drop-in) finds Triton, and torch a
    CUDA GPU for it to run on."""
    probe = ("import sys, torch, triton; "
             "sys.exit(0 if triton.__name__ == 'triton' and torch.cuda.is_available() else 1)")
    return subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default=os.environ.get("TRIDENT_BACKEND") or "auto",
                        choices=["auto", "nvptx", "spirv", "interp"], help="trident's backend")
    parser.add_argument("--launches", type=int, default=20000)
    parser.add_argument("--grid", choices=["tuple", "function"], default="tuple",
                        help="the grid as a tuple, or as a function of the meta-parameters")
    parser.add_argument("--impl", choices=["trident", "triton", "both"], default="both",
                        help="measure one implementation in this process, or both (each in its own)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="with --impl both: how many times to run each implementation")
    args = parser.parse_args()
    if args.impl != "both":
        if (args.impl == "trident") != is_trident():
            sys.exit(f"--impl {args.impl}: this process imports {triton.__name__} as triton")
        measure(args.backend, args.launches, args.grid)
        return
    script = os.path.abspath(__file__)
    common = ["--backend", args.backend, "--launches", str(args.launches), "--grid", args.grid]
    runs = [[sys.executable, "-m", "trident", script, "--impl", "trident", *common]]
    if real_triton_runs():
        runs.append([sys.executable, script, "--impl", "triton", *common])
    else:
        print("triton: not measured (it needs Triton and torch with a CUDA GPU)")
    failed = 0
    per_launch = {}
    for _ in range(max(args.rounds, 1)):
        for command in runs:
            done = subprocess.run(command, capture_output=True, text=True)
            sys.stdout.write(done.stdout)
            sys.stderr.write(done.stderr)
            failed |= done.returncode
            for fields in (line.split() for line in done.stdout.splitlines() if line.startswith("BENCH ")):
                values = dict(field.split("=", 1) for field in fields[1:])
                per_launch.setdefault(values["impl"], []).append(float(values["us_per_launch"]))
    if args.rounds > 1:
        # A round runs the implementations one after the other, a few seconds apart: their ratio
        # in one round is steadier than either time across rounds.
        pairs = list(zip(per_launch.get("trident", []), per_launch.get("triton", [])))
        for number, (ours, theirs) in enumerate(pairs, 1):
            print(f"round {number}: trident {ours:.2f} us, triton {theirs:.2f} us, ratio {ours / theirs:.3f}")
        for impl, times in per_launch.items():
            times.sort()
            middle = len(times) // 2
            median = times[middle] if len(times) % 2 else (times[middle - 1] + times[middle]) / 2
            print(f"{impl}: median {median:.2f} us/launch over {len(times)} rounds (least {times[0]:.2f}, "
                  f"most {times[-1]:.2f})")
            print(f"BENCH impl={impl} rounds={len(times)} median_us={median:.3f} min_us={times[0]:.3f} "
                  f"max_us={times[-1]:.3f}")
    sys.exit(failed)


if __name__ == "__main__":
    main()
