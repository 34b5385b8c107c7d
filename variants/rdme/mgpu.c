/* The multi-GPU MPD-RDME engine (mgpu.h).
 *
 * Slab i of the partition lives on GPU i (or GPU i mod gpus when the slabs= parameter asks for more
 * slabs than GPUs, which tests use to check a decomposition on a small machine). Its buffers hold
 * its own planes and one halo plane each side (kernels.h). A step, per GPU:
 *   sweeps     x and y over own and halo planes (the halo planes redo the neighbour's work with the
 *              same draws), z over own planes, reading the halos;
 *   reactions  own planes;
 *   halos out  the first and last own planes go into the neighbours' halo planes: peer copies or
 *              NCCL straight there (a peer copy waits on an event for the neighbour's y-sweep, the
 *              last kernel reading them), or through host buffers the receiver copies in before
 *              its next step (staged; the buffers alternate with the step's parity, as the
 *              receiver may still read the last ones);
 *   barrier    the host waits for its GPU, then for the other threads, adding up overflow counts.
 * One halo plane suffices: x and y move nothing across planes, and the z-sweep of an own plane
 * reads only the planes next to it.
 *
 * Overflow and rebalancing go through the host: every GPU sends its own planes to one lattice in
 * pinned memory, one thread places the particles (or splits the planes anew), every GPU takes its
 * buffer planes back, halos included. */
#define _GNU_SOURCE /* CPU affinity */
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
                          without CUDA-aware transfers: [side][0], filled by mpi_exchange) */
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

/* ---- where host threads and host buffers go ---- */

/* The CPUs next to a GPU (its PCI device's local_cpulist); 0 when the system does not say. */
static int gpu_cpus(int dev, cpu_set_t *set)
{
    char bus[32], path[96], list[1024];
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    for (char *c = bus; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/local_cpulist", bus);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int ok = fgets(list, sizeof list, f) != NULL;
    fclose(f);
    CPU_ZERO(set);
    for (char *s = list; ok && *s && *s != '\n';) { /* "0-15,32-47" */
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s)
            break;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long cpu = a; cpu <= b && cpu < CPU_SETSIZE; cpu++)
            CPU_SET((int)cpu, set);
        s = *end == ',' ? end + 1 : end;
    }
    return ok && CPU_COUNT(set) > 0;
}

/* Pinned host memory on the NUMA node of GPU `dev`: allocated (and so first touched) by this
 * thread while it runs on that GPU's CPUs. */
static int host_alloc_near(int dev, void **ptr, size_t bytes)
{
    cpu_set_t near, saved;
    int moved = gpu_cpus(dev, &near) && sched_getaffinity(0, sizeof saved, &saved) == 0 &&
                sched_setaffinity(0, sizeof near, &near) == 0;
    cudaError_t e = cudaMallocHost(ptr, bytes);
    if (moved)
        sched_setaffinity(0, sizeof saved, &saved);
    if (e != cudaSuccess)
        return sb_fail("cudaMallocHost of %zu bytes near GPU %d: %s", bytes, dev,
                       cudaGetErrorString(e));
    return 0;
}

/* ---- the barrier ---- */

static int barrier_sum(team_barrier *b, unsigned long long value, unsigned long long *total)
{
    int phase = atomic_load(&b->phase);
    atomic_fetch_add(&b->sum[phase & 1], value);
    if (atomic_fetch_add(&b->arrived, 1) == b->n - 1) {
        atomic_store(&b->sum[(phase + 1) & 1], 0);
        atomic_store(&b->arrived, 0);
        atomic_store(&b->phase, phase + 1);
    } else
        for (unsigned spins = 1; atomic_load(&b->phase) == phase; spins++) {
            if (atomic_load(&b->failed))
                return sb_fail("stopped: another GPU failed");
            if (spins % 4096 == 0)
                sched_yield();
        }
    if (total)
        *total = atomic_load(&b->sum[phase & 1]);
    return atomic_load(&b->failed) ? sb_fail("stopped: another GPU failed") : 0;
}

