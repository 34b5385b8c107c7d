/* Stage 6, beyond the thesis: a thread per root walks its tree depth-first with a small stack
 * (walk.h), counting terminal cells into a histogram private to its block, in shared memory.
 * Memory is O(roots + |Omega|): no levels, no child launches, no copies but the histogram, which
 * removes the exponential memory growth the thesis left open (3.2.4). Warps take chunks of 32
 * consecutive roots from a queue, so a warp's roots share a histogram row (similar trees) and the
 * uneven tree sizes balance across the GPU. */
#include <stdlib.h>

#include "../../cuda/check.h"
#include "../../cuda/base/error.h"
#include "subtree.h"
#include "table.h"

#define CHUNK 32

__global__ void __launch_bounds__(PC_BLOCK)
    subtree_kernel(pc_rules rules, pc_tables tab, uint64_t nroots, int ndevices, int rank,
                   unsigned long long *next_chunk, unsigned long long *counts, int nomega,
                   int shared_histogram, pc_device_tally *tally)
{
    extern __shared__ unsigned long long block_counts[];
    __shared__ unsigned long long block_tally[5];
    unsigned long long *hist = shared_histogram ? block_counts : counts;
    pc_block_start(block_counts, nomega, shared_histogram, block_tally);

    pc_tally t = {0, 0, 0, 0};
    int lane = threadIdx.x % 32;
    for (;;) {
        unsigned long long chunk = 0;
        if (lane == 0)
            chunk = atomicAdd(next_chunk, 1ull);
        chunk = __shfl_sync(0xffffffffu, chunk, 0);
        uint64_t first = (chunk * ndevices + rank) * CHUNK;
        if (first >= nroots)
            break;
        if (first + lane < nroots)
            pc_walk_root(&rules, &tab, (uint32_t)(first + lane), hist, &t);
    }
    pc_block_finish(&t, 0, block_tally, block_counts, shared_histogram, counts, nomega, tally);
}

int pc_subtree_prepare(sb_env *env, int device_index, const pc_model *m, pc_subtree_device *d)
{
    int dev = env->devices[device_index], rc;
    d->device_index = device_index;
    if ((rc = pc_tables_upload(env, device_index, m, &d->tab)) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&d->counts,
                           (size_t)m->nomega * sizeof *d->counts, "histogram")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&d->tally, sizeof *d->tally, "tally")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&d->next_chunk, sizeof *d->next_chunk,
                           "work queue")))
        return rc;
    /* Privatize the histogram in shared memory when it fits beside a few blocks per SM. */
    int optin = 0, sms = 0, per_sm = 0;
    SB_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    SB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    size_t bytes = (size_t)m->nomega * sizeof(unsigned long long);
    d->shared_bytes = bytes <= (size_t)optin / 2 ? bytes : 0;
    SB_CUDA(cudaFuncSetAttribute(subtree_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)d->shared_bytes));
    SB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, subtree_kernel, PC_BLOCK,
                                                          d->shared_bytes));
    if (per_sm < 1)
        return sb_fail("subtree_kernel cannot run on device %d with %zu bytes of shared memory",
                       dev, d->shared_bytes);
    double percent = sb_param_num(env->params, "grid_percent");
    d->blocks = (int)(sms * per_sm * (percent > 0 ? percent : 100) / 100);
    d->blocks = d->blocks > 0 ? d->blocks : 1;
    return 0;
}

int pc_subtree_launch(sb_env *env, const pc_model *m, pc_subtree_device *d, int ndevices,
                      int rank)
{
    cudaStream_t st = env->streams[d->device_index];
    SB_CUDA(cudaSetDevice(env->devices[d->device_index]));
    SB_CUDA(cudaMemsetAsync(d->counts, 0, (size_t)m->nomega * sizeof *d->counts, st));
    SB_CUDA(cudaMemsetAsync(d->tally, 0, sizeof *d->tally, st));
    if (d->split) /* its blocks take their own roots */
        return pc_split_launch(env, m, d);
    /* the next chunk of roots */
    SB_CUDA(cudaMemsetAsync(d->next_chunk, 0, sizeof *d->next_chunk, st));
    subtree_kernel<<<d->blocks, PC_BLOCK, d->shared_bytes, st>>>(
        m->rules, d->tab.view, m->nroots, ndevices, rank, d->next_chunk, d->counts, m->nomega,
        d->shared_bytes > 0, d->tally);
    SB_LAUNCHED("subtree_kernel");
    return 0;
}

int pc_subtree_fetch(sb_env *env, const pc_model *m, pc_subtree_device *d,
                     unsigned long long *counts, pc_device_tally *tally)
{
    cudaStream_t st = env->streams[d->device_index];
    if (sb_copy(&env->xfer, counts, d->counts, (size_t)m->nomega * sizeof *counts,
                cudaMemcpyDeviceToHost, st) ||
        sb_copy(&env->xfer, tally, d->tally, sizeof *tally, cudaMemcpyDeviceToHost, st))
        return -1;
    return 0;
}

typedef struct subtree_state {
    sb_env *env;
    const pc_model *m;
    pc_subtree_device dev;
    pc_output result;
} subtree_state;

int pc_subtree_setup(sb_env *env, const void *model, void **state, int split)
{
    subtree_state *s = (subtree_state *)calloc(1, sizeof *s);
    if (!s)
        return sb_fail("out of host memory");
    *state = s;
    s->env = env;
    s->m = (const pc_model *)model;
    int rc = pc_output_init(&s->result, s->m);
    if (!rc)
        rc = pc_subtree_prepare(env, 0, s->m, &s->dev);
    return rc || !split ? rc : pc_split_prepare(env, s->m, &s->dev);
}

static int setup(sb_env *env, const void *model, void **state)
{
    return pc_subtree_setup(env, model, state, 0);
}

int pc_subtree_run(void *state)
{
    subtree_state *s = (subtree_state *)state;
    pc_device_tally tally;
    int rc;
    if ((rc = pc_subtree_launch(s->env, s->m, &s->dev, 1, 0)) ||
        (rc = pc_subtree_fetch(s->env, s->m, &s->dev, s->result.counts, &tally)))
        return rc;
    SB_CUDA(cudaStreamSynchronize(s->env->streams[0]));
    if ((rc = pc_check_tally(&tally)))
        return rc;
    s->result.divisions = tally.divisions;
    s->result.terminal = tally.terminal;
    s->result.vanished = tally.vanished;
    return 0;
}

int pc_subtree_output(void *state, void *out)
{
    pc_output_copy((pc_output *)out, &((subtree_state *)state)->result);
    return 0;
}

void pc_subtree_teardown(void *state)
{
    subtree_state *s = (subtree_state *)state;
    pc_output_free(&s->result);
    free(s);
}

void pc_subtree_report(void *state, sb_report *r)
{
    (void)state;
    r->host_launches = 1;
}

const sb_variant_ops pc_subtree_dfs_ops = {setup, pc_subtree_run, pc_subtree_output,
                                           pc_subtree_teardown, pc_subtree_report};
