/* A step of the multi-GPU engine on one GPU, and a worker's run of steps (mgpu.c): the sweeps, the
 * reactions, the halos out, the meeting after each step, the samples; an instrumented step's
 * timeline. */
#include "mgpu-internal.h"

/* What the kernels know of step `step` on w's slab (overflow entries of its own planes only). */
rd_step mgpu_step_of(const worker *w, long long step)
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
    rd_step a = mgpu_step_of(w, step);
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
    if (step > 0 && mgpu_halos_in(w, in, step - 1) != 0)
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
        if (mgpu_halos_out(w, 1 - cur, step, instrumented) != 0)
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

static int sync_streams(worker *w)
{
    SB_CUDA(cudaStreamSynchronize(w->st[0]));
    if (w->st[1] != w->st[0])
        SB_CUDA(cudaStreamSynchronize(w->st[1]));
    return 0;
}

int mgpu_count_sample(worker *w, const void *lattice, int sample)
{
    const rd_model *m = w->team->m;
    rd_step a = mgpu_step_of(w, 0);
    return rd_count_planes(m->format, lattice, &a, m->nspecies,
                           w->d_planes + (size_t)sample * m->nz * (m->nspecies + 1), w->st[0]);
}

int mgpu_simulate(worker *w)
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
        if (mgpu_copy_planes(w, w->d_types, m->types, t->plane_sites, w->slab, 0,
                             w->slab.planes + 2 * w->slab.halo, cudaMemcpyHostToDevice) != 0)
            return -1;
        w->types_slab = w->slab;
    }
    w->halos_fresh = 1;
    SB_CUDA(cudaMemsetAsync(w->d_planes, 0, t->planes_bytes, w->st[0]));
    SB_CUDA(cudaMemsetAsync(w->d_fired, 0, sizeof *w->d_fired, w->st[0]));
    if (mgpu_count_sample(w, w->d_lat[0], sample++) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(w->st[0]));
    if (mgpu_team_barrier_wait(t) != 0)
        return -1;
    if (w->index == t->lead)
        t->loop_start = sb_now();
    long long timed = m->steps < RD_INSTRUMENTED_STEPS ? m->steps : RD_INSTRUMENTED_STEPS;
    double per_step = timed > 0 ? 1.0 / (double)timed : 0;
    if (t->stage.graph) {
        SB_CUDA(cudaMemsetAsync(w->d_step, 0, sizeof *w->d_step, w->st[0]));
        SB_CUDA(cudaMemsetAsync(w->d_ahead, 0, RD_GRAPH_STEPS_MAX * sizeof *w->d_ahead,
                                w->st[0]));
        if (mgpu_simulate_graphs(w, &sample) != 0)
            return -1;
    }
    for (long long step = 0; step < m->steps && !t->stage.graph; step++) {
        int instrumented = t->instrument && w->index == t->lead && step < timed;
        if (queue_step(w, cur, step, instrumented) != 0)
            return -1;
        cur = 1 - cur; /* three sweeps: the lattice ends in the other buffer */
        if (sync_streams(w) != 0 ||
            (t->mpi && t->nslabs > 1 && mgpu_mpi_exchange(w, w->d_lat[cur])))
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
        if (mgpu_team_sum(t, *w->h_count, &overflowed) != 0)
            return -1;
        if (overflowed && mgpu_resolve_overflow(w, cur) != 0)
            return -1;
        if (instrumented) {
            if (add_phases(w, per_step) != 0)
                return -1;
            sb_phase_add(&t->phases, "barrier and overflow per step", (sb_now() - t1) * per_step);
        }
        if (sample < nsamples && rd_output_sample_step(m, sample) == step + 1 &&
            mgpu_count_sample(w, w->d_lat[cur], sample++) != 0)
            return -1;
        if (t->stage.balance && t->nslabs > 1 && (step + 1) % t->balance_steps == 0 &&
            step + 1 < m->steps && mgpu_rebalance(w, cur, step + 1) != 0)
            return -1;
    }
    if (mgpu_team_barrier_wait(t) != 0)
        return -1;
    if (w->index == t->lead)
        t->loop_seconds[t->runs < RD_MGPU_MAX_RUNS ? t->runs : RD_MGPU_MAX_RUNS - 1] =
            sb_now() - t->loop_start;
    if (mgpu_download_own(w, w->d_lat[cur]) != 0 ||
        sb_copy(&w->xfer, w->h_planes, w->d_planes, t->planes_bytes, cudaMemcpyDeviceToHost,
                w->st[0]) != 0 ||
        sb_copy(&w->xfer, w->h_fired, w->d_fired, sizeof *w->h_fired, cudaMemcpyDeviceToHost,
                w->st[0]) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(w->st[0]));
    if (t->mpi) { /* every process ends with the whole output, as the harness validates it */
        int n = (int)(t->planes_bytes / sizeof(uint32_t));
        if (mgpu_mpi_gather_lattice(t) != 0)
            return -1;
        SB_MPI(MPI_Allreduce(MPI_IN_PLACE, w->h_planes, n, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD));
        SB_MPI(MPI_Allreduce(MPI_IN_PLACE, w->h_fired, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                             MPI_COMM_WORLD));
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
        mgpu_record_split(t, 0);
    atomic_store(&t->bar.failed, 0); /* a failed run may have left threads counted */
    atomic_store(&t->bar.arrived, 0);
    atomic_store(&t->bar.sum[0], 0);
    atomic_store(&t->bar.sum[1], 0);
    for (int i = 0; i < t->nslabs; i++)
        atomic_store(&t->w[i].y_step, -1);
    if (t->mpi) { /* this process's slab; the others run in their processes */
        if (mgpu_simulate(&t->w[t->lead]) != 0) {
            /* the other processes wait in a collective that will not come */
            fprintf(stderr, "stagebench: MPI rank %d: %s\n", t->lead, sb_error());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    } else if (mgpu_run_threads(t) != 0)
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
