/* Stage 2: the overflow list lives in pinned host memory mapped into the device (zero-copy), as
 * the paper has it. Kernels write the entries straight to the host; after a step one tiny kernel
 * publishes the step's count to a mapped host word and zeroes the device count, so the host
 * learns whether anything overflowed without a copy, and the entries need none either. The
 * lattice still makes the round trip when the list is not empty. */
#include "../../cuda/check.h"
#include "../../cuda/base/error.h"
#include "gpu.h"
#include "table.h"

/* Mapped host memory: the count the host reads, and the list the kernels append to. */
typedef struct mapped_list {
    volatile unsigned int *host_count;
    unsigned int *device_view_of_count;
} mapped_list;

__global__ void publish_count(unsigned int *device_count, unsigned int *host_count)
{
    *host_count = *device_count; /* a plain store to host memory: no system-scope atomics */
    *device_count = 0;
}

static int open_channel(rd_gpu *g)
{
    sb_env *env = g->env;
    mapped_list *l = (mapped_list *)calloc(1, sizeof *l);
    if (!l)
        return sb_fail("out of host memory");
    g->channel_state = l;
    g->sink.capacity = rd_overflow_capacity(g->m);
    int rc = sb_dev_alloc(&env->mem, env->devices[0], (void **)&g->sink.count,
                          sizeof(unsigned int), "overflow count");
    if (rc)
        return rc;
    SB_CUDA(cudaHostAlloc((void **)&g->host_entries, (size_t)g->sink.capacity * sizeof(uint64_t),
                          cudaHostAllocMapped));
    SB_CUDA(cudaHostGetDevicePointer((void **)&g->sink.entries, g->host_entries, 0));
    SB_CUDA(cudaHostAlloc((void **)&l->host_count, sizeof(unsigned int), cudaHostAllocMapped));
    SB_CUDA(cudaHostGetDevicePointer((void **)&l->device_view_of_count, (void *)l->host_count, 0));
    *l->host_count = 0;
    SB_CUDA(cudaMemsetAsync(g->sink.count, 0, sizeof(unsigned int), env->streams[0]));
    return 0;
}

static int collect(rd_gpu *g, uint64_t **entries, unsigned int *n)
{
    mapped_list *l = (mapped_list *)g->channel_state;
    cudaStream_t st = g->env->streams[0];
    publish_count<<<1, 1, 0, st>>>(g->sink.count, l->device_view_of_count);
    SB_LAUNCHED("publish_count");
    SB_CUDA(cudaStreamSynchronize(st));
    *n = *l->host_count;
    *entries = g->host_entries;
    return 0;
}

static void close_channel(rd_gpu *g)
{
    mapped_list *l = (mapped_list *)g->channel_state;
    cudaFreeHost(g->host_entries);
    if (l)
        cudaFreeHost((void *)l->host_count);
    free(l);
}

static const rd_overflow_channel mapped_channel = {open_channel, collect, close_channel};

static int setup(sb_env *env, const void *model, void **state)
{
    return rd_gpu_setup(env, model, state, &mapped_channel);
}

const sb_variant_ops rd_gpu_zero_copy_overflow_ops = {setup, rd_gpu_run, rd_gpu_output,
                                                      rd_gpu_teardown, rd_gpu_report};
