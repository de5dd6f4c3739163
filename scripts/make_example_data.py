#!/usr/bin/env python3
"""Writes the inputs of examples/vector_add.py to examples/data/ (needs numpy).

x and y are 1000 float32 values from a fixed seed; output is zeros of the same shape. The files
are committed, so running this again must give the same bytes.
"""
import os

import numpy as np

N = 1000


def main():
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "data")
    os.makedirs(data, exist_ok=True)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(N).astype(np.float32)
    y = rng.standard_normal(N).astype(np.float32)
    np.save(os.path.join(data, "x.npy"), x)
    np.save(os.path.join(data, "y.npy"), y)
    np.save(os.path.join(data, "output.npy"), np.zeros(N, dtype=np.float32))
    print(f"wrote x.npy, y.npy, output.npy ({N} float32 each) to {os.path.normpath(data)}")


if __name__ == "__main__":
    main()
