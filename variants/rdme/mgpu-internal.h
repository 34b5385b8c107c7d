/* What the multi-GPU engine's files share (mgpu.c lists them): the team of workers, one per
 * slab, and the functions one file calls in another. Not for the stages (mgpu.h is theirs). */
#ifndef RD_MGPU_INTERNAL_H
#define RD_MGPU_INTERNAL_H

#include "mgpu.h"

#include <ctype.h>
#include <mpi.h>
#include "../../cuda/nccl.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/check.h"
#include "../../cuda/greenctx.h"
#include "../../cuda/graphloop.h"
#include "../../cuda/timing.h"
#include "../../cuda/base/error.h"
#include "../../harness/lockstep.h"
#include "kernels.h"
#include "model.h"
#include "partition.h"

#define RD_INSTRUMENTED_STEPS 1000 /* steps of the first run whose work is timed by events */
#define RD_MGPU_MAX_RUNS 4096
#define SB_NCCL(call)                                                                              \
    do {                                                                                           \
        ncclResult_t r_ = (call);                                                                  \
        if (r_ != ncclSuccess)                                                                     \
            return sb_fail("%s:%d: %s failed: %s", __FILE__, __LINE__, #call,                      \
                           ncclGetErrorString(r_));                                                \
    } while (0)

enum { BELOW, ABOVE };
/* events of a step: EV_Y_DONE orders the neighbours' copies into this GPU's halo planes, the
 * EV_WORK pair times the GPU's work for the balancer, EV_Z and EV_OUT1 fork and join the second
 * stream when the exchange overlaps; the others are recorded on worker 0's GPU in an instrumented
 * step */
enum { EV_Y_DONE, EV_WORK0, EV_WORK1, EV_HALO_IN0, EV_HALO_IN1, EV_STEP, EV_X, EV_Y, EV_Z,
       EV_EDGES, EV_OUT0, EV_COPIES, EV_OUT1, EV_REACT, EV_COUNT };

/* A sense-counting spin barrier that adds up one number per thread. The threads spin: each is
 * already spinning in cudaStreamSynchronize, and a sleep would add its wake-up to every step. */
typedef struct team_barrier {
    int n;
    atomic_int arrived, phase, failed;
    atomic_ullong sum[2];
} team_barrier;

typedef struct rd_mgpu rd_mgpu;

typedef struct worker {
    rd_mgpu *team;
    int index, dev;
    cudaStream_t st[2]; /* compute; exchange (the same as compute unless the stage overlaps) */
    cudaEvent_t ev[EV_COUNT];
    rd_slab slab;       /* now */
    rd_slab types_slab; /* the slab d_types was loaded for */
    int neighbour[2];   /* slab below and above; -1 at a reflecting edge or alone */
    void *d_init, *d_lat[3]; /* the third: graphs, whose steps end where they start */
    uint8_t *d_types;
    uint32_t *d_threshold, *d_planes;
    rd_reaction_table *d_reactions;
    unsigned long long *d_fired, *h_fired;
    rd_overflow_sink sink;
    unsigned int *h_count;
    uint64_t *h_entries;
    uint32_t *h_planes;
    void *recv[2][2];  /* staged sides: [side][step parity], the plane a neighbour sends (mpi
                          without CUDA-aware transfers: [side][0], filled by mgpu_mpi_exchange) */
    int recv_host[2];  /* that side's plane comes through pinned host memory (else the neighbour
                          writes the halo plane itself, GPU to GPU) */
    atomic_llong y_step; /* the step whose y-sweep EV_Y_DONE marks */
    int halos_fresh;   /* halos already hold the step's planes (after a host round trip) */
    ncclComm_t comm;
    /* graphs: one GPU, a while-loop over whole steps; several, [0] x and y, [1] the rest */
    sb_graph_loop loop;
    cudaGraph_t graph[2];
    cudaGraphExec_t exec[2];
    long long *d_step, *h_step;          /* the step count the kernels read */
    rd_loop_bounds *d_bounds, *h_bounds; /* one GPU: where the loop stops */
    int body_steps;                      /* one GPU: steps in the loop's body */
    /* one GPU, gpu-fused where rd_react_ahead_applies: reactions fired by the x-sweeps a step
     * late, a slot a body step (rd_react_last adds them up) */
    unsigned long long *d_ahead;
    sb_sm_limit limit; /* handicap=: the compute stream on part of the SMs */
    sb_transfers xfer;
    double busy;       /* seconds this batch of the GPU's own work (events around it) */
    int rc;
    char err[512];
} worker;

