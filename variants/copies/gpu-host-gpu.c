/* Stage 2 (fig. 4's unpeered line): GPU 0 to a pinned host buffer, then the host buffer to
 * GPU 1, as the paper stages copies between GPUs that cannot peer. Each copy goes on its own
 * GPU's stream, the second waiting on an event after the first: a copy into GPU 1's memory
 * issued on GPU 0's stream would be left to the driver, which may write it over the peer link,
 * and then it would no longer be the staged copy. */
#include <stdlib.h>

#include "../../cuda/check.h"
#include "../../cuda/base/error.h"
#include "endpoints.h"
#include "table.h"

typedef struct staged_copy {
    cp_endpoints e;      /* first: cp_endpoints_output reads it */
    void *h_stage;       /* pinned, portable */
    cudaEvent_t staged;  /* on GPU 0: the payload is in h_stage */
} staged_copy;

static int setup(sb_env *env, const void *model, void **state)
{
    staged_copy *c = calloc(1, sizeof *c);
    if (!c)
        return sb_fail("out of host memory");
    *state = c;
    int rc = cp_endpoints_open(&c->e, env, model, 2, "gpu-host-gpu");
    if (rc != 0 || (rc = cp_host_alloc(&c->h_stage, c->e.bytes, "the staging buffer")) != 0)
        return rc;
    SB_CUDA(cudaSetDevice(c->e.src_dev));
    SB_CUDA(cudaEventCreateWithFlags(&c->staged, cudaEventDisableTiming));
    return 0;
}

static int run(void *state)
{
    staged_copy *c = state;
    cp_endpoints *e = &c->e;
    if (sb_copy(&e->env->xfer, c->h_stage, e->d_src, e->bytes, cudaMemcpyDeviceToHost,
                e->src_stream) != 0)
        return -1;
    SB_CUDA(cudaEventRecord(c->staged, e->src_stream));
    SB_CUDA(cudaStreamWaitEvent(e->dst_stream, c->staged, 0));
    if (sb_copy(&e->env->xfer, e->d_dst, c->h_stage, e->bytes, cudaMemcpyHostToDevice,
                e->dst_stream) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(e->dst_stream));
    return 0;
}

static void teardown(void *state)
{
    staged_copy *c = state;
    if (c->staged)
        cudaEventDestroy(c->staged);
    cudaFreeHost(c->h_stage);
    cp_endpoints_close(&c->e);
    free(c);
}

const sb_variant_ops cp_gpu_host_gpu_ops = {setup, run, cp_endpoints_output, teardown, NULL};
