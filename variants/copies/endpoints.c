#include "endpoints.h"

#include <stdlib.h>
#include <string.h>

#include "../../cuda/check.h"
#include "../../cuda/base/error.h"

int cp_host_alloc(void **ptr, size_t bytes, const char *what)
{
    cudaError_t err = cudaHostAlloc(ptr, bytes, cudaHostAllocPortable);
    if (err == cudaErrorMemoryAllocation) {
        char need[32];
        cudaGetLastError();
        *ptr = NULL;
        sb_fail("needs %s of pinned host memory for %s, and the host could not pin it",
                sb_format_bytes((double)bytes, need, sizeof need), what);
        return SB_REFUSED;
    }
    SB_CUDA(err);
    return 0;
}

int cp_endpoints_open(cp_endpoints *e, sb_env *env, const cp_model *m, int gpus,
                      const char *variant)
{
    memset(e, 0, sizeof *e);
    if (env->ndevices < gpus) {
        sb_fail("%s needs 2 GPUs (it copies from GPU 0 to GPU 1); %d GPU is visible", variant,
                env->ndevices);
        return SB_REFUSED;
    }
    e->env = env;
    e->bytes = m->bytes;
    e->src_dev = env->devices[0];
    e->dst_dev = env->devices[gpus - 1];
    e->src_stream = env->streams[0];
    e->dst_stream = env->streams[gpus - 1];
    int rc;
    if ((rc = cp_host_alloc((void **)&e->h_src, m->bytes, "the payload")) != 0 ||
        (rc = sb_dev_alloc(&env->mem, e->dst_dev, &e->d_dst, m->bytes, "the destination")) != 0)
        return rc;
    cp_payload_fill(e->h_src, m);
    SB_CUDA(cudaSetDevice(e->dst_dev));
    SB_CUDA(cudaMemsetAsync(e->d_dst, 0, m->bytes, e->dst_stream));
    if (gpus == 2) {
        if ((rc = sb_dev_alloc(&env->mem, e->src_dev, &e->d_src, m->bytes, "the payload")) != 0 ||
            sb_copy(&env->xfer, e->d_src, e->h_src, m->bytes, cudaMemcpyHostToDevice,
                    e->src_stream) != 0)
            return rc ? rc : -1;
        SB_CUDA(cudaStreamSynchronize(e->src_stream));
        /* the copies between GPUs start from GPU 0: the host payload is not needed again */
        SB_CUDA(cudaFreeHost(e->h_src));
        e->h_src = NULL;
    }
    SB_CUDA(cudaStreamSynchronize(e->dst_stream));
    SB_CUDA(cudaSetDevice(e->src_dev)); /* the timed GPU current again, as the harness left it */
    return 0;
}

int cp_endpoints_output(void *state, void *out)
{
    cp_endpoints *e = state;
    if (sb_copy(&e->env->xfer, ((cp_output *)out)->data, e->d_dst, e->bytes,
                cudaMemcpyDeviceToHost, e->dst_stream) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(e->dst_stream));
    return 0;
}

void cp_endpoints_close(cp_endpoints *e)
{
    /* the device buffers go with the harness' tracked allocator */
    cudaFreeHost(e->h_src);
}

void cp_endpoints_free(void *state)
{
    if (state)
        cp_endpoints_close(state);
    free(state);
}
