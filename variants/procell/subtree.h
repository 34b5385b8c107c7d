/* The subtree-dfs kernel on one device, shared by subtree-dfs (one GPU) and multi-gpu (a device
 * rank among several: the same kernel takes every ndevices-th chunk of roots), and split-trees,
 * which walks the same trees but hands pending cells to waiting threads of its block. */
#ifndef PC_SUBTREE_H
#define PC_SUBTREE_H

#include "device.h"

typedef struct pc_subtree_device {
    int device_index; /* in env->devices */
    pc_device_tables tab;
    unsigned long long *counts;     /* nomega bins */
    pc_device_tally *tally;
    unsigned long long *next_chunk; /* work queue (subtree-dfs) */
    int blocks;
    size_t shared_bytes;            /* 0: the histogram is counted in global memory */
    int split;                      /* split-trees: its kernel, not subtree-dfs's */
    int look_every, wait_ns;        /* split-trees: split_look_every, split_wait_ns */
} pc_subtree_device;

int pc_subtree_prepare(sb_env *env, int device_index, const pc_model *m, pc_subtree_device *d);
/* Zeroes the histogram and launches; asynchronous on the device's stream. */
int pc_subtree_launch(sb_env *env, const pc_model *m, pc_subtree_device *d, int ndevices,
                      int rank);
/* Copies the histogram and tally back (asynchronous; synchronize the device's stream). */
int pc_subtree_fetch(sb_env *env, const pc_model *m, pc_subtree_device *d,
                     unsigned long long *counts, pc_device_tally *tally);

#ifdef __CUDACC__
/* What both kernels do around their walks: a block's histogram in shared memory where it fits
 * (else `counts` itself) and its tally, zeroed first, added to the device's at the end. */
static __device__ inline void pc_block_start(unsigned long long *block_counts, int nomega,
                                             int shared_histogram,
                                             unsigned long long block_tally[5])
{
    if (shared_histogram)
        for (int i = threadIdx.x; i < nomega; i += blockDim.x)
            block_counts[i] = 0;
    if (threadIdx.x < 5)
        block_tally[threadIdx.x] = 0;
    __syncthreads();
}

static __device__ inline void pc_block_finish(const pc_tally *t, unsigned long long gave_up,
                                              unsigned long long block_tally[5],
                                              const unsigned long long *block_counts,
                                              int shared_histogram, unsigned long long *counts,
                                              int nomega, pc_device_tally *tally)
{
    atomicAdd(&block_tally[0], t->divisions);
    atomicAdd(&block_tally[1], t->terminal);
    atomicAdd(&block_tally[2], t->vanished);
    atomicAdd(&block_tally[3], t->too_deep);
    atomicAdd(&block_tally[4], gave_up);
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(&tally->divisions, block_tally[0]);
        atomicAdd(&tally->terminal, block_tally[1]);
        atomicAdd(&tally->vanished, block_tally[2]);
        atomicAdd(&tally->too_deep, block_tally[3]);
        atomicAdd(&tally->gave_up, block_tally[4]);
    }
    if (shared_histogram)
        for (int i = threadIdx.x; i < nomega; i += blockDim.x)
            if (block_counts[i])
                atomicAdd(&counts[i], block_counts[i]);
}
#endif

/* split-trees (split-trees.cu): its settings after the tables, and its launch, which
 * pc_subtree_launch makes for a device set up for it. */
int pc_split_prepare(sb_env *env, const pc_model *m, pc_subtree_device *d);
int pc_split_launch(sb_env *env, const pc_model *m, pc_subtree_device *d);

/* One GPU's run of either kernel as a variant: subtree-dfs's operations, or split-trees' (split
 * 1). */
int pc_subtree_setup(sb_env *env, const void *model, void **state, int split);
int pc_subtree_run(void *state);
int pc_subtree_output(void *state, void *out);
void pc_subtree_teardown(void *state);
void pc_subtree_report(void *state, sb_report *r);

#endif
