/* Stage 3 (fig. 4's peered line): GPU 0 to GPU 1 with cudaMemcpyPeerAsync. Where
 * cudaDeviceCanAccessPeer allows it, GPU 0 gets access to GPU 1's memory and the copy goes
 * directly (NVLink or PCIe); elsewhere the driver stages it through the host itself. Peer access
 * stays enabled for the process, as NCCL leaves it too. */
#include <stdlib.h>

#include "../../cuda/check.h"
#include "../../cuda/base/error.h"
#include "endpoints.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    cp_endpoints *e = calloc(1, sizeof *e);
    if (!e)
        return sb_fail("out of host memory");
    *state = e;
    int rc = cp_endpoints_open(e, env, model, 2, "gpu-peer");
    if (rc != 0)
        return rc;
    int can = 0;
    SB_CUDA(cudaDeviceCanAccessPeer(&can, e->src_dev, e->dst_dev));
    if (!can)
        return 0;
    SB_CUDA(cudaSetDevice(e->src_dev));
    cudaError_t err = cudaDeviceEnablePeerAccess(e->dst_dev, 0);
    if (err == cudaErrorPeerAccessAlreadyEnabled)
        cudaGetLastError(); /* by an earlier variant or NCCL in this process */
    else if (err != cudaSuccess)
        return sb_fail("enabling peer access from GPU %d to GPU %d: %s", e->src_dev, e->dst_dev,
                       cudaGetErrorString(err));
    return 0;
}

static int run(void *state)
{
    cp_endpoints *e = state;
    if (sb_copy_peer(&e->env->xfer, e->d_dst, e->dst_dev, e->d_src, e->src_dev, e->bytes,
                     e->src_stream) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(e->src_stream));
    return 0;
}

const sb_variant_ops cp_gpu_peer_ops = {setup, run, cp_endpoints_output, cp_endpoints_free,
                                         NULL};