struct rd_mgpu {
    sb_env *env;
    const rd_model *m;
    rd_mgpu_stage stage;
    int nslabs, ngpus;
    rd_partition initial, part;
    int cap[RD_MAX_SLABS];
    worker w[RD_MAX_SLABS];
    size_t plane_sites, plane_bytes, planes_bytes;
    void *h_lattice;   /* pinned: the whole lattice, for overflow, rebalancing and the output */
    uint64_t *entries; /* every GPU's overflow entries of a step */
    team_barrier bar;
    /* mpi: one process per slab; this one drives slab `lead`, the others' workers stay closed */
    int mpi, cuda_aware;
    int lead;            /* the worker that times the loop (threads: 0; mpi: this rank's) */
    int local_rank;      /* mpi: this process's rank among those on its host */
    MPI_Datatype plane_type;
    void *send[2];       /* mpi without CUDA-aware transfers: pinned edge planes */
    double seconds[RD_MAX_SLABS]; /* batch-averaged step time per GPU */
    long long balance_steps;
    int graph_steps;     /* steps in the body of the one-GPU graph loop (0: the default) */
    /* passes over the lattice a step by design: 4 (three sweeps and the reactions), fewer for
     * gpu-fused, set where its graph is built */
    double passes;
    double balance_threshold;
    int moved;
    /* the run */
    int runs, instrument;
    double loop_seconds[RD_MGPU_MAX_RUNS], loop_start;
    sb_phases phases;
    uint64_t overflow_particles, reactions_fired;
    sb_series split;
    int split_stride;
};

/* mgpu-team.c: the host threads and their barrier */
int mgpu_host_alloc_near(int dev, void **ptr, size_t bytes);
int mgpu_team_sum(rd_mgpu *t, unsigned long long value, unsigned long long *total);
int mgpu_team_barrier_wait(rd_mgpu *t);
int mgpu_run_threads(rd_mgpu *t);

/* mgpu-run.c: a step, and a worker's run */
rd_step mgpu_step_of(const worker *w, long long step);
int mgpu_count_sample(worker *w, const void *lattice, int sample);
int mgpu_simulate(worker *w);

/* mgpu-host-lattice.c: planes between a GPU's buffer and the whole lattice on the host */
int mgpu_copy_planes(worker *w, void *buffer, void *host, size_t plane_bytes, rd_slab s, int p0,
                     int p1, enum cudaMemcpyKind kind);
int mgpu_upload_slab(worker *w, void *buffer);
int mgpu_download_own(worker *w, void *buffer);
int mgpu_resolve_overflow(worker *w, int cur);

/* mgpu-halos.c: the halo planes between GPUs (staged, peer, NCCL) */
char *mgpu_plane_at(const rd_mgpu *t, void *buffer, int p);
int mgpu_halos_out(worker *w, int out, long long step, int instrumented);
int mgpu_halos_in(worker *w, void *buffer, long long step);
int mgpu_open_receive_buffers(rd_mgpu *t, worker *w);
int mgpu_open_nccl(rd_mgpu *t);

/* mgpu-mpi.c: one process per slab */
int mgpu_mpi_open(rd_mgpu *t);
int mgpu_mpi_open_buffers(rd_mgpu *t);
int mgpu_mpi_gather_lattice(rd_mgpu *t);
int mgpu_mpi_gather_entries(worker *w, size_t *total);
int mgpu_mpi_exchange(worker *w, void *buffer);

/* mgpu-rebalance.c: the balancer */
void mgpu_record_split(rd_mgpu *t, long long steps_done);
int mgpu_rebalance(worker *w, int cur, long long steps_done);

/* mgpu-graphs.c: steps as CUDA graphs */
int mgpu_capture_graphs(worker *w);
int mgpu_simulate_graphs(worker *w, int *sample);

#endif
