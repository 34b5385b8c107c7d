/* Stage 1 (fig. 4's host-to-GPU line): the payload from pinned host memory to GPU 0, one
 * cudaMemcpyAsync, waited for. */
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
    return cp_endpoints_open(e, env, model, 1, "host-to-gpu");
}

static int run(void *state)
{
    cp_endpoints *e = state;
    if (sb_copy(&e->env->xfer, e->d_dst, e->h_src, e->bytes, cudaMemcpyHostToDevice,
                e->src_stream) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(e->src_stream));
    return 0;
}

const sb_variant_ops cp_host_to_gpu_ops = {setup, run, cp_endpoints_output, cp_endpoints_free,
                                         NULL};
