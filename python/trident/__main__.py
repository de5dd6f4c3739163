"""``python -m trident [--backend B] [--check] script.py [ARGS...]``: runs a Triton script with
trident standing in for ``triton`` (see ``trident.dropin``).

``--backend`` (auto, nvptx, spirv or interp) sets ``TRIDENT_BACKEND`` for the script and any
process it starts; without it the variable's value, or auto, holds. ``--check`` sets
``TRIDENT_CHECK=1``: every launch also runs on interp and a result that differs raises
``trident.errors.CheckError``. The script runs as
``python script.py ARGS`` would run it: as ``__main__``, with ``sys.argv`` = ``[script, *ARGS]``
and its directory first on ``sys.path``.
"""

import os
import runpy
import sys
from traceback import print_exception

USAGE = """usage: python -m trident [--backend auto|nvptx|spirv|interp] [--check] script.py [ARGS...]

Runs a Triton script with trident standing in for `triton` and `triton.language`.
  --backend B   where kernels run: auto (nvptx on a CUDA GPU, else spirv on a Vulkan adapter,
                else interp), nvptx, spirv or interp [default: $TRIDENT_BACKEND, else auto]
  --check       run every launch on interp as well and compare the results: the first element
                beyond the dtype's tolerance raises trident.errors.CheckError, naming the kernel
                and the launch's line (TRIDENT_CHECK=1; TRIDENT_CHECK=warn only prints)
  --version     print trident's version"""

BACKENDS = ("auto", "nvptx", "spirv", "interp")


def main(argv):
    backend = None
    index = 0
    while index < len(argv) and argv[index].startswith("-"):
        option = argv[index]
        if option in ("-h", "--help"):
            print(USAGE)
            return 0
        if option == "--version":
            from . import __version__
            print(f"trident {__version__}")
            return 0
        if option == "--check":
            os.environ["TRIDENT_CHECK"] = "1"
            index += 1
            continue
        if option == "--backend" and index + 1 < len(argv):
            backend = argv[index + 1]
            index += 2
        elif option.startswith("--backend="):
            backend = option.split("=", 1)[1]
            index += 1
        else:
            print(f"error: unknown option {option!r}\n\n{USAGE}", file=sys.stderr)
            return 2
        if backend not in BACKENDS:
            print(f"error: --backend {backend!r}: one of {', '.join(BACKENDS)}", file=sys.stderr)
            return 2
    if index >= len(argv):
        print(f"error: no script to run\n\n{USAGE}", file=sys.stderr)
        return 2
    script, args = argv[index], argv[index + 1:]
    if not os.path.isfile(script):
        print(f"error: cannot run {script!r}: no such file", file=sys.stderr)
        return 2
    if backend is not None:
        os.environ["TRIDENT_BACKEND"] = backend
    from . import dropin
    dropin.install()
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    except Exception as error:
        # As `python script.py` reports it: the traceback from the script's first frame on,
        # without those of runpy and of this module.
        traceback = error.__traceback__
        while traceback is not None and traceback.tb_frame.f_code.co_filename != script:
            traceback = traceback.tb_next
        print_exception(type(error), error, traceback or error.__traceback__)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
