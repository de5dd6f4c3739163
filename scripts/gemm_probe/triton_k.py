import os, sys, torch, triton
sys.path.insert(0, os.environ.get("CORPUS", ".carry/corpus") + "/kernels")
import matmul, gemm_bf16_ptrcast
from triton.testing import do_bench
S = 4096
a = torch.randn(S, S, device="cuda", dtype=torch.float16) / 64
b = torch.randn(S, S, device="cuda", dtype=torch.float16)
c = torch.empty(S, S, device="cuda", dtype=torch.float16)
for K in (int(k) for k in sys.argv[1:]):
    f = lambda: matmul.matmul_kernel[(512,)](a, b, c, S, S, K, S, 1, S, 1, S, 1, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8, IEEE=False, num_warps=8, num_stages=3)
    p = lambda: matmul.matmul_persistent_kernel[(132,)](a, b, c, S, S, K, S, 1, S, 1, S, 1, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8, num_warps=8, num_stages=3)
    print(f"triton K={K} f16 {do_bench(f, warmup=25, rep=200):.5f} pers {do_bench(p, warmup=25, rep=200):.5f}")
