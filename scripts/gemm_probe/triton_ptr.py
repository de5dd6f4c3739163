import os, sys, torch, triton
sys.path.insert(0, os.environ.get("CORPUS", ".carry/corpus") + "/kernels")
import gemm_bf16_ptrcast as g
from triton.testing import do_bench
S = 4096
a = (torch.randn(S, S, device="cuda") / 64).to(torch.bfloat16).view(torch.uint16)
b = torch.randn(S, S, device="cuda").to(torch.bfloat16).view(torch.uint16)
c = torch.empty(S, S, device="cuda", dtype=torch.float32)
f = lambda: g.gemm_bf16_ptrcast_kernel[(32, 32)](a, b, c, S, S, S, S, 1, S, 1, S, 1, BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, num_warps=8, num_stages=3)
print(f"triton ptr {do_bench(f, warmup=25, rep=200):.5f}")
