/* The kernels that end a step of a CUDA graph (stages gpu-graph and gpu-fused): step_done closes
 * a body of the one-GPU graph loop, step_advance a step of a graph launched once per step. And
 * whether a step's kernels are chained (rd_chain_if_one_wave). */
#include "launch.h"
#include "common.cuh"

/* The end of a graph body of `steps` steps, of which bounds->runs ran (step_skipped). */
__global__ void step_done(cudaGraphConditionalHandle loop, long long *step, rd_loop_bounds *bounds,
                          const unsigned int *overflow_count, int steps)
{
    sb_await_previous_kernel();
    sb_launch_next_kernel();
    long long now = *step + bounds->runs, left = bounds->stop - now;
    *step = now;
    bounds->runs = left < steps ? (int)left : steps;
    sb_graph_loop_continue(loop, *overflow_count == 0 && left > 0);
}

__global__ void step_advance(long long *step)
{
    *step += 1;
}

static long long blocks_of(dim3 grid)
{
    return (long long)grid.x * grid.y * grid.z;
}

int rd_chain_if_one_wave(rd_site_format f, rd_step *a, int dev)
{
    int sms;
    cudaFuncAttributes kernels;
    SB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    /* the kernels wait only where compiled for sm_90 or later: a build for an older architecture
     * that a Hopper runs from its PTX has no wait, and must not be chained */
    SB_CUDA(cudaFuncGetAttributes(&kernels, step_done));
    int per_sm = f == RD_PACKED32 ? packed32::SWEEP_BLOCKS_PER_SM : byte16::SWEEP_BLOCKS_PER_SM;
    long long wave = (long long)sms * per_sm;
    a->chained = kernels.ptxVersion >= 90 &&
                 blocks_of(sweep_grid<0>(a, a->ny, a->slab.planes)) <= wave &&
                 blocks_of(sweep_grid<1>(a, a->ny, a->slab.planes)) <= wave &&
                 blocks_of(sweep_grid<2>(a, a->slab.planes, a->ny)) <= wave;
    return 0;
}

int rd_graph_step_done(cudaGraphConditionalHandle loop, long long *step, rd_loop_bounds *bounds,
                       const unsigned int *overflow_count, int steps, int chained,
                       cudaStream_t st)
{
    SB_LAUNCH_OK(sb_launch_kernel(step_done, dim3(1), 1, 0, chained, st, loop, step, bounds,
                                  overflow_count, steps),
                 "step_done");
    return 0;
}

int rd_graph_step_advance(long long *step, cudaStream_t st)
{
    step_advance<<<1, 1, 0, st>>>(step);
    SB_LAUNCHED("step_advance");
    return 0;
}

int rd_load_step_graph(void)
{
    cudaFuncAttributes attr;
    SB_CUDA(cudaFuncGetAttributes(&attr, step_done));
    SB_CUDA(cudaFuncGetAttributes(&attr, step_advance));
    return 0;
}
