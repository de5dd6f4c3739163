#!/usr/bin/env bash
# GPU checks for trident, on a machine with an NVIDIA GPU: the CUDA self-test, the acceptance
# corpus on nvptx, and the perf cases timed on trident and on Triton, one line per case. Where
# `trident devices` lists a Vulkan adapter, the corpus and the perf cases also run on spirv, and
# the perf table gains a spirv column.
#
# Usage: scripts/gpu-check.sh [TRIDENT_BINARY [CORPUS_DIR]]
#   defaults: $TRIDENT or target/release/trident; $CORPUS or ../shared/corpus (both relative to
#   the repository root), so the script also runs from a carried folder with the env vars set.
#   Results (JSON from the corpus runner) go to $RESULTS, default a fresh temporary directory.
#   PARTS (default "nvptx perf spirv") picks the parts to run, so that a run can be split over
#   several calls with the same $RESULTS (the table reads whatever results are there):
#     nvptx  the CUDA self-test, ptxas on every case, the corpus on nvptx
#     perf   the perf cases timed on Triton and on trident's nvptx backend
#     spirv  the corpus and the perf cases on spirv (where a Vulkan adapter is listed)
#
# Every step runs even when an earlier one fails; each failure is reported in the summary. The
# exit status is 1 when a corpus case failed, the corpus run did not finish, or the self-test
# failed; a missing Triton only loses the comparison column.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
trident="${1:-${TRIDENT:-$root/target/release/trident}}"
corpus="${2:-${CORPUS:-$root/../shared/corpus}}"
results="${RESULTS:-$(mktemp -d -t trident-gpu-check.XXXXXX)}"
mkdir -p "$results"
trident="$(cd "$(dirname "$trident")" && pwd)/$(basename "$trident")"

parts="${PARTS:-nvptx perf spirv}"
failed_steps=()
fatal=0

