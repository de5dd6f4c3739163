#!/usr/bin/env python3
"""The SASS of spirv kernels as NVIDIA's Vulkan driver compiled them, from its shader disk cache.

ncu does not profile Vulkan kernels, and wgpu reads no pipeline statistics, so this is how to see
what the driver made of trident's SPIR-V (registers are not in it, the instructions are). Run the
kernel with the driver's disk cache in a fresh folder, then read that folder:

    export __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1
    export __GL_SHADER_DISK_CACHE_PATH=/tmp/glcache
    trident run ... --backend spirv            # or the corpus runner with --backend spirv
    python3 scripts/vulkan_sass.py /tmp/glcache OUT_DIR

Each `.bin` file of the cache holds zstd frames; a compiled pipeline's frame decompresses to a
`NVDANVVM` blob whose `NVuc` part (from byte 8) `nvdisasm -b SM90` reads, or, where it refuses a
section, whose code it disassembles as raw instructions (the code's length and offset are the
16th and 17th words of the header from byte 16). The script writes `OUT_DIR/pipelineN.sass` per
pipeline, largest last, and prints a line per pipeline: instruction count and the most common
opcodes (two small pipelines that are not trident's, 56 and 120 instructions on that driver,
come with every kernel). It needs the `zstd` command and `nvdisasm` (CUDA toolkit, or PyPI
`nvidia-cuda-nvdisasm`) on PATH or in $NVDISASM. Written against driver 580 on an H100; the
format is the driver's own and may change.
"""
import collections
import os
import shutil
import struct
import subprocess
import sys

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
BLOB_MAGIC = b"NVDANVVM"


def frames(data):
    """Every zstd frame of `data` that decompresses, decompressed."""
    start = data.find(ZSTD_MAGIC)
    while start >= 0:
        out = subprocess.run(["zstd", "-d", "-c", "-q"], input=data[start:], capture_output=True).stdout
        if out:
            yield out
        start = data.find(ZSTD_MAGIC, start + len(ZSTD_MAGIC))


def disassemble(nvdisasm, blob, path):
    """The blob's SASS text: nvdisasm on its NVuc part, else on its code as raw instructions."""
    nvuc = path + ".nvuc"
    with open(nvuc, "wb") as f:
        f.write(blob[8:])
    done = subprocess.run([nvdisasm, "-b", "SM90", nvuc], capture_output=True, text=True)
    if done.returncode == 0 and "/*0000*/" in done.stdout:
        os.remove(nvuc)
        return done.stdout
    words = struct.unpack_from("<17I", blob, 16)
    length, offset = words[15], words[16]
    with open(nvuc, "wb") as f:
        f.write(blob[8 + offset:8 + offset + length])
    done = subprocess.run([nvdisasm, "-b", "SM90", nvuc], capture_output=True, text=True)
    os.remove(nvuc)
    return done.stdout if done.returncode == 0 else ""


def opcodes(sass):
    """The opcode of every instruction line (the predicate dropped)."""
    for line in sass.splitlines():
        fields = line.split()
        if len(fields) < 2 or not fields[0].startswith("/*") or not fields[0].endswith("*/"):
            continue
        op = fields[2] if fields[1].startswith("@") and len(fields) > 2 else fields[1]
        yield op.rstrip(";")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cache, out = sys.argv[1], sys.argv[2]
    nvdisasm = os.environ.get("NVDISASM") or shutil.which("nvdisasm")
    if not nvdisasm or not shutil.which("zstd"):
        sys.exit("vulkan_sass: needs `zstd` and `nvdisasm` (set NVDISASM=path)")
    os.makedirs(out, exist_ok=True)
    blobs = []
    for folder, _, files in os.walk(cache):
        for name in sorted(files):
            if name.endswith(".bin"):
                with open(os.path.join(folder, name), "rb") as f:
                    blobs.extend(b for b in frames(f.read()) if b.startswith(BLOB_MAGIC))
    if not blobs:
        sys.exit(f"vulkan_sass: no compiled pipeline in {cache} (was the disk cache on, and the folder fresh?)")
    for index, blob in enumerate(sorted(blobs, key=len)):
        path = os.path.join(out, f"pipeline{index}")
        sass = disassemble(nvdisasm, blob, path)
        with open(path + ".sass", "w") as f:
            f.write(sass)
        counts = collections.Counter(opcodes(sass))
        common = ", ".join(f"{op} {n}" for op, n in counts.most_common(8))
        print(f"{path}.sass: {sum(counts.values())} instructions; {common}")


if __name__ == "__main__":
    main()
