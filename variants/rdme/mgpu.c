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
 * buffer planes back, halos included.
 *
 * Here: the set-up and the engine's other entries (mgpu.h); with, sharing mgpu-internal.h,
 *   mgpu-team.c          the host threads, one per slab near its GPU, and their barrier
 *   mgpu-run.c           a step on one GPU, a worker's run of steps
 *   mgpu-halos.c         the halo transports: staged, peer, NCCL
 *   mgpu-mpi.c           one process per slab: halos by message, collectives
 *   mgpu-host-lattice.c  planes to and from the whole lattice on the host, overflow placement
 *   mgpu-rebalance.c     the balancer
 *   mgpu-graphs.c        steps as CUDA graphs */
#include "mgpu-internal.h"

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
    if (mgpu_copy_planes(w, w->d_init, m->lattice0, t->plane_bytes, w->slab, 0,
                         w->slab.planes + 2 * halo, cudaMemcpyHostToDevice) != 0 ||
        sb_copy(&w->xfer, w->d_threshold, m->threshold, sizeof m->threshold,
                cudaMemcpyHostToDevice, w->st[0]) != 0 ||
        sb_copy(&w->xfer, w->d_reactions, &table, sizeof table, cudaMemcpyHostToDevice,
                w->st[0]) != 0)
        return -1;
    if (m->format == RD_BYTE16) {
        SB_CUDA(cudaMemsetAsync(w->d_types, 0, (size_t)buffer_planes * t->plane_sites, w->st[0]));
        if (mgpu_copy_planes(w, w->d_types, m->types, t->plane_sites, w->slab, 0,
                             w->slab.planes + 2 * halo, cudaMemcpyHostToDevice) != 0)
            return -1;
        w->types_slab = w->slab;
    }
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
    t->passes = 4;
    int one_gpu = stage->fused || stage->one_pass; /* stages of one slab on one GPU */
    t->ngpus = param_int(env, "gpus") ? param_int(env, "gpus") : one_gpu ? 1 : env->ndevices;
    t->nslabs = param_int(env, "slabs") ? param_int(env, "slabs") : t->ngpus;
    if (one_gpu && t->nslabs != 1) {
        sb_fail("gpus=%d, slabs=%d: this stage runs one slab on one GPU; leave both unset",
                t->ngpus, t->nslabs);
        return SB_REFUSED;
    }
    if (stage->path == RD_HALO_MPI && mgpu_mpi_open(t) != 0)
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
        if (mgpu_open_receive_buffers(t, &t->w[i]) != 0)
            return -1;
    if (t->mpi && !t->cuda_aware && t->nslabs > 1 && mgpu_mpi_open_buffers(t) != 0)
        return -1;
    if (stage->path == RD_HALO_NCCL && t->nslabs > 1 && mgpu_open_nccl(t) != 0)
        return -1;
    for (int i = 0; stage->graph && i < t->nslabs; i++) {
        worker *w = &t->w[i];
        if (w->recv_host[BELOW] || w->recv_host[ABOVE]) {
            sb_fail("GPU %d cannot reach its neighbours' memory (no peer access): the graph stage "
                    "needs it; run mgpu-peer-overlap",
                    w->dev);
            return SB_REFUSED;
        }
        if (mgpu_capture_graphs(w) != 0)
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
    size_t lattice_bytes = m->nsites * rd_site_bytes(m->format);
    r->bytes_moved = t->passes * rd_pass_bytes(m) * (double)m->steps + 3.0 * (double)lattice_bytes;
    r->host_launches = (4.0 + 2.0 * (t->stage.overlap && t->nslabs > 1)) * (double)m->steps *
                       t->nslabs;
    r->phases = t->phases;
    if (t->stage.balance && t->split.n > 0)
        r->series[r->nseries++] = t->split;
    rd_report_steady(m, t->passes, t->loop_seconds, t->runs < RD_MGPU_MAX_RUNS ? t->runs : RD_MGPU_MAX_RUNS,
                     &r->steady);
}
