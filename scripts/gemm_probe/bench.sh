#!/bin/bash
# usage: bench.sh TRIDENT DATA CASE  -> prints "CASE median_ms"
T=$1; D=$2; C=$3; K=${CORPUS:-.carry/corpus}/kernels
S="--arg M=4096 --arg N=4096 --arg K=${KK:-4096} --arg stride_am=4096 --arg stride_ak=1 --arg stride_bk=4096 --arg stride_bn=1 --arg stride_cm=4096 --arg stride_cn=1"
MM="--num-warps 8 --num-stages 3 --const BLOCK_M=128 --const BLOCK_N=256 --const BLOCK_K=64 --const GROUP_M=8"
case $C in
f16) A="$K/matmul.py --kernel matmul_kernel --grid 512 $MM --const IEEE=False --arg a_ptr=@$D/a16.npy --arg b_ptr=@$D/b16.npy --arg c_ptr=@$D/c16.npy";;
bf16) A="$K/matmul.py --kernel matmul_kernel --grid 512 $MM --const IEEE=False --arg a_ptr=@$D/abf.npy:bf16 --arg b_ptr=@$D/bbf.npy:bf16 --arg c_ptr=@$D/cbf.npy:bf16";;
pers) A="$K/matmul.py --kernel matmul_persistent_kernel --grid 132 $MM --arg a_ptr=@$D/a16.npy --arg b_ptr=@$D/b16.npy --arg c_ptr=@$D/c16.npy";;
ptr) A="$K/gemm_bf16_ptrcast.py --kernel gemm_bf16_ptrcast_kernel --grid 32,32 --num-warps 8 --num-stages 3 --const BLOCK_SIZE_M=128 --const BLOCK_SIZE_N=128 --const BLOCK_SIZE_K=64 --arg a_ptr=@$D/abf.npy --arg b_ptr=@$D/bbf.npy --arg c_ptr=@$D/c32.npy";;
esac
r=$($T bench --backend nvptx $A $S 2>&1 | grep BENCH | tail -1)
echo "$C ${TRIDENT_EXP:-base} $r"
