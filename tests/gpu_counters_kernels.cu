/* Device side of gpu_counters: a plain copy, whose DRAM traffic is known (n floats read, n
 * written). */
#include <stddef.h>

#include "cuda/check.h"

__global__ void counters_copy_kernel(const float *__restrict__ in, float *__restrict__ out,
                                     size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = in[i];
}

extern "C" int counters_copy_alloc(size_t n, float **in, float **out)
{
    *in = *out = NULL;
    SB_CUDA(cudaMalloc((void **)in, n * sizeof(float)));
    if (cudaMalloc((void **)out, n * sizeof(float)) != cudaSuccess) {
        cudaGetLastError();
        cudaFree(*in);
        *in = NULL;
        return sb_fail("no room for two buffers of %zu MiB on the device",
                       n * sizeof(float) >> 20);
    }
    SB_CUDA(cudaMemset(*in, 0x3f, n * sizeof(float)));
    SB_CUDA(cudaMemset(*out, 0, n * sizeof(float)));
    SB_CUDA(cudaDeviceSynchronize());
    return 0;
}

/* One copy of n floats, launched from the host and waited for. */
extern "C" int counters_copy(const float *in, float *out, size_t n)
{
    size_t blocks = (n + 255) / 256;
    if (blocks > (1u << 20))
        blocks = 1u << 20; /* the loop strides over the rest */
    counters_copy_kernel<<<(unsigned)blocks, 256>>>(in, out, n);
    SB_LAUNCHED("counters_copy_kernel");
    SB_CUDA(cudaDeviceSynchronize());
    return 0;
}

/* 1 when out holds in's pattern at its ends and middle. */
extern "C" int counters_copy_landed(const float *out, size_t n)
{
    size_t at[3] = {0, n / 2, n - 1};
    for (int k = 0; k < 3; k++) {
        unsigned int bits = 0;
        if (cudaMemcpy(&bits, out + at[k], sizeof bits, cudaMemcpyDeviceToHost) != cudaSuccess) {
            cudaGetLastError();
            return 0;
        }
        if (bits != 0x3f3f3f3fu)
            return 0;
    }
    return 1;
}

extern "C" void counters_copy_free(float *in, float *out)
{
    cudaFree(in);
    cudaFree(out);
}
