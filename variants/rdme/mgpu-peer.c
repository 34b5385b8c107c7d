/* Stage 4: halos go GPU to GPU (cudaMemcpyPeerAsync, peer access enabled where the topology
 * allows) straight into the neighbour's halo plane, once the neighbour's y-sweep (the last kernel
 * that reads its halos) is done: no receive buffer, no local copy. A pair that cannot peer falls
 * back to the staged copy of stage 3. */
#include "mgpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const rd_mgpu_stage stage = {RD_HALO_PEER, 0, 0, 0, 0, 0};
    return rd_mgpu_setup(env, model, state, &stage);
}

const sb_variant_ops rd_mgpu_peer_ops = {setup, rd_mgpu_run, rd_mgpu_output, rd_mgpu_teardown,
                                           rd_mgpu_report};
