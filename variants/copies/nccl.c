/* Stage 4 (beyond the paper, in place of its MPI_Send/MPI_Recv line): ncclSend on GPU 0 and
 * ncclRecv on GPU 1, one communicator per GPU from ncclCommInitAll in this one process. One
 * thread drives both ranks, so both calls go in one group, as NCCL requires: alone, either call
 * may wait for the other rank's, which this thread has not issued yet. NCCL picks the path
 * (NVLink, PCIe peer, or through the host). */
#include "../../cuda/nccl.h"
#include <stdlib.h>

#include "../../cuda/check.h"
#include "../../cuda/base/error.h"
#include "endpoints.h"
#include "table.h"

typedef struct nccl_copy {
    cp_endpoints e; /* first: cp_endpoints_output reads it */
    ncclComm_t comm[2];
} nccl_copy;

static int setup(sb_env *env, const void *model, void **state)
{
    nccl_copy *c = calloc(1, sizeof *c);
    if (!c)
        return sb_fail("out of host memory");
    *state = c;
    int rc = cp_endpoints_open(&c->e, env, model, 2, "nccl");
    if (rc != 0)
        return rc;
    int devs[2] = {c->e.src_dev, c->e.dst_dev};
    ncclResult_t r = ncclCommInitAll(c->comm, 2, devs);
    if (r != ncclSuccess)
        return sb_fail("%s:%d: ncclCommInitAll over GPUs %d and %d failed: %s", __FILE__,
                       __LINE__, devs[0], devs[1], ncclGetErrorString(r));
    SB_CUDA(cudaSetDevice(c->e.src_dev));
    return 0;
}

static ncclResult_t send_recv(nccl_copy *c)
{
    cp_endpoints *e = &c->e;
    ncclResult_t r = ncclSend(e->d_src, e->bytes, ncclUint8, 1, c->comm[0], e->src_stream);
    return r != ncclSuccess ? r
                            : ncclRecv(e->d_dst, e->bytes, ncclUint8, 0, c->comm[1], e->dst_stream);
}

static int run(void *state)
{
    nccl_copy *c = state;
    cp_endpoints *e = &c->e;
    ncclResult_t r = ncclGroupStart();
    if (r == ncclSuccess) {
        r = send_recv(c);
        ncclResult_t ended = ncclGroupEnd(); /* closed even when a call failed */
        if (r == ncclSuccess)
            r = ended;
    }
    if (r != ncclSuccess)
        return sb_fail("%s:%d: ncclSend/ncclRecv of %zu bytes from GPU %d to GPU %d failed: %s",
                       __FILE__, __LINE__, e->bytes, e->src_dev, e->dst_dev,
                       ncclGetErrorString(r));
    /* GPU to GPU, as a peer copy would be; CUPTI does not see it (NCCL copies in kernels) */
    e->env->xfer.peer += e->bytes;
    SB_CUDA(cudaStreamSynchronize(e->src_stream));
    SB_CUDA(cudaStreamSynchronize(e->dst_stream));
    return 0;
}

static void teardown(void *state)
{
    nccl_copy *c = state;
    for (int i = 0; i < 2; i++)
        if (c->comm[i])
            ncclCommDestroy(c->comm[i]);
    cp_endpoints_close(&c->e);
    free(c);
}

const sb_variant_ops cp_nccl_ops = {setup, run, cp_endpoints_output, teardown, NULL};
