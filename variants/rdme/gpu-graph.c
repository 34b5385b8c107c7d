/* Stage 9 (beyond the paper): steps as CUDA graphs, on one GPU and on several. On one GPU the
 * step is the body of a device-side while-loop (a conditional graph node): the GPU runs step
 * after step without the host until a particle overflows, a sample is due or the run ends, so
 * the per-step launches and the per-step wait for the overflow count go. On several GPUs each
 * step is two graph launches per GPU (x and y; then z, reactions and the halo copies, which wait
 * on the neighbours' y-sweeps through graph event nodes) instead of a dozen calls, with the
 * per-step barrier of stage 5 kept. Needs peer access between neighbouring GPUs; no balancing. */
#include "mgpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const rd_mgpu_stage stage = {RD_HALO_PEER, 1, 0, 1, 0, 0};
    return rd_mgpu_setup(env, model, state, &stage);
}

const sb_variant_ops rd_gpu_graph_ops = {setup, rd_mgpu_run, rd_mgpu_output, rd_mgpu_teardown,
                                         rd_mgpu_report};
