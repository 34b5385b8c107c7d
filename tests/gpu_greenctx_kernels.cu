/* Device side of gpu_greenctx: a compute-bound kernel whose time scales with the SMs it gets, and a
 * pattern writer. Launches only; the test orders and times them. */
#include <stddef.h>

#include "cuda/check.h"

#define BURN_THREADS 256

/* Four independent FMA chains per thread: enough independent work per warp that the SMs'
 * FMA units, not latency or memory, bound the time. */
__global__ void __launch_bounds__(BURN_THREADS) burn_kernel(float *out, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x0 = 1e-6f * (float)i, x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f;
    for (int k = 0; k < iters; k++) {
        x0 = fmaf(x0, 0.9999f, 1e-4f);
        x1 = fmaf(x1, 0.9999f, 1e-4f);
        x2 = fmaf(x2, 0.9999f, 1e-4f);
        x3 = fmaf(x3, 0.9999f, 1e-4f);
    }
    out[i] = x0 + x1 + x2 + x3;
}

__global__ void pattern_kernel(unsigned *buf, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        buf[i] = (unsigned)i * 2654435761u ^ 0x5bd1e995u;
}

extern "C" int burn_threads_per_block(void)
{
    return BURN_THREADS;
}

/* Resident blocks of burn_kernel per SM on the current device: one full wave is this times the
 * SM count. */
extern "C" int burn_blocks_per_sm(int *blocks)
{
    SB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, burn_kernel, BURN_THREADS, 0));
    return 0;
}

extern "C" int burn_launch(cudaStream_t stream, float *out, int blocks, int iters)
{
    burn_kernel<<<blocks, BURN_THREADS, 0, stream>>>(out, iters);
    SB_LAUNCHED("burn_kernel");
    return 0;
}

extern "C" int pattern_launch(cudaStream_t stream, unsigned *buf, size_t n)
{
    pattern_kernel<<<1024, 256, 0, stream>>>(buf, n);
    SB_LAUNCHED("pattern_kernel");
    return 0;
}