# wants PART: whether PARTS names it.
wants() {
    case " $parts " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

banner() {
    printf '\n========== %s ==========\n' "$*"
}

# step NAME FATAL COMMAND...: runs the command, records a failure without stopping.
step() {
    local name="$1" is_fatal="$2"
    shift 2
    banner "$name"
    local status=0
    "$@" || status=$?
    if [ "$status" -ne 0 ]; then
        echo "step failed: $name (exit $status)"
        failed_steps+=("$name (exit $status)")
        if [ "$is_fatal" = fatal ]; then fatal=1; fi
    fi
}

if [ ! -x "$trident" ]; then
    echo "error: trident binary not found or not executable: $trident (build with cargo build --release)"
    exit 1
fi
if [ ! -f "$corpus/run.py" ]; then
    echo "error: corpus runner not found: $corpus/run.py (pass CORPUS_DIR or set CORPUS)"
    exit 1
fi
echo "trident: $trident"
echo "corpus:  $corpus"
echo "results: $results"

step "trident devices" fatal "$trident" devices
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
if wants nvptx; then
    step "CUDA self-test (hand-written PTX)" fatal env TRIDENT_REQUIRE_DEVICES=nvptx "$trident" selftest-cuda
    step "corpus: ptxas on every case (sm_80, sm_90a)" nonfatal \
        python3 "$corpus/run.py" --ptxas sm_80,sm_90a --size all --trident "$trident" --json "$results/ptxas.json"
    step "corpus: nvptx, every case" fatal \
        python3 "$corpus/run.py" --backend nvptx --size all --trident "$trident" --json "$results/nvptx-all.json"
fi
if wants perf; then
    step "corpus: Triton bench, perf cases" nonfatal \
        python3 "$corpus/run.py" --triton --bench --size perf --json "$results/triton-perf.json"
    step "corpus: trident nvptx bench, perf cases" nonfatal \
        python3 "$corpus/run.py" --backend nvptx --bench --size perf --trident "$trident" --json "$results/nvptx-perf.json"
fi

if ! wants spirv; then
    :
elif "$trident" devices 2>/dev/null | grep -q '^spirv *available'; then
    step "corpus: spirv, every case" fatal \
        python3 "$corpus/run.py" --backend spirv --size all --trident "$trident" --json "$results/spirv-all.json"
    step "corpus: trident spirv bench, perf cases" nonfatal \
        python3 "$corpus/run.py" --backend spirv --bench --size perf --trident "$trident" --json "$results/spirv-perf.json"
else
    banner "spirv"
    echo "SKIP spirv: trident devices lists no Vulkan adapter here"
fi

banner "perf: trident vs Triton"
python3 - "$results" <<'PY' || failed_steps+=("perf table")
import json, math, os, sys

results = sys.argv[1]

def load(name):
    path = os.path.join(results, name)
    try:
        with open(path) as f:
            return {r["id"]: r for r in json.load(f)["results"]}
    except (OSError, ValueError, KeyError) as e:
        print(f"({name}: not available: {e})")
        return {}

def metric(result):
    """-> (value, unit) from a result's bench entry, preferring TFLOP/s."""
    bench = (result or {}).get("bench") or {}
    for unit in ("TFLOP/s", "GB/s"):
        if isinstance(bench.get(unit), (int, float)):
            return bench[unit], unit
    if "error" in bench:
        return None, bench["error"][:40]
    if result and result.get("status") != "PASS":
        return None, f"{result.get('status')}: {result.get('reason', '')[:34]}"
    return None, "-"

trident, triton = load("nvptx-perf.json"), load("triton-perf.json")
spirv = load("spirv-perf.json") if os.path.exists(os.path.join(results, "spirv-perf.json")) else None
ratios = []
show = lambda v, u: f"{v:.3f} {u}" if v is not None else u
header = f"{'case':<44} {'trident':>16} {'triton':>16} {'ratio':>7}"
print(header + (f" {'spirv':>16} {'ratio':>7}" if spirv is not None else ""))
for case in sorted(set(trident) | set(triton)):
    ours, our_unit = metric(trident.get(case))
    theirs, their_unit = metric(triton.get(case))
    ratio = "-"
    if ours is not None and theirs:
        ratios.append(ours / theirs)
        ratio = f"{ours / theirs:.2f}"
    line = f"{case:<44} {show(ours, our_unit):>16} {show(theirs, their_unit):>16} {ratio:>7}"
    if spirv is not None:
        portable, portable_unit = metric(spirv.get(case))
        portable_ratio = f"{portable / theirs:.2f}" if portable is not None and theirs else "-"
        line += f" {show(portable, portable_unit):>16} {portable_ratio:>7}"
    print(line)
if ratios:
    geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"perf: {len(ratios)} case(s) timed on both; geometric mean of trident/Triton = {geomean:.2f}")
else:
    print("perf: no case was timed on both trident and Triton")
PY

banner "summary"
corpus_failed=$(python3 - "$results/nvptx-all.json" <<'PY'
import json, sys
try:
    with open(sys.argv[1]) as f:
        data = json.load(f)
except (OSError, ValueError) as e:
    print(f"-1 the nvptx corpus run left no results ({e})")
    sys.exit(0)
print(f"{data['failed']} {data['passed']} passed, {data['failed']} failed, {data['skipped']} skipped")
PY
)
corpus_failed_count="${corpus_failed%% *}"
if ! wants nvptx && [ ! -f "$results/nvptx-all.json" ]; then
    # This call ran other parts only; an earlier call's results would have been read above.
    corpus_failed_count=0
    echo "corpus on nvptx: not run in this call (PARTS=\"$parts\")"
else
    echo "corpus on nvptx: ${corpus_failed#* }"
fi
if [ -f "$results/spirv-all.json" ]; then
    python3 - "$results/spirv-all.json" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    data = json.load(f)
print(f"corpus on spirv: {data['passed']} passed, {data['failed']} failed, {data['skipped']} skipped")
PY
fi
if [ "${#failed_steps[@]}" -gt 0 ]; then
    echo "failed steps:"
    printf '  %s\n' "${failed_steps[@]}"
fi
echo "results kept in $results"
if [ "$fatal" -ne 0 ] || [ "$corpus_failed_count" != 0 ]; then
    echo "gpu-check: FAIL"
    exit 1
fi
echo "gpu-check: PASS"
