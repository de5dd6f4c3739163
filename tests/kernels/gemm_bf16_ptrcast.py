# compile: --kernel gemm_bf16_ptrcast_kernel --const BLOCK_SIZE_M=64 --const BLOCK_SIZE_N=64 --const BLOCK_SIZE_K=32 --arg a_ptr=*u16 --arg b_ptr=*u16 --arg c_ptr=*fp32 --arg M=192 --arg N=128 --arg K=96 --arg stride_am=96 --arg stride_ak=1 --arg stride_bk=128 --arg stride_bn=1 --arg stride_cm=128 --arg stride_cn=1
"""bf16 GEMM whose operands arrive as raw 16-bit buffers.

The kernel reinterprets its pointers with .to(tl.pointer_type(...)): A and B are
passed as uint16 storage and read as bfloat16, C is read and written as float32.
Program axis 0 walks N tiles and axis 1 walks M tiles.
"""
import triton
import triton.language as tl


@triton.jit
def gemm_bf16_ptrcast_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                             stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                             BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                             BLOCK_SIZE_K: tl.constexpr):
    a_ptr = a_ptr.to(tl.pointer_type(tl.bfloat16))
    b_ptr = b_ptr.to(tl.pointer_type(tl.bfloat16))
    c_ptr = c_ptr.to(tl.pointer_type(tl.float32))
    pid_n = tl.program_id(axis=0)
    pid_m = tl.program_id(axis=1)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for kt in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        k_left = K - kt * BLOCK_SIZE_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
