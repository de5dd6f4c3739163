"""Prints its arguments and exits with code 3 when given --fail: python -m trident runs a script
as python would."""

import sys

import triton

if __name__ == "__main__":
    assert triton.cdiv(10, 4) == 3
    print("argv", sys.argv[1:])
    sys.exit(3 if "--fail" in sys.argv else 0)
