/* The generic tile sweeps without reactions, sweep<F, 0 .. 2> (sweep-window.cuh). launch.cu takes
 * them where sweep_quads and the strips do not apply: byte16, or packed32 rows that are not whole
 * 16-byte quads. */
#include "launch.h"
#include "sweep-window.cuh"

template <class F>
static cudaError_t launch(int axis, dim3 grid, const void *in, void *out, const rd_step *a,
                          int plane_lo, cudaStream_t st)
{
    auto k = axis == 0 ? sweep<F, 0> : axis == 1 ? sweep<F, 1> : sweep<F, 2>;
    return sb_launch_kernel(k, grid, BLOCK, 0, a->chained, st, (const typename F::site_t *)in,
                            (typename F::site_t *)out, *a, plane_lo,
                            (const rd_reaction_table *)NULL, (unsigned long long *)NULL);
}

cudaError_t rd_launch_window_sweep(rd_site_format f, int axis, dim3 grid, const void *in,
                                   void *out, const rd_step *a, int plane_lo, cudaStream_t st)
{
    return f == RD_PACKED32 ? launch<packed32>(axis, grid, in, out, a, plane_lo, st)
                            : launch<byte16>(axis, grid, in, out, a, plane_lo, st);
}

template <class F> static int load(void)
{
    cudaFuncAttributes attr;
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep<F, 0>));
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep<F, 1>));
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep<F, 2>));
    return 0;
}

int rd_load_window_sweeps(rd_site_format f)
{
    return f == RD_PACKED32 ? load<packed32>() : load<byte16>();
}
