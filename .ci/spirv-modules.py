#!/usr/bin/env python3
"""Checks the SPIR-V of every ci corpus case: `spirv-val` on the Vulkan module, and naga's
translation of the portable module to WGSL (`trident compile --emit wgsl`).

Usage: spirv-modules.py TRIDENT_BINARY [CORPUS_DIR]. Cases that expect a compile error are
skipped (the runner checks their messages). A case the backend refuses (`does not support`,
with the span) generates no module and is counted and listed, as is one refused in portable
mode only (64-bit types); every module that is generated must pass. Exit 1 on any failure.
"""
import os
import subprocess
import sys
import tempfile

binary = os.path.abspath(sys.argv[1])
corpus = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "..", "shared", "corpus"))
sys.path.insert(0, corpus)
import run as runner  # noqa: E402  (the corpus runner: case loading and command lines)

mod = runner.load_cases(os.path.join(corpus, "cases.py"))
cases = [c for c in mod.CASES if c.size == "ci" and c.expect_error is None]
failures = []
counts = dict(valid=0, wgsl=0, portable_unsupported=0, unsupported=0)
with tempfile.TemporaryDirectory() as tmp:
    for case in cases:
        workdir = os.path.join(tmp, case.id.replace("/", "__"))
        os.makedirs(workdir)
        args = case.args()
        spv = os.path.join(workdir, "kernel.spv")
        cmd = runner.trident_command(binary, "sm_90a", case, args, workdir, spv, mod, verb="compile")
        cmd[cmd.index("--emit") + 1] = "spirv"
        target = cmd.index("--target")
        del cmd[target:target + 2]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if proc.returncode != 0 and "the spirv backend does not support" in proc.stderr:
            counts["unsupported"] += 1
            print(f"unsupported by the spirv backend: {case.id}")
            continue
        if proc.returncode != 0:
            failures.append(f"{case.id}: compile --emit spirv exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
            continue
        val = subprocess.run(["spirv-val", "--target-env", "vulkan1.1", spv], capture_output=True, text=True)
        if val.returncode != 0:
            failures.append(f"{case.id}: spirv-val rejects the module: {(val.stderr or val.stdout).strip()[:300]}")
            continue
        counts["valid"] += 1
        wgsl_cmd = cmd[:]
        wgsl_cmd[wgsl_cmd.index("--emit") + 1] = "wgsl"
        del wgsl_cmd[wgsl_cmd.index("-o"):]
        proc = subprocess.run(wgsl_cmd, capture_output=True, text=True, timeout=120)
        if proc.returncode == 0 and "fn " in proc.stdout:
            counts["wgsl"] += 1
        elif "portable mode" in proc.stderr:
            counts["portable_unsupported"] += 1
            print(f"portable mode unsupported (64-bit types): {case.id}")
        else:
            failures.append(f"{case.id}: --emit wgsl exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
for f in failures:
    print(f"FAIL {f}")
print(f"spirv modules: {len(cases)} cases, {counts['unsupported']} unsupported, {counts['valid']} pass spirv-val, {counts['wgsl']} translate to WGSL, "
      f"{counts['portable_unsupported']} need 64-bit types (not portable), {len(failures)} failures")
sys.exit(1 if failures else 0)
