/* The quad sweeps without reactions, sweep_quads<0 .. 2> (sweep-quads.cuh): launch.cu takes them
 * where packed32 rows are whole 16-byte quads narrower than the strips' STRIP_MIN_NX sites. */
#include "launch.h"
#include "sweep-quads.cuh"

cudaError_t rd_launch_quad_sweep(int axis, dim3 grid, const void *in, void *out, const rd_step *a,
                                 int plane_lo, cudaStream_t st)
{
    auto k = axis == 0 ? sweep_quads<0> : axis == 1 ? sweep_quads<1> : sweep_quads<2>;
    return sb_launch_kernel(k, grid, BLOCK, 0, a->chained, st, (const uint4 *)in, (uint4 *)out,
                            *a, plane_lo, (const rd_reaction_table *)NULL,
                            (unsigned long long *)NULL);
}

int rd_load_quad_sweeps(void)
{
    cudaFuncAttributes attr;
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep_quads<0>));
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep_quads<1>));
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep_quads<2>));
    return 0;
}
