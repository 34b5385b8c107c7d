/* Device side of gpu_detmath: the same functions as the host test calls, on the GPU. */
#include "cuda/check.h"
#include "variants/procell/fate.h"

__global__ void detmath_kernel(const double *u1, const double *u2, int n, double *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    pc_rules r;
    memset(&r, 0, sizeof r);
    r.seed = 2024;
    r.ntypes = 2;
    r.cum[0] = 0.3;
    r.cum[1] = 1.0;
    r.mean[0] = 44.2;
    r.sd[0] = 19.5;
    r.mean[1] = 83.9;
    r.sd[1] = 26.6;
    out[5 * i + 0] = det_log(u1[i]);
    out[5 * i + 1] = det_cos_2pi(u2[i]);
    out[5 * i + 2] = det_box_muller(u1[i], u2[i]);
    out[5 * i + 3] = pc_division_time(&r, (uint32_t)i, i & 1, PC_DRAW_TIMER, i % 11, (uint64_t)i * 3);
    r.async_start = 1;
    out[5 * i + 4] = pc_start_time(&r, (uint32_t)i, pc_root_type(&r, (uint32_t)i));
}

extern "C" int detmath_on_device(const double *u1, const double *u2, int n, double *out)
{
    double *d_u1, *d_u2, *d_out;
    size_t in_b = (size_t)n * sizeof(double), out_b = 5 * in_b;
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
