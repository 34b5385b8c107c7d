/* The multi-GPU MPD-RDME engine (mgpu.c and its mgpu-*.c parts), the paper's spatial
 * decomposition: the lattice split in z-slabs, one per GPU, each driven by a host thread of its
 * own; every step each GPU sweeps its slab and a halo plane each side, then sends its edge planes
 * to its neighbours; a barrier after each step adds up the overflow counts. The stages (mgpu-*.c)
 * differ by how halos travel, whether the copies overlap compute, and whether the split follows
 * the GPUs' speeds. */
#ifndef RD_MGPU_H
#define RD_MGPU_H

#include "../../harness/variant.h"

/* steps a body of the one-GPU graph loop at most (graph_steps): the longest measured (the K
 * series in docs/limits.md, 8 to 64) */
#define RD_GRAPH_STEPS_MAX 64

typedef enum rd_halo_path {
    RD_HALO_STAGED, /* GPU -> a pinned host buffer placed for the receiver -> GPU */
    RD_HALO_PEER,   /* cudaMemcpyPeerAsync to a buffer on the receiver (staged for a pair that
                       cannot peer) */
    RD_HALO_NCCL,   /* ncclSend / ncclRecv straight into the receiver's halo planes */
    RD_HALO_MPI,    /* one process per GPU: MPI_Sendrecv after each step (CUDA-aware or through
                       pinned host planes), MPI collectives for the rest */
} rd_halo_path;

typedef struct rd_mgpu_stage {
    rd_halo_path path;
    int overlap; /* edge reactions and their copies on a second stream beside the interior's */
    int balance; /* the split moves with the GPUs' step times */
    int graph;   /* steps as CUDA graphs (one GPU: a device-side loop over steps); peer path */
    int fused;   /* one GPU only: the z-sweep and the reactions in one kernel (with graph) */
    int one_pass; /* one GPU only: the whole step in one kernel (with graph) */
} rd_mgpu_stage;

int rd_mgpu_setup(sb_env *env, const void *model, void **state, const rd_mgpu_stage *stage);
int rd_mgpu_run(void *state);
int rd_mgpu_output(void *state, void *out);
void rd_mgpu_teardown(void *state);
void rd_mgpu_report(void *state, sb_report *r);

#endif
