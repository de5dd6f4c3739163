// The tensor-core ceiling of `mma.sync` (what NVIDIA's Vulkan driver emits for cooperative
// matrices, `HMMA` in the SASS) on this GPU, beside `wgmma` (Triton's Hopper GEMMs): a loop of
// independent m16n8k16 f16 x f16 -> f32 products on registers, no memory traffic in it.
//
//     nvcc -O3 -arch=sm_90a -o /tmp/mma_peak scripts/gemm_probe/mma_sync_peak.cu && /tmp/mma_peak
//
// It prints TFLOP/s for 4 and 8 warps a block and 8 or 16 accumulators a warp, timed with CUDA
// events after a warm-up launch; the result is checked (1/16 everywhere, exact in f32).
//
// H100 80GB HBM3 (2026-11-28): 4 warps, 8 and 16 accumulators 633.7 and 648.4 TFLOP/s; 8 warps
// 655.3 and 667.9. NVIDIA's Vulkan driver multiplies its cooperative matrices at the same rate
// (runtime/examples/cooperative_matrix_peak.rs: 635-654).
#include <cstdio>
#include <cuda_fp16.h>

template <int ACCS>
__global__ void peak(float *out, int steps, unsigned a_bits) {
    // A (4 registers) and B (2) of f16 pairs, all 1/16; ACCS accumulators of 4 floats.
    unsigned a[4] = {a_bits, a_bits, a_bits, a_bits};
    unsigned b[2] = {a_bits, a_bits};
    float acc[ACCS][4] = {};
    for (int s = 0; s < steps; ++s) {
#pragma unroll
        for (int i = 0; i < ACCS; ++i) {
            asm volatile(
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                : "+f"(acc[i][0]), "+f"(acc[i][1]), "+f"(acc[i][2]), "+f"(acc[i][3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        }
    }
    float sum = 0;
    for (int i = 0; i < ACCS; ++i)
        for (int j = 0; j < 4; ++j) sum += acc[i][j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template <int ACCS>
void run(int warps, int steps, int blocks) {
    float *out;
    int threads = warps * 32;
    cudaMalloc(&out, sizeof(float) * blocks * threads);
    __half sixteenth = __float2half(1.0f / 16.0f);
    unsigned short h = *reinterpret_cast<unsigned short *>(&sixteenth);
    unsigned bits = (unsigned)h | ((unsigned)h << 16);
    peak<ACCS><<<blocks, threads>>>(out, steps, bits);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    const int runs = 20;
    cudaEventRecord(start);
    for (int r = 0; r < runs; ++r) peak<ACCS><<<blocks, threads>>>(out, steps, bits);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    ms /= runs;
    float first = 0;
    cudaMemcpy(&first, out, sizeof(float), cudaMemcpyDeviceToHost);
    // Each product adds 16/256 to each of an accumulator's 4 elements.
    float expected = ACCS * 4 * (steps * 16 / 256.0f);
    double flops = 2.0 * 16 * 8 * 16 * ACCS * (double)steps * warps * blocks;
    printf("mma.sync m16n8k16 f16->f32: %d warps a block, %d accumulators a warp, %d blocks: %.4f ms, "
           "%.1f TFLOP/s%s\n",
           warps, ACCS, blocks, ms, flops / (ms * 1e-3) / 1e12,
           first == expected ? "" : " (WRONG RESULT)");
    cudaFree(out);
}

int main() {
    const int steps = 4096, blocks = 132 * 16;
    for (int warps : {4, 8}) {
        run<8>(warps, steps, blocks);
        run<16>(warps, steps, blocks);
    }
    return 0;
}