/* The team's per-step meeting: the threads' barrier, or the processes' allreduce. */
static int team_sum(rd_mgpu *t, unsigned long long value, unsigned long long *total)
{
    if (!t->mpi)
        return barrier_sum(&t->bar, value, total);
    unsigned long long sum = 0;
    SB_MPI(MPI_Allreduce(&value, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (total)
        *total = sum;
    return 0;
}

static int team_barrier_wait(rd_mgpu *t)
{
    return team_sum(t, 0, NULL);
}

/* ---- planes between a buffer and a whole lattice on the host ---- */

/* Buffer planes p0 .. p1 - 1 of slab s: the lattice planes they hold (wrapped), in runs. kind:
 * cudaMemcpyHostToDevice fills the buffer from the host lattice, DeviceToHost the reverse. */
static int copy_planes(worker *w, void *buffer, void *host, size_t plane_bytes, rd_slab s, int p0,
                       int p1, enum cudaMemcpyKind kind)
{
    const rd_model *m = w->team->m;
    for (int p = p0; p < p1; p++) {
        int z = s.z0 - s.halo + p;
        if (z < 0 || z >= m->nz) {
            if (!m->periodic)
                continue; /* a halo beyond a reflecting edge: never read */
            z = (z + m->nz) % m->nz;
        }
        /* as many planes as follow on in both */
        int run = 1;
        while (p + run < p1 && z + run < m->nz && s.z0 - s.halo + p + run == z + run)
            run++;
        char *b = (char *)buffer + (size_t)p * plane_bytes, *h = (char *)host + (size_t)z * plane_bytes;
        if (sb_copy(&w->xfer, kind == cudaMemcpyHostToDevice ? (void *)b : (void *)h,
                    kind == cudaMemcpyHostToDevice ? (void *)h : (void *)b,
                    (size_t)run * plane_bytes, kind, w->st[0]) != 0)
            return -1;
        p += run - 1;
    }
    return 0;
}

/* The whole buffer of the current slab, halos included, from the team's host lattice. */
static int upload_slab(worker *w, void *buffer)
{
    rd_mgpu *t = w->team;
    if (copy_planes(w, buffer, t->h_lattice, t->plane_bytes, w->slab, 0,
                    w->slab.planes + 2 * w->slab.halo, cudaMemcpyHostToDevice) != 0)
        return -1;
    if (t->m->format == RD_BYTE16 && memcmp(&w->types_slab, &w->slab, sizeof w->slab) != 0) {
        if (copy_planes(w, w->d_types, t->m->types, t->plane_sites, w->slab, 0,
                        w->slab.planes + 2 * w->slab.halo, cudaMemcpyHostToDevice) != 0)
            return -1;
        w->types_slab = w->slab;
    }
    w->halos_fresh = 1;
    return 0;
}

/* The own planes of a buffer into the team's host lattice. */
static int download_own(worker *w, void *buffer)
{
    rd_mgpu *t = w->team;
    return copy_planes(w, buffer, t->h_lattice, t->plane_bytes, w->slab, w->slab.halo,
                       w->slab.halo + w->slab.planes, cudaMemcpyDeviceToHost);
}

static int sync_streams(worker *w)
{
    SB_CUDA(cudaStreamSynchronize(w->st[0]));
    if (w->st[1] != w->st[0])
        SB_CUDA(cudaStreamSynchronize(w->st[1]));
    return 0;
}

/* ---- halos ---- */

static char *plane_at(const rd_mgpu *t, void *buffer, int p)
{
    return (char *)buffer + (size_t)p * t->plane_bytes;
}

/* Waits until neighbour n has recorded its y-sweep of `step`; then stream st waits for that
 * sweep on the GPU: from then on nothing reads or writes n's halo planes until its next step. */
static int after_neighbour_y(worker *n, long long step, cudaStream_t st)
{
    rd_mgpu *t = n->team;
    for (unsigned spins = 1; atomic_load(&n->y_step) < step; spins++) {
        if (atomic_load(&t->bar.failed))
            return sb_fail("stopped: another GPU failed");
        if (spins % 4096 == 0)
            sched_yield();
    }
    SB_CUDA(cudaStreamWaitEvent(st, n->ev[EV_Y_DONE], 0));
    return 0;
}

/* The edge planes of buffer d_lat[out] to the neighbours after step `step`: straight into their
 * halo planes (peer copies, NCCL), or into their receive buffers in host memory (staged). */
static int halos_out(worker *w, int out, long long step, int instrumented)
{
    rd_mgpu *t = w->team;
    cudaStream_t st = w->st[1];
    void *buffer = w->d_lat[out];
    int first = w->slab.halo, last = w->slab.halo + w->slab.planes - 1;
    if (t->stage.path == RD_HALO_NCCL) {
        if (instrumented) /* NCCL's meeting with the neighbours is inside its copies */
            SB_CUDA(cudaEventRecord(w->ev[EV_COPIES], st));
        /* Their receives are on their streams, after their own reactions. Sends to a neighbour
         * in the order it receives from this one (it matters when both neighbours are the same
         * GPU: two slabs, periodic). */
        SB_NCCL(ncclGroupStart());
        if (w->neighbour[ABOVE] >= 0)
            SB_NCCL(ncclSend(plane_at(t, buffer, last), t->plane_bytes, ncclUint8,
                             w->neighbour[ABOVE], w->comm, st));
        if (w->neighbour[BELOW] >= 0) {
            SB_NCCL(ncclRecv(plane_at(t, buffer, 0), t->plane_bytes, ncclUint8,
                             w->neighbour[BELOW], w->comm, st));
            SB_NCCL(ncclSend(plane_at(t, buffer, first), t->plane_bytes, ncclUint8,
                             w->neighbour[BELOW], w->comm, st));
        }
        if (w->neighbour[ABOVE] >= 0)
            SB_NCCL(ncclRecv(plane_at(t, buffer, last + 1), t->plane_bytes, ncclUint8,
                             w->neighbour[ABOVE], w->comm, st));
        SB_NCCL(ncclGroupEnd());
        w->xfer.peer += (uint64_t)t->plane_bytes *
                        ((w->neighbour[ABOVE] >= 0) + (w->neighbour[BELOW] >= 0));
        return 0;
    }
    /* the waits for the neighbours first, then the copies: an instrumented step times them
     * apart (EV_COPIES) */
    for (int side = BELOW; side <= ABOVE; side++) {
        int n = w->neighbour[side], their_side = side == BELOW ? ABOVE : BELOW;
        if (n >= 0 && !t->w[n].recv_host[their_side] && after_neighbour_y(&t->w[n], step, st) != 0)
            return -1;
    }
    if (instrumented)
        SB_CUDA(cudaEventRecord(w->ev[EV_COPIES], st));
    for (int side = BELOW; side <= ABOVE; side++) {
        if (w->neighbour[side] < 0)
            continue;
        worker *to = &t->w[w->neighbour[side]];
        /* my first plane is the halo above of the slab below, my last the halo below of the one
         * above */
        int their_side = side == BELOW ? ABOVE : BELOW;
        const void *src = plane_at(t, buffer, side == BELOW ? first : last);
        /* through host memory, or into the halo plane of the neighbour's buffer that holds this
         * step's result */
        int rc = to->recv_host[their_side]
                     ? sb_copy(&w->xfer, to->recv[their_side][step & 1], src, t->plane_bytes,
                               cudaMemcpyDeviceToHost, st)
                     : sb_copy_peer(&w->xfer,
                                    plane_at(t, to->d_lat[out],
                                             their_side == BELOW ? 0 : to->slab.planes + 1),
                                    to->dev, src, w->dev, t->plane_bytes, st);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* The planes that came through host memory after step `step` into the halo planes of `buffer`. */
static int halos_in(worker *w, void *buffer, long long step)
{
    rd_mgpu *t = w->team;
    if (w->halos_fresh)
        return 0;
    for (int side = BELOW; side <= ABOVE; side++) {
        if (w->neighbour[side] < 0 || !w->recv_host[side])
            continue;
        void *dst = plane_at(t, buffer, side == BELOW ? 0 : w->slab.planes + 1);
        if (sb_copy(&w->xfer, dst, w->recv[side][step & 1], t->plane_bytes,
                    cudaMemcpyHostToDevice, w->st[0]) != 0)
            return -1;
    }
    return 0;
}

/* ---- a step ---- */

static rd_step step_of(const worker *w, long long step)
{
    const rd_model *m = w->team->m;
    rd_step a = {.seed = m->seed, .step = step, .nx = m->nx, .ny = m->ny, .nz = m->nz,
                 .periodic = m->periodic, .slab = w->slab, .threshold = w->d_threshold,
                 .types = w->d_types, .sink = w->sink};
    size_t plane = (size_t)m->nx * m->ny;
    a.sink.first = (size_t)w->slab.z0 * plane; /* own planes only */
    a.sink.end = a.sink.first + (size_t)w->slab.planes * plane;
    return a;
}

#define EV(w, k, s)                                                                                \
    do {                                                                                           \
        if (instrumented)                                                                          \
            SB_CUDA(cudaEventRecord((w)->ev[k], (w)->st[s]));                                      \
    } while (0)

/* The work of one step on w's streams: lattice in d_lat[cur], out in d_lat[1 - cur]. An
 * instrumented step records events that add_phases turns into the step's timeline. */
static int queue_step(worker *w, int cur, long long step, int instrumented)
{
    rd_mgpu *t = w->team;
    rd_site_format f = t->m->format;
    rd_step a = step_of(w, step);
    void *in = w->d_lat[cur], *out = w->d_lat[1 - cur];
    cudaStream_t st = w->st[0];
    const rd_reaction_table *r = w->d_reactions;
    int own_lo = w->slab.halo, own_hi = w->slab.halo + w->slab.planes;
    int lo = w->neighbour[BELOW] >= 0 ? 0 : own_lo;
    int hi = w->neighbour[ABOVE] >= 0 ? own_hi + 1 : own_hi;
    int split = t->stage.overlap && t->nslabs > 1;
    if (t->stage.balance)
        SB_CUDA(cudaEventRecord(w->ev[EV_WORK0], st));
    EV(w, EV_HALO_IN0, 0);
    if (step > 0 && halos_in(w, in, step - 1) != 0)
        return -1;
    w->halos_fresh = 0;
    EV(w, EV_HALO_IN1, 0);
    EV(w, EV_STEP, 0);
    if (rd_sweep_planes(f, 0, in, out, &a, lo, hi, st) != 0)
        return -1;
    EV(w, EV_X, 0);
    if (rd_sweep_planes(f, 1, out, in, &a, lo, hi, st) != 0)
        return -1;
    SB_CUDA(cudaEventRecord(w->ev[EV_Y_DONE], st));
    atomic_store(&w->y_step, step);
    EV(w, EV_Y, 0);
    if (rd_sweep_z(f, in, out, &a, st) != 0)
        return -1;
    if (split) {
        /* the edge planes' reactions on the copies' stream, beside the interior's (reactions
         * touch one site each): their copies go out while the interior still reacts */
        SB_CUDA(cudaEventRecord(w->ev[EV_Z], st));
        SB_CUDA(cudaStreamWaitEvent(w->st[1], w->ev[EV_Z], 0));
        if (rd_react_edges(f, out, &a, r, w->d_fired, w->st[1]) != 0 ||
            rd_react(f, out, &a, own_lo + 1, own_hi - 1, r, w->d_fired, st) != 0)
            return -1;
        EV(w, EV_EDGES, 1);
    } else {
        EV(w, EV_Z, 0);
        if (rd_react(f, out, &a, own_lo, own_hi, r, w->d_fired, st) != 0)
            return -1;
    }
    EV(w, EV_REACT, 0);
    /* the balancer times the GPU's own work: not the copies, which may wait for a neighbour
     * (NCCL's kernels do) */
    if (t->stage.balance)
        SB_CUDA(cudaEventRecord(w->ev[EV_WORK1], st));
    EV(w, EV_OUT0, 1);
    if (t->nslabs > 1 && !t->mpi) {
        if (halos_out(w, 1 - cur, step, instrumented) != 0)
            return -1;
    } else
        EV(w, EV_COPIES, 1); /* mpi: its exchange follows the step, on the host */
    if (split) { /* the overflow count below includes the edges' */
        SB_CUDA(cudaEventRecord(w->ev[EV_OUT1], w->st[1]));
        SB_CUDA(cudaStreamWaitEvent(st, w->ev[EV_OUT1], 0));
    } else
        EV(w, EV_OUT1, 1);
    return sb_copy(&w->xfer, w->h_count, w->sink.count, sizeof *w->h_count,
                   cudaMemcpyDeviceToHost, st);
}

static double elapsed(const worker *w, int from, int to)
{
    float ms = 0;
    return cudaEventElapsedTime(&ms, w->ev[from], w->ev[to]) == cudaSuccess ? ms * 1e-3 : -1;
}

/* An instrumented step's timeline (worker 0's GPU) added to the phases: the kernels, the halo
 * copies, the copies' wait for the neighbours' y-sweeps (peer; NCCL's meeting is in its copies),
 * and how much of the step the copies added. */
static int add_phases(worker *w, double per_step)
{
    rd_mgpu *t = w->team;
    int split = t->stage.overlap && t->nslabs > 1;
    double x = elapsed(w, EV_STEP, EV_X);
    double y = elapsed(w, EV_X, EV_Y), z = elapsed(w, EV_Y, EV_Z);
    /* overlapped, the edge planes' reactions run beside the interior's, on the second stream */
    double edges = split ? elapsed(w, EV_Z, EV_EDGES) : 0, react = elapsed(w, EV_Z, EV_REACT);
    /* staged copies in run on the compute stream before the sweeps (without them the span
     * holds only the host's time between two calls) */
    double in = w->recv_host[BELOW] || w->recv_host[ABOVE] ? elapsed(w, EV_HALO_IN0, EV_HALO_IN1)
                                                           : 0;
    double copies = in + elapsed(w, EV_COPIES, EV_OUT1);
    double waits = elapsed(w, EV_OUT0, EV_COPIES);
    /* what the copies add to the step: the copies in, and the copies out where they end after
     * the last reactions (negative: under them; one GPU's events share a clock) */
    float out_ms = 0;
    if (cudaEventElapsedTime(&out_ms, w->ev[EV_REACT], w->ev[EV_OUT1]) != cudaSuccess)
        return sb_fail("reading the step's events on GPU %d failed", w->dev);
    double exposed = in + (out_ms > 0 ? out_ms * 1e-3 : 0);
    if (x < 0 || y < 0 || z < 0 || edges < 0 || react < 0 || in < 0 || copies < 0 || waits < 0)
        return sb_fail("reading the step's events on GPU %d failed", w->dev);
    sb_phase_add(&t->phases, "x-sweep per step", x * per_step);
    sb_phase_add(&t->phases, "y-sweep per step", y * per_step);
    sb_phase_add(&t->phases, "z-sweep per step", z * per_step);
    if (split)
        sb_phase_add(&t->phases, "edge reactions per step", edges * per_step);
    sb_phase_add(&t->phases, split ? "interior reactions per step" : "reactions per step",
                 react * per_step);
    if (t->nslabs > 1) {
        sb_phase_add(&t->phases, "halo copies per step", copies * per_step);
        sb_phase_add(&t->phases, "waits for neighbours per step", waits * per_step);
        sb_phase_add(&t->phases, "exchange exposed per step", exposed * per_step);
    }
    return 0;
}

/* ---- the collective parts of a step ---- */

/* ---- mpi: the collective parts as messages ---- */

/* Each process's own planes (already in its h_lattice) into every process's h_lattice. */
static int mpi_gather_lattice(rd_mgpu *t)
{
    int counts[RD_MAX_SLABS], displs[RD_MAX_SLABS];
    for (int i = 0; i < t->nslabs; i++) {
        counts[i] = rd_slab_planes(&t->part, i);
        displs[i] = t->part.z[i];
    }
    SB_MPI(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, t->h_lattice, counts, displs,
                          t->plane_type, MPI_COMM_WORLD));
    return 0;
}

/* Every process's overflow entries of the step, in rank order, into every t->entries. */
static int mpi_gather_entries(worker *w, size_t *total)
{
    rd_mgpu *t = w->team;
    int n = (int)*w->h_count, counts[RD_MAX_SLABS], displs[RD_MAX_SLABS], sum = 0;
    SB_MPI(MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < t->nslabs; i++) {
        displs[i] = sum;
        sum += counts[i];
    }
    SB_MPI(MPI_Allgatherv(w->h_entries, n, MPI_UINT64_T, t->entries, counts, displs,
                          MPI_UINT64_T, MPI_COMM_WORLD));
    *total = (size_t)sum;
    return 0;
}

/* Halos by message after a step, for the step after: my first own plane goes down (tag 0) and
 * comes in from above as my upper halo; my last goes up (tag 1) and comes in from below. Device
 * memory straight to MPI where it is CUDA-aware, else through pinned host planes. */
static int mpi_exchange(worker *w, void *buffer)
{
    rd_mgpu *t = w->team;
    int below = w->neighbour[BELOW] >= 0 ? w->neighbour[BELOW] : MPI_PROC_NULL;
    int above = w->neighbour[ABOVE] >= 0 ? w->neighbour[ABOVE] : MPI_PROC_NULL;
    int first = w->slab.halo, last = w->slab.halo + w->slab.planes - 1;
    if (t->cuda_aware) {
        SB_MPI(MPI_Sendrecv(plane_at(t, buffer, first), 1, t->plane_type, below, 0,
                            plane_at(t, buffer, last + 1), 1, t->plane_type, above, 0,
                            MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        SB_MPI(MPI_Sendrecv(plane_at(t, buffer, last), 1, t->plane_type, above, 1,
                            plane_at(t, buffer, 0), 1, t->plane_type, below, 1, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
        w->xfer.peer += (uint64_t)t->plane_bytes * ((below >= 0) + (above >= 0));
        return 0;
    }
    if (sb_copy(&w->xfer, t->send[0], plane_at(t, buffer, first), t->plane_bytes,
                cudaMemcpyDeviceToHost, w->st[0]) != 0 ||
        sb_copy(&w->xfer, t->send[1], plane_at(t, buffer, last), t->plane_bytes,
                cudaMemcpyDeviceToHost, w->st[0]) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(w->st[0]));
    SB_MPI(MPI_Sendrecv(t->send[0], 1, t->plane_type, below, 0, w->recv[ABOVE][0], 1,
                        t->plane_type, above, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    SB_MPI(MPI_Sendrecv(t->send[1], 1, t->plane_type, above, 1, w->recv[BELOW][0], 1,
                        t->plane_type, below, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int side = BELOW; side <= ABOVE; side++)
        if (w->neighbour[side] >= 0 &&
            sb_copy(&w->xfer, plane_at(t, buffer, side == BELOW ? 0 : last + 1),
                    w->recv[side][0], t->plane_bytes, cudaMemcpyHostToDevice, w->st[0]) != 0)
            return -1;
    return 0;
}

/* Every GPU's overflow entries placed on the host lattice; every buffer refreshed from it. */
static int resolve_overflow(worker *w, int cur)
{
    rd_mgpu *t = w->team;
    unsigned int n = *w->h_count;
    if (n > w->sink.capacity)
        return sb_fail("%u particles overflowed in one step on GPU %d, more than its list's %u: "
                       "lower the particle density",
                       n, w->index, w->sink.capacity);
    if ((n && sb_copy(&w->xfer, w->h_entries, w->sink.entries, (size_t)n * sizeof(uint64_t),
                      cudaMemcpyDeviceToHost, w->st[0]) != 0) ||
        download_own(w, w->d_lat[cur]) != 0)
        return -1;
    SB_CUDA(cudaMemsetAsync(w->sink.count, 0, sizeof(unsigned int), w->st[0]));
    SB_CUDA(cudaStreamSynchronize(w->st[0]));
    if (t->mpi) {
        /* every process gets the whole lattice and every entry, and places them the same way */
        size_t total;
        if (mpi_gather_lattice(t) != 0 || mpi_gather_entries(w, &total) != 0 ||
            rd_overflow_resolve(t->m, t->h_lattice, t->entries, total) != 0)
            return -1;
        t->overflow_particles += total;
        return upload_slab(w, w->d_lat[cur]);
    }
    if (team_barrier_wait(t) != 0)
        return -1;
    if (w->index == 0) {
        size_t total = 0;
        for (int i = 0; i < t->nslabs; i++) {
            memcpy(t->entries + total, t->w[i].h_entries, *t->w[i].h_count * sizeof(uint64_t));
            total += *t->w[i].h_count;
        }
        if (rd_overflow_resolve(t->m, t->h_lattice, t->entries, total) != 0)
            return -1;
        t->overflow_particles += total;
    }
    if (team_barrier_wait(t) != 0)
        return -1;
    return upload_slab(w, w->d_lat[cur]);
}

static void record_split(rd_mgpu *t, long long steps_done)
{
    sb_series *s = &t->split;
    if (++s->n > SB_MAX_SERIES_POINTS) { /* full: keep every other point, record half as often */
        for (int i = 0; i < SB_MAX_SERIES_POINTS / 2; i++) {
            s->x[i] = s->x[2 * i];
            s->y[i] = s->y[2 * i];
        }
        s->n = SB_MAX_SERIES_POINTS / 2 + 1;
        t->split_stride *= 2;
    }
    s->x[s->n - 1] = (double)steps_done * t->m->tau;
    s->y[s->n - 1] = t->part.z[1];
}

/* The paper's balancer at the end of a batch: worker 0 compares the GPUs' mean step times and
 * may split the planes anew; then every GPU hands its planes over through the host. */
static int rebalance(worker *w, int cur, long long steps_done)
{
    rd_mgpu *t = w->team;
    t->seconds[w->index] = w->busy / (double)t->balance_steps;
    w->busy = 0;
    if (team_barrier_wait(t) != 0)
        return -1;
    if (w->index == 0) {
        rd_partition next;
        t->moved = rd_partition_rebalance(&t->part, t->seconds, t->balance_threshold, t->cap,
                                          &next);
        if (t->moved < 0)
            return -1;
        if (t->moved)
            t->part = next;
        if ((steps_done / t->balance_steps) % t->split_stride == 0)
            record_split(t, steps_done);
    }
    if (team_barrier_wait(t) != 0)
        return -1;
    if (!t->moved)
        return 0;
    if (download_own(w, w->d_lat[cur]) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(w->st[0]));
    if (team_barrier_wait(t) != 0)
        return -1;
    w->slab.z0 = t->part.z[w->index];
    w->slab.planes = rd_slab_planes(&t->part, w->index);
    return upload_slab(w, w->d_lat[cur]);
}

static int count_sample(worker *w, const void *lattice, int sample)
{
    const rd_model *m = w->team->m;
    rd_step a = step_of(w, 0);
    return rd_count_planes(m->format, lattice, &a, m->nspecies,
                           w->d_planes + (size_t)sample * m->nz * (m->nspecies + 1), w->st[0]);
}

/* ---- CUDA graphs ---- */

/* Steps a body of the one-GPU loop where the kernels are chained: at most RD_GRAPH_STEPS_MAX,
 * evened out over the steps between two samples. A sample then stops the loop at most
 * a step a body before a body's end (the rest of its kernels are launched, and return at once):
 * 32 such steps in a run of 20,000 without samples. */
static int default_graph_steps(const rd_model *m)
{
    long long span = m->sample_steps > 0 && m->sample_steps < m->steps ? m->sample_steps : m->steps;
    long long bodies = (span + RD_GRAPH_STEPS_MAX - 1) / RD_GRAPH_STEPS_MAX;
    return bodies > 0 ? (int)((span + bodies - 1) / bodies) : 1;
}

/* One step with three buffers, so that it ends in the buffer it starts from (A): x A->B, y B->C,
 * z C->A, reactions in A; a graph captured once then serves every step. With one slab the step is
 * the body of a while-loop the GPU runs until a particle overflows, a sample is due or the run
 * ends: no host round trip per step. With several, a step is two graphs, x and y, then the rest,
 * and the host launches the second once the neighbours have launched their first: the halo copies
 * in it wait on the neighbours' y-sweep events. */
static int capture_graphs(worker *w)
{
    rd_mgpu *t = w->team;
    rd_site_format f = t->m->format;
    rd_step a = step_of(w, 0);
    a.step_at = w->d_step;
    void *A = w->d_lat[0], *B = w->d_lat[1], *C = w->d_lat[2];
    cudaStream_t st = w->st[0];
    int own_lo = w->slab.halo, own_hi = w->slab.halo + w->slab.planes;
    int lo = w->neighbour[BELOW] >= 0 ? 0 : own_lo;
    int hi = w->neighbour[ABOVE] >= 0 ? own_hi + 1 : own_hi;
    const rd_reaction_table *r = w->d_reactions;
    SB_CUDA(cudaSetDevice(w->dev));
    if (t->nslabs == 1) {
        if (rd_chain_if_one_wave(f, &a, w->dev) != 0 ||
            sb_graph_loop_begin(&w->loop, st, cudaStreamCaptureModeThreadLocal) != 0)
            return -1;
        /* gpu-fused where the x-sweep goes by strips: each step's reactions in the next step's
         * x-sweep, which needs a body of several steps */
        int ahead = t->stage.fused && rd_react_ahead_applies(f, &a, A, B, t->m->has_order0);
        rd_reaction_table table; /* their kernels' argument, by value */
        rd_reaction_table_of(t->m, &table);
        /* where the step's kernels are chained, the body's first kernel is not (nothing runs
         * before it in the body): several steps a body pay that launch, and step_done, once */
        int steps = t->graph_steps        ? t->graph_steps
                    : a.chained || ahead ? default_graph_steps(t->m)
                                         : 1;
        w->body_steps = steps;
        a.runs = steps > 1 ? &w->d_bounds->runs : NULL;
        ahead = ahead && steps > 1;
        int rc = 0;
        for (a.body_step = 0; a.body_step < steps && rc == 0; a.body_step++)
            if (ahead)
                rc = (a.body_step == 0
                          ? rd_sweep_planes(f, 0, A, B, &a, lo, hi, st)
                          : rd_sweep_x_react_ahead(A, B, &a, lo, hi, &table, w->d_ahead, st)) ||
                     rd_sweep_planes(f, 1, B, C, &a, lo, hi, st) || rd_sweep_z(f, C, A, &a, st);
            else
                rc = (t->stage.fused ? rd_sweep_xy(f, A, B, C, &a, lo, hi, st)
                                     : rd_sweep_planes(f, 0, A, B, &a, lo, hi, st) ||
                                           rd_sweep_planes(f, 1, B, C, &a, lo, hi, st)) ||
                     (t->stage.fused ? rd_sweep_z_react(f, C, A, &a, r, w->d_fired, st)
                                     : rd_sweep_z(f, C, A, &a, st) ||
                                           rd_react(f, A, &a, own_lo, own_hi, r, w->d_fired, st));
        if (ahead)
            rc = rc || rd_react_last(A, &a, own_lo, own_hi, &table, w->d_fired, w->d_ahead, st);
        rc = rc || rd_graph_step_done(w->loop.handle, w->d_step, w->d_bounds, w->sink.count,
                                      steps, a.chained, st);
        return sb_graph_loop_end(&w->loop, st, rc);
    }
    /* Captures go on to their end after an error (the first is kept), so that no stream is
     * left capturing. */
    cudaError_t e = cudaSuccess;
#define KEEP(call)                                                                                 \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e == cudaSuccess)                                                                      \
            e = e_;                                                                                \
    } while (0)
    SB_CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    int rc = rd_sweep_planes(f, 0, A, B, &a, lo, hi, st) ||
             rd_sweep_planes(f, 1, B, C, &a, lo, hi, st);
    KEEP(cudaEventRecordWithFlags(w->ev[EV_Y_DONE], st, cudaEventRecordExternal));
    KEEP(cudaStreamEndCapture(st, &w->graph[0]));
    SB_CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    /* the edge planes' reactions and their copies on the second stream, beside the interior's
     * reactions; a copy between devices is captured as cudaMemcpyAsync over unified addresses
     * (the peer call is not) */
    rc = rc || rd_sweep_z(f, C, A, &a, st);
    KEEP(cudaEventRecord(w->ev[EV_Z], st));
    KEEP(cudaStreamWaitEvent(w->st[1], w->ev[EV_Z], 0));
    rc = rc || rd_react_edges(f, A, &a, r, w->d_fired, w->st[1]) ||
         rd_react(f, A, &a, own_lo + 1, own_hi - 1, r, w->d_fired, st);
    for (int side = BELOW; side <= ABOVE; side++) {
        if (w->neighbour[side] < 0)
            continue;
        worker *to = &t->w[w->neighbour[side]];
        int their_side = side == BELOW ? ABOVE : BELOW;
        KEEP(cudaStreamWaitEvent(w->st[1], to->ev[EV_Y_DONE], cudaEventWaitExternal));
        KEEP(cudaMemcpyAsync(plane_at(t, to->d_lat[0], their_side == BELOW ? 0 : to->slab.planes + 1),
                             plane_at(t, A, side == BELOW ? own_lo : own_hi - 1), t->plane_bytes,
                             cudaMemcpyDefault, w->st[1]));
    }
    /* join the second stream before the step advances: its kernel reads the step too */
    KEEP(cudaEventRecord(w->ev[EV_OUT1], w->st[1]));
    KEEP(cudaStreamWaitEvent(st, w->ev[EV_OUT1], 0));
    rc = rc || rd_graph_step_advance(w->d_step, st);
    KEEP(cudaStreamEndCapture(st, &w->graph[1]));
#undef KEEP
    if (rc != 0)
        return -1;
    SB_CUDA(e);
    SB_CUDA(cudaGraphInstantiate(&w->exec[0], w->graph[0], 0));
    SB_CUDA(cudaGraphInstantiate(&w->exec[1], w->graph[1], 0));
    return 0;
}

/* The step loop with graphs; the state stays in d_lat[0]. */
static int simulate_graphs(worker *w, int *sample)
{
    rd_mgpu *t = w->team;
    const rd_model *m = t->m;
    int nsamples = rd_output_nsamples(m), halos = 0;
    for (int side = BELOW; side <= ABOVE; side++)
        halos += w->neighbour[side] >= 0;
    for (long long step = 0; step < m->steps;) {
        long long next = step + 1;
        if (t->nslabs == 1) {
            /* the GPU loops until an overflow, the next sample or the end */
            long long stop = *sample < nsamples ? rd_output_sample_step(m, *sample) : m->steps;
            w->h_bounds->stop = stop;
            w->h_bounds->runs = stop - step < w->body_steps ? (int)(stop - step) : w->body_steps;
            if (sb_copy(&w->xfer, w->d_bounds, w->h_bounds, sizeof *w->h_bounds,
                        cudaMemcpyHostToDevice, w->st[0]) != 0)
                return -1;
            if (sb_graph_loop_launch(&w->loop, w->st[0]) != 0)
                return -1;
            if (sb_copy(&w->xfer, w->h_step, w->d_step, sizeof *w->h_step,
                        cudaMemcpyDeviceToHost, w->st[0]) != 0)
                return -1;
        } else {
            SB_CUDA(cudaGraphLaunch(w->exec[0], w->st[0]));
            atomic_store(&w->y_step, step);
            for (int side = BELOW; side <= ABOVE; side++) /* their y-sweep events recorded */
                for (unsigned spins = 1; w->neighbour[side] >= 0 &&
                                         atomic_load(&t->w[w->neighbour[side]].y_step) < step;
                     spins++) {
                    if (atomic_load(&t->bar.failed))
                        return sb_fail("stopped: another GPU failed");
                    if (spins % 4096 == 0)
                        sched_yield();
                }
            SB_CUDA(cudaGraphLaunch(w->exec[1], w->st[0]));
            w->xfer.peer += (uint64_t)halos * t->plane_bytes;
        }
        if (sb_copy(&w->xfer, w->h_count, w->sink.count, sizeof *w->h_count,
                    cudaMemcpyDeviceToHost, w->st[0]) != 0)
            return -1;
        SB_CUDA(cudaStreamSynchronize(w->st[0]));
        if (t->nslabs == 1)
            next = *w->h_step;
        unsigned long long overflowed;
        if (team_sum(t, *w->h_count, &overflowed) != 0)
            return -1;
        if (overflowed && resolve_overflow(w, 0) != 0)
            return -1;
        step = next;
        if (*sample < nsamples && rd_output_sample_step(m, *sample) == step &&
            count_sample(w, w->d_lat[0], (*sample)++) != 0)
            return -1;
    }
    return 0;
}

/* ---- a run: one thread per slab ---- */

static int simulate(worker *w)
{
    rd_mgpu *t = w->team;
    const rd_model *m = t->m;
    int cur = 0, sample = 0, nsamples = rd_output_nsamples(m);
    SB_CUDA(cudaSetDevice(w->dev));
    w->slab.z0 = t->initial.z[w->index];
    w->slab.planes = rd_slab_planes(&t->initial, w->index);
    w->busy = 0;
    /* the initial lattice: a device copy when the slab is the one d_init holds */
    size_t bytes = (size_t)(w->slab.planes + 2 * w->slab.halo) * t->plane_bytes;
    if (sb_copy(&w->xfer, w->d_lat[0], w->d_init, bytes, cudaMemcpyDeviceToDevice, w->st[0]) != 0)
        return -1;
    if (m->format == RD_BYTE16 && memcmp(&w->types_slab, &w->slab, sizeof w->slab) != 0) {
        if (copy_planes(w, w->d_types, m->types, t->plane_sites, w->slab, 0,
                        w->slab.planes + 2 * w->slab.halo, cudaMemcpyHostToDevice) != 0)
            return -1;
        w->types_slab = w->slab;
    }
    w->halos_fresh = 1;
    SB_CUDA(cudaMemsetAsync(w->d_planes, 0, t->planes_bytes, w->st[0]));
    SB_CUDA(cudaMemsetAsync(w->d_fired, 0, sizeof *w->d_fired, w->st[0]));
    if (count_sample(w, w->d_lat[0], sample++) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(w->st[0]));
    if (team_barrier_wait(t) != 0)
        return -1;
    if (w->index == t->lead)
        t->loop_start = sb_now();
    long long timed = m->steps < RD_INSTRUMENTED_STEPS ? m->steps : RD_INSTRUMENTED_STEPS;
    double per_step = timed > 0 ? 1.0 / (double)timed : 0;
    if (t->stage.graph) {
        SB_CUDA(cudaMemsetAsync(w->d_step, 0, sizeof *w->d_step, w->st[0]));
        SB_CUDA(cudaMemsetAsync(w->d_ahead, 0, RD_GRAPH_STEPS_MAX * sizeof *w->d_ahead,
                                w->st[0]));
        if (simulate_graphs(w, &sample) != 0)
            return -1;
    }
    for (long long step = 0; step < m->steps && !t->stage.graph; step++) {
        int instrumented = t->instrument && w->index == t->lead && step < timed;
        if (queue_step(w, cur, step, instrumented) != 0)
            return -1;
        cur = 1 - cur; /* three sweeps: the lattice ends in the other buffer */
        if (sync_streams(w) != 0 || (t->mpi && t->nslabs > 1 && mpi_exchange(w, w->d_lat[cur])))
            return -1;
        double t1 = sb_now();
        /* the balancer's measure: the GPU's time from the step's start to its last kernel, not
         * the host's wait, which with NCCL includes the partner's (send/recv meet) */
        if (t->stage.balance) {
            double work = elapsed(w, EV_WORK0, EV_WORK1);
            if (work < 0)
                return sb_fail("reading the step's events on GPU %d failed", w->dev);
            w->busy += work;
        }
        unsigned long long overflowed;
        if (team_sum(t, *w->h_count, &overflowed) != 0)
            return -1;
        if (overflowed && resolve_overflow(w, cur) != 0)
            return -1;
        if (instrumented) {
            if (add_phases(w, per_step) != 0)
                return -1;
            sb_phase_add(&t->phases, "barrier and overflow per step", (sb_now() - t1) * per_step);
        }
        if (sample < nsamples && rd_output_sample_step(m, sample) == step + 1 &&
            count_sample(w, w->d_lat[cur], sample++) != 0)
            return -1;
        if (t->stage.balance && t->nslabs > 1 && (step + 1) % t->balance_steps == 0 &&
            step + 1 < m->steps && rebalance(w, cur, step + 1) != 0)
            return -1;
    }
    if (team_barrier_wait(t) != 0)
        return -1;
    if (w->index == t->lead)
        t->loop_seconds[t->runs < RD_MGPU_MAX_RUNS ? t->runs : RD_MGPU_MAX_RUNS - 1] =
            sb_now() - t->loop_start;
    if (download_own(w, w->d_lat[cur]) != 0 ||
        sb_copy(&w->xfer, w->h_planes, w->d_planes, t->planes_bytes, cudaMemcpyDeviceToHost,
                w->st[0]) != 0 ||
        sb_copy(&w->xfer, w->h_fired, w->d_fired, sizeof *w->h_fired, cudaMemcpyDeviceToHost,
                w->st[0]) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(w->st[0]));
    if (t->mpi) { /* every process ends with the whole output, as the harness validates it */
        int n = (int)(t->planes_bytes / sizeof(uint32_t));
        if (mpi_gather_lattice(t) != 0)
            return -1;
        SB_MPI(MPI_Allreduce(MPI_IN_PLACE, w->h_planes, n, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD));
        SB_MPI(MPI_Allreduce(MPI_IN_PLACE, w->h_fired, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                             MPI_COMM_WORLD));
    }
    return 0;
}

static void *worker_main(void *arg)
{
    worker *w = (worker *)arg;
    cpu_set_t near;
    if (gpu_cpus(w->dev, &near)) /* a GPU's thread on its own socket (no effect if refused) */
        pthread_setaffinity_np(pthread_self(), sizeof near, &near);
    w->rc = simulate(w);
    if (w->rc != 0) {
        snprintf(w->err, sizeof w->err, "GPU %d (slab %d): %s", w->dev, w->index, sb_error());
        atomic_store(&w->team->bar.failed, 1);
    }
    return NULL;
}

/* One thread per slab; the first failure reported, not those it caused in the others. */
static int run_threads(rd_mgpu *t)
{
    pthread_t th[RD_MAX_SLABS];
    int started = 0;
    for (; started < t->nslabs; started++)
        if (pthread_create(&th[started], NULL, worker_main, &t->w[started]) != 0) {
            atomic_store(&t->bar.failed, 1);
            break;
        }
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (started < t->nslabs)
        return sb_fail("could not start a host thread for each of %d GPUs", t->nslabs);
    for (int i = 0; i < t->nslabs; i++) {
        worker *w = &t->w[i];
        if (w->rc != 0 && strstr(w->err, "another GPU failed") == NULL)
            return sb_fail("%s", w->err);
    }
    for (int i = 0; i < t->nslabs; i++) {
        worker *w = &t->w[i];
        if (w->rc != 0)
            return sb_fail("%s", w->err);
    }
    return 0;
}

int rd_mgpu_run(void *state)
{
    rd_mgpu *t = (rd_mgpu *)state;
    t->instrument = t->runs == 0;
    if (t->instrument)
        sb_phases_clear(&t->phases);
    t->overflow_particles = 0;
    t->part = t->initial;
    t->split.n = 0;
    t->split_stride = 1;
    if (t->stage.balance && t->nslabs > 1)
        record_split(t, 0);
    atomic_store(&t->bar.failed, 0); /* a failed run may have left threads counted */
    atomic_store(&t->bar.arrived, 0);
    atomic_store(&t->bar.sum[0], 0);
    atomic_store(&t->bar.sum[1], 0);
    for (int i = 0; i < t->nslabs; i++)
        atomic_store(&t->w[i].y_step, -1);
    if (t->mpi) { /* this process's slab; the others run in their processes */
        if (simulate(&t->w[t->lead]) != 0) {
            /* the other processes wait in a collective that will not come */
            fprintf(stderr, "stagebench: MPI rank %d: %s\n", t->lead, sb_error());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    } else if (run_threads(t) != 0)
        return -1;
    t->reactions_fired = 0; /* mpi: the one slab here holds the total already */
    for (int i = 0; i < t->nslabs; i++) {
        worker *w = &t->w[i];
        if (!w->team)
            continue; /* another process's */
        t->reactions_fired += *w->h_fired;
        t->env->xfer.h2d += w->xfer.h2d;
        t->env->xfer.d2h += w->xfer.d2h;
        t->env->xfer.d2d += w->xfer.d2d;
        t->env->xfer.peer += w->xfer.peer;
        memset(&w->xfer, 0, sizeof w->xfer);
    }
    t->runs++;
    return 0;
}

/* ---- set-up ---- */

static int param_int(const sb_env *env, const char *name)
{
    return sb_param_is_set(env->params, name) ? (int)sb_param_num(env->params, name) : 0;
}

/* Planes a slab on `dev` may hold: what the device has free, shared by the slabs on it, less the
 * fixed buffers; never more than the lattice. */
static int plane_cap(const rd_mgpu *t, int dev, int slabs_here, size_t fixed)
{
    const rd_model *m = t->m;
    size_t free_b = 0, total_b = 0;
    if (cudaSetDevice(dev) != cudaSuccess || cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
        return -1;
    /* per plane: the initial, the two working buffers, and the types (byte16) */
    size_t per_plane = 3 * t->plane_bytes + (m->format == RD_BYTE16 ? t->plane_sites : 0);
    double usable = (double)free_b * 0.9 / slabs_here - (double)fixed;
    double planes = usable / (double)per_plane - 2;
    return planes < 0 ? 0 : planes > m->nz ? m->nz : (int)planes;
}

/* handicap=G:S: the slab on GPU G (an index into the GPUs used) computes on S of its SMs; 0 for
 * the others. -1 on a malformed value. */
static int handicapped_sms(const rd_mgpu *t, int slab)
{
    if (!sb_param_is_set(t->env->params, "handicap"))
        return 0;
    const char *text = sb_param_text(t->env->params, "handicap");
    int gpu, sms, end = 0;
    if (sscanf(text, "%d:%d%n", &gpu, &sms, &end) != 2 || text[end] || gpu < 0 ||
        gpu >= t->ngpus || sms < 1)
        return sb_fail("handicap=%s: give GPU:SMS, a GPU index below %d and the SMs it keeps "
                       "(e.g. handicap=1:44)",
                       text, t->ngpus);
    return slab % t->ngpus == gpu ? sms : 0;
}

static int open_worker(rd_mgpu *t, worker *w)
{
    sb_env *env = t->env;
    const rd_model *m = t->m;
    int dev = w->dev, rc = 0, halo = t->nslabs > 1;
    SB_CUDA(cudaSetDevice(dev));
    int handicap = handicapped_sms(t, w->index);
    if (handicap < 0)
        return -1;
    if (handicap > 0) {
        if ((rc = sb_sm_limit_open(&w->limit, dev, handicap, &w->st[0])) != 0)
            return rc == SB_REFUSED ? rc : sb_fail_context("handicap=%s", sb_param_text(env->params, "handicap"));
    } else
        SB_CUDA(cudaStreamCreateWithFlags(&w->st[0], cudaStreamNonBlocking));
    if (t->stage.overlap) {
        /* the copies' stream first in line for the GPU: their few blocks or copy-engine work
         * must not queue behind the interior reactions they are meant to hide under */
        int least, greatest;
        SB_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        SB_CUDA(cudaStreamCreateWithPriority(&w->st[1], cudaStreamNonBlocking, greatest));
    }
    else
        w->st[1] = w->st[0];
    for (int k = 0; k < EV_COUNT; k++)
        SB_CUDA(cudaEventCreate(&w->ev[k]));
    w->slab.z0 = t->initial.z[w->index];
    w->slab.planes = rd_slab_planes(&t->initial, w->index);
    w->slab.halo = halo;
    int buffer_planes = t->cap[w->index] + 2 * halo;
    size_t init_bytes = (size_t)(w->slab.planes + 2 * halo) * t->plane_bytes;
    size_t buffer_bytes = (size_t)buffer_planes * t->plane_bytes;
    unsigned int cap = rd_overflow_capacity(m);
    rd_reaction_table table;
    rd_reaction_table_of(m, &table);
    if ((rc = sb_dev_alloc(&env->mem, dev, &w->d_init, init_bytes, "initial slab")) ||
        (rc = sb_dev_alloc(&env->mem, dev, &w->d_lat[0], buffer_bytes, "slab")) ||
        (rc = sb_dev_alloc(&env->mem, dev, &w->d_lat[1], buffer_bytes, "slab")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&w->d_threshold, sizeof m->threshold,
                           "thresholds")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&w->d_reactions, sizeof table, "reactions")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&w->d_planes, t->planes_bytes,
                           "plane counts")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&w->d_fired, sizeof *w->d_fired,
                           "reaction count")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&w->sink.count, sizeof(unsigned int),
                           "overflow count")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&w->sink.entries,
                           (size_t)cap * sizeof(uint64_t), "overflow list")))
        return rc;
    w->sink.capacity = cap;
    if (t->stage.graph &&
        ((rc = sb_dev_alloc(&env->mem, dev, &w->d_lat[2], buffer_bytes, "slab")) ||
         (rc = sb_dev_alloc(&env->mem, dev, (void **)&w->d_step, sizeof *w->d_step, "step")) ||
         (rc = sb_dev_alloc(&env->mem, dev, (void **)&w->d_bounds, sizeof *w->d_bounds,
                            "loop bounds")) ||
         (rc = sb_dev_alloc(&env->mem, dev, (void **)&w->d_ahead,
                            RD_GRAPH_STEPS_MAX * sizeof *w->d_ahead, "reaction counts a step"))))
        return rc;
    if (t->stage.graph) {
        SB_CUDA(cudaMallocHost((void **)&w->h_step, sizeof *w->h_step));
        SB_CUDA(cudaMallocHost((void **)&w->h_bounds, sizeof *w->h_bounds));
    }
    if (m->format == RD_BYTE16 &&
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&w->d_types,
                           (size_t)buffer_planes * t->plane_sites, "site types")))
        return rc;
    SB_CUDA(cudaMallocHost((void **)&w->h_count, sizeof *w->h_count));
    SB_CUDA(cudaMallocHost((void **)&w->h_fired, sizeof *w->h_fired));
    SB_CUDA(cudaMallocHost((void **)&w->h_entries, (size_t)cap * sizeof(uint64_t)));
    SB_CUDA(cudaMallocHost((void **)&w->h_planes, t->planes_bytes));
    *w->h_count = 0;
    /* the buffers start empty: halo planes beyond a reflecting edge are never written */
    SB_CUDA(cudaMemsetAsync(w->d_lat[0], 0, buffer_bytes, w->st[0]));
    SB_CUDA(cudaMemsetAsync(w->d_lat[1], 0, buffer_bytes, w->st[0]));
    SB_CUDA(cudaMemsetAsync(w->d_init, 0, init_bytes, w->st[0]));
    SB_CUDA(cudaMemsetAsync(w->sink.count, 0, sizeof(unsigned int), w->st[0]));
    if (copy_planes(w, w->d_init, m->lattice0, t->plane_bytes, w->slab, 0,
                    w->slab.planes + 2 * halo, cudaMemcpyHostToDevice) != 0 ||
        sb_copy(&w->xfer, w->d_threshold, m->threshold, sizeof m->threshold,
                cudaMemcpyHostToDevice, w->st[0]) != 0 ||
        sb_copy(&w->xfer, w->d_reactions, &table, sizeof table, cudaMemcpyHostToDevice,
                w->st[0]) != 0)
        return -1;
    if (m->format == RD_BYTE16) {
        SB_CUDA(cudaMemsetAsync(w->d_types, 0, (size_t)buffer_planes * t->plane_sites, w->st[0]));
        if (copy_planes(w, w->d_types, m->types, t->plane_sites, w->slab, 0,
                        w->slab.planes + 2 * halo, cudaMemcpyHostToDevice) != 0)
            return -1;
        w->types_slab = w->slab;
    }
    return 0;
}

/* How each halo of w arrives: written by the neighbour GPU itself when it can reach w's memory
 * (peer path; peer access enabled), else through receive buffers in pinned host memory on w's
 * NUMA node, as the paper places its staging buffers. */
static int open_receive_buffers(rd_mgpu *t, worker *w)
{
    for (int side = BELOW; side <= ABOVE; side++) {
        int n = w->neighbour[side];
        if (n < 0 || t->stage.path == RD_HALO_NCCL)
            continue;
        int from = t->w[n].dev, peer = 0;
        if (t->stage.path == RD_HALO_PEER) {
            peer = from == w->dev;
            if (!peer)
                SB_CUDA(cudaDeviceCanAccessPeer(&peer, from, w->dev));
            if (peer && from != w->dev) {
                SB_CUDA(cudaSetDevice(from));
                cudaError_t e = cudaDeviceEnablePeerAccess(w->dev, 0);
                if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
                    return sb_fail("enabling peer access from GPU %d to GPU %d: %s", from,
                                   w->dev, cudaGetErrorString(e));
                cudaGetLastError(); /* clear "already enabled" */
            }
        }
        w->recv_host[side] = !peer;
        for (int parity = 0; !peer && parity < 2; parity++)
            if (host_alloc_near(w->dev, &w->recv[side][parity], t->plane_bytes) != 0)
                return -1;
    }
    return 0;
}

/* One process per slab: this one drives the slab of its rank on the GPU of its rank on its host
 * (the GPUs the harness gave it, round-robin). MPI starts here when nobody started it. */
static int mpi_open(rd_mgpu *t)
{
    sb_lockstep p;
    if (sb_lockstep_open(t->env, &p) != 0)
        return -1;
    if (p.size > RD_MAX_SLABS)
        return sb_fail("%d MPI processes: the lattice splits over at most %d", p.size,
                       RD_MAX_SLABS);
    t->mpi = 1;
    t->nslabs = p.size;
    t->lead = p.rank;
    t->local_rank = p.local_rank;
    t->cuda_aware = p.cuda_aware;
    t->ngpus = t->env->ndevices;
    SB_MPI(MPI_Type_contiguous((int)t->m->nx * t->m->ny * (int)rd_site_bytes(t->m->format),
                               MPI_BYTE, &t->plane_type));
    SB_MPI(MPI_Type_commit(&t->plane_type));
    return 0;
}

/* split=a,b,...: the initial planes per slab, bottom up, instead of the equal split. */
static int parse_split(rd_mgpu *t)
{
    const char *text = sb_param_text(t->env->params, "split"), *s = text;
    int z = 0, i = 0;
    for (; *s && i < t->nslabs; i++) {
        char *end;
        long planes = strtol(s, &end, 10);
        if (end == s || planes < 1 || planes > t->cap[i] || (*end && *end != ','))
            break;
        t->initial.z[i] = z;
        z += (int)planes;
        s = *end ? end + 1 : end;
    }
    if (*s || i != t->nslabs || z != t->m->nz)
        return sb_fail("split=%s: give %d plane counts (one per slab, bottom up, each within what "
                       "its GPU holds) adding up to the lattice's %d planes",
                       text, t->nslabs, t->m->nz);
    t->initial.z[t->nslabs] = z;
    return 0;
}

int rd_mgpu_setup(sb_env *env, const void *model, void **state, const rd_mgpu_stage *stage)
{
    rd_mgpu *t = (rd_mgpu *)calloc(1, sizeof *t);
    if (!t)
        return sb_fail("out of host memory");
    *state = t;
    const rd_model *m = (const rd_model *)model;
    t->env = env;
    t->m = m;
    t->stage = *stage;
    t->ngpus = param_int(env, "gpus") ? param_int(env, "gpus") : stage->fused ? 1 : env->ndevices;
    t->nslabs = param_int(env, "slabs") ? param_int(env, "slabs") : t->ngpus;
    if (stage->fused && t->nslabs != 1) {
        sb_fail("gpus=%d, slabs=%d: the fused stage runs one slab on one GPU; leave both unset",
                t->ngpus, t->nslabs);
        return SB_REFUSED;
    }
    if (stage->path == RD_HALO_MPI && mpi_open(t) != 0)
        return -1;
    if (t->ngpus > env->ndevices) {
        sb_fail("gpus=%d: this machine has %d GPU%s", t->ngpus, env->ndevices,
                env->ndevices == 1 ? "" : "s");
        return SB_REFUSED;
    }
    if (t->nslabs > RD_MAX_SLABS || t->nslabs < t->ngpus)
        return sb_fail("slabs=%d: use %d to %d slabs on %d GPUs", t->nslabs, t->ngpus,
                       RD_MAX_SLABS, t->ngpus);
    if (stage->path == RD_HALO_NCCL && t->nslabs != t->ngpus) {
        sb_fail("slabs=%d on %d GPUs: NCCL puts one rank on a GPU; leave slabs unset",
                t->nslabs, t->ngpus);
        return SB_REFUSED;
    }
    t->plane_sites = (size_t)m->nx * m->ny;
    t->plane_bytes = t->plane_sites * rd_site_bytes(m->format);
    t->planes_bytes = (size_t)rd_output_nsamples(m) * m->nz * (m->nspecies + 1) * sizeof(uint32_t);
    long long batch = param_int(env, "balance_steps");
    t->balance_steps = batch > 0 ? batch : (long long)(0.025 / m->tau + 0.5);
    if (t->balance_steps < 1)
        t->balance_steps = 1;
    t->balance_threshold = sb_param_num(env->params, "balance_threshold");
    t->graph_steps = param_int(env, "graph_steps");
    t->split.name = "split_plane";
    t->split.x_name = "simulated_seconds";
    t->bar.n = t->nslabs;
    if (rd_kernels_load(m->format) != 0)
        return -1;
    /* caps from each GPU's free memory, then the equal split in whole z-sweep tiles */
    size_t fixed = (size_t)rd_overflow_capacity(m) * sizeof(uint64_t) + t->planes_bytes +
                   2 * 2 * t->plane_bytes + (1u << 20);
    for (int i = 0; i < t->nslabs; i++) {
        int dev = env->devices[(t->mpi ? t->local_rank : i) % t->ngpus];
        int here = t->mpi ? 1 : t->nslabs / t->ngpus + (i % t->ngpus < t->nslabs % t->ngpus);
        if (t->mpi && i != t->lead)
            continue; /* each process knows its own; they are shared below */
        t->cap[i] = t->nslabs == 1 ? m->nz : plane_cap(t, dev, here, fixed);
        if (t->cap[i] < 0)
            return sb_fail("GPU %d: cannot read its free memory", dev);
    }
    if (t->mpi)
        SB_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, t->cap, 1, MPI_INT,
                             MPI_COMM_WORLD));
    if (rd_partition_split(m->nz, t->nslabs, RD_SWEEP_TILE_Z, NULL, t->cap, &t->initial) != 0) {
        sb_fail_context("%d x %d x %d lattice over %d GPUs", m->nx, m->ny, m->nz, t->nslabs);
        return SB_REFUSED;
    }
    if (sb_param_is_set(env->params, "split") && parse_split(t) != 0)
        return -1;
    for (int i = 0; i < t->nslabs; i++) {
        worker *w = &t->w[i];
        if (t->mpi && i != t->lead)
            continue; /* another process's */
        w->team = t;
        w->index = i;
        w->dev = env->devices[(t->mpi ? t->local_rank : i) % t->ngpus];
        int alone = t->nslabs == 1;
        w->neighbour[BELOW] = alone ? -1 : i > 0 ? i - 1 : m->periodic ? t->nslabs - 1 : -1;
        w->neighbour[ABOVE] = alone ? -1 : i < t->nslabs - 1 ? i + 1 : m->periodic ? 0 : -1;
        int rc = open_worker(t, w);
        if (rc != 0)
            return rc;
    }
    for (int i = 0; i < t->nslabs && !t->mpi; i++)
        if (open_receive_buffers(t, &t->w[i]) != 0)
            return -1;
    if (t->mpi && !t->cuda_aware && t->nslabs > 1) {
        worker *w = &t->w[t->lead];
        for (int k = 0; k < 2; k++) {
            if (host_alloc_near(w->dev, &t->send[k], t->plane_bytes) != 0 ||
                host_alloc_near(w->dev, &w->recv[k][0], t->plane_bytes) != 0)
                return -1;
        }
    }
    if (stage->path == RD_HALO_NCCL && t->nslabs > 1) {
        ncclComm_t comms[RD_MAX_SLABS];
        SB_NCCL(ncclCommInitAll(comms, t->nslabs, env->devices));
        for (int i = 0; i < t->nslabs; i++)
            t->w[i].comm = comms[i];
    }
    for (int i = 0; stage->graph && i < t->nslabs; i++) {
        worker *w = &t->w[i];
        if (w->recv_host[BELOW] || w->recv_host[ABOVE]) {
            sb_fail("GPU %d cannot reach its neighbours' memory (no peer access): the graph stage "
                    "needs it; run mgpu-peer-overlap",
                    w->dev);
            return SB_REFUSED;
        }
        if (capture_graphs(w) != 0)
            return -1;
    }
    size_t lattice_bytes = m->nsites * rd_site_bytes(m->format);
    SB_CUDA(cudaMallocHost(&t->h_lattice, lattice_bytes));
    size_t entries = (size_t)t->nslabs * rd_overflow_capacity(m);
    t->entries = (uint64_t *)malloc(entries * sizeof(uint64_t));
    if (!t->entries)
        return sb_fail("out of host memory for %zu overflow entries", entries);
    for (int i = 0; i < t->nslabs; i++) {
        if (!t->w[i].team)
            continue;
        SB_CUDA(cudaSetDevice(t->w[i].dev));
        SB_CUDA(cudaStreamSynchronize(t->w[i].st[0]));
    }
    return 0;
}

int rd_mgpu_output(void *state, void *out)
{
    rd_mgpu *t = (rd_mgpu *)state;
    const rd_model *m = t->m;
    rd_output *o = (rd_output *)out;
    size_t n = t->planes_bytes / sizeof(uint32_t);
    memcpy(o->lattice, t->h_lattice, m->nsites * rd_site_bytes(m->format));
    memset(o->plane_counts, 0, t->planes_bytes);
    for (int i = 0; i < t->nslabs; i++) /* each GPU counted the planes it held at the time */
        for (size_t k = 0; t->w[i].h_planes && k < n; k++)
            o->plane_counts[k] += t->w[i].h_planes[k];
    rd_output_counts_from_planes(m, o);
    o->overflow_particles = t->overflow_particles;
    o->reactions_fired = t->reactions_fired;
    return 0;
}

void rd_mgpu_teardown(void *state)
{
    rd_mgpu *t = (rd_mgpu *)state;
    if (!t)
        return;
    for (int i = 0; i < t->nslabs; i++) {
        worker *w = &t->w[i];
        if (!w->team)
            continue;
        cudaSetDevice(w->dev);
        if (w->comm)
            ncclCommDestroy(w->comm);
        for (int side = 0; side < 2; side++) /* receive buffers are all in host memory */
            for (int p = 0; p < 2; p++)
                cudaFreeHost(w->recv[side][p]);
        for (int k = 0; k < 2; k++) {
            if (w->exec[k])
                cudaGraphExecDestroy(w->exec[k]);
            if (w->graph[k])
                cudaGraphDestroy(w->graph[k]);
        }
        sb_graph_loop_destroy(&w->loop);
        cudaFreeHost(w->h_step);
        cudaFreeHost(w->h_bounds);
        for (int k = 0; k < EV_COUNT; k++)
            if (w->ev[k])
                cudaEventDestroy(w->ev[k]);
        if (w->st[1] && w->st[1] != w->st[0])
            cudaStreamDestroy(w->st[1]);
        if (w->limit.green)
            sb_sm_limit_close(&w->limit);
        else if (w->st[0])
            cudaStreamDestroy(w->st[0]);
        cudaFreeHost(w->h_count);
        cudaFreeHost(w->h_fired);
        cudaFreeHost(w->h_entries);
        cudaFreeHost(w->h_planes);
    }
    cudaFreeHost(t->h_lattice);
    for (int k = 0; k < 2; k++)
        cudaFreeHost(t->send[k]);
    if (t->mpi && t->plane_type != MPI_DATATYPE_NULL && t->plane_type)
        MPI_Type_free(&t->plane_type);
    free(t->entries);
    free(t);
}

void rd_mgpu_report(void *state, sb_report *r)
{
    rd_mgpu *t = (rd_mgpu *)state;
    const rd_model *m = t->m;
    double floor_step = rd_floor_bytes_per_step(m);
    size_t lattice_bytes = m->nsites * rd_site_bytes(m->format);
    r->bytes_moved = floor_step * (double)m->steps + 3.0 * (double)lattice_bytes;
    r->host_launches = (4.0 + 2.0 * (t->stage.overlap && t->nslabs > 1)) * (double)m->steps *
                       t->nslabs;
    r->phases = t->phases;
    if (t->stage.balance && t->split.n > 0)
        r->series[r->nseries++] = t->split;
    rd_report_steady(m, t->loop_seconds, t->runs < RD_MGPU_MAX_RUNS ? t->runs : RD_MGPU_MAX_RUNS,
                     &r->steady);
}
