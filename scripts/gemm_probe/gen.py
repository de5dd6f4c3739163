import sys, numpy as np
d = sys.argv[1]; S = 4096; g = np.random.default_rng(0)
a = g.standard_normal((S, S), dtype=np.float32) / 64; b = g.standard_normal((S, S), dtype=np.float32)
np.save(f"{d}/a16.npy", a.astype(np.float16)); np.save(f"{d}/b16.npy", b.astype(np.float16))
np.save(f"{d}/c16.npy", np.zeros((S, S), np.float16))
np.save(f"{d}/abf.npy", (a.view(np.uint32) >> 16).astype(np.uint16)); np.save(f"{d}/bbf.npy", (b.view(np.uint32) >> 16).astype(np.uint16))
np.save(f"{d}/cbf.npy", np.zeros((S, S), np.uint16)); np.save(f"{d}/c32.npy", np.zeros((S, S), np.float32))
