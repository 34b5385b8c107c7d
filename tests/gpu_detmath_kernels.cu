/* Device side of gpu_detmath: the same functions as the host test calls, on the GPU. */
#include "cuda/check.h"
#include "detmath_cases.h"

__global__ void detmath_kernel(const double *u1, const double *u2, int n, double *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        detmath_case(u1, u2, i, out + (size_t)DETMATH_QUANTITIES * i);
}

extern "C" int detmath_on_device(const double *u1, const double *u2, int n, double *out)
{
    double *d_u1, *d_u2, *d_out;
    size_t in_b = (size_t)n * sizeof(double), out_b = DETMATH_QUANTITIES * in_b;
    SB_CUDA(cudaMalloc(&d_u1, in_b));
    SB_CUDA(cudaMalloc(&d_u2, in_b));
    SB_CUDA(cudaMalloc(&d_out, out_b));
    SB_CUDA(cudaMemset(d_out, 0xff, out_b)); /* poison: NaN everywhere */
    SB_CUDA(cudaMemcpy(d_u1, u1, in_b, cudaMemcpyHostToDevice));
    SB_CUDA(cudaMemcpy(d_u2, u2, in_b, cudaMemcpyHostToDevice));
    detmath_kernel<<<(n + 255) / 256, 256>>>(d_u1, d_u2, n, d_out);
    SB_LAUNCHED("detmath_kernel");
    SB_CUDA(cudaMemcpy(out, d_out, out_b, cudaMemcpyDeviceToHost));
    SB_CUDA(cudaFree(d_u1));
    SB_CUDA(cudaFree(d_u2));
    SB_CUDA(cudaFree(d_out));
    return 0;
}
