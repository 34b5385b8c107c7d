/* The motility GPU engine (gpu.h says what an outer step does and what each switch changes).
 * One slice per GPU: a run of whole rows of tails, with its own copy of the per-tail arrays (only
 * its rows are written), Psi and the tables. Phases are timed on the host clock, the GPUs waited
 * for at each phase's end: the outer step's data flow waits there anyway (the host's macro needs
 * the coarse densities and the force), so the waits cost the step nothing it did not pay. */
#include "gpu.h"

#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/check.h"
#include "../../cuda/base/error.h"
#include "../../harness/lockstep.h"
#include "host.h"
#include "macro.h"
#include "physics.h"

const mm_kernel_config mm_kernel_restructured = {0, 0, 0, 0, 0, 0, 16, 16};
const mm_kernel_config mm_kernel_optimized = {1, 1, 1, 1, 1, 1, 8, 16};

/* Row slices (GPUs, or MPI processes) at most. */
#define MM_MAX_PARTS 256

typedef struct mm_slice {
    int device;
    cudaStream_t stream;
    int first, end; /* tails */
    int capacity;   /* tails its M_b holds: end - first, or a piece's (original) */
    void *m_b, *rate_prev;
    double *dt_prev, *psi, *m_tot, *m_f, *coarse, *force, *dt;
    unsigned long long *inner_steps;
    int *line_first, *line_end, *active_lines, *cell_start;
    unsigned short *cells;
    double *cos_theta, *sin_theta, *s_mid;
    cudaEvent_t done; /* multi-gpu-macro: its step's coarse, M_f and F are on GPU 0 */
} mm_slice;

typedef struct mm_gpu {
    sb_env *env;
    const mm_model *m;
    mm_stage_config cfg;
    size_t real, tail_entries, tail_bytes; /* a tail's M_b in the kernel's precision */
    int levels;                            /* M_b, and AB2's previous rates */
    int nslices;
    mm_slice slice[SB_MAX_DEVICES];
    sb_lockstep mpi; /* MM_MPI: this process's rank; slice[0] is its rows */
    int row_first[MM_MAX_PARTS + 1]; /* rows of slice (or rank) i: [row_first[i], [i + 1]) */
    mm_sim sim;      /* the host's macroscale */
    int *active_lines, nactive; /* lines that meet the capture disc */
    unsigned short *cells;      /* the cells an inner step touches, by centre (mm_micro_args) */
    int *cell_start;
    /* original: M_b (and AB2's rates and steps) live here, in the kernel's storage */
    void *host_m_b, *host_rate;
    double *host_dt_prev;
    double *force_part; /* the F of GPUs 1, 2, ..., added into the host's */
    int pinned;         /* the host's exchanged arrays are page-locked (cudaHostRegister) */
    int reach;
    size_t active; /* entries of a tail's M_b an inner step touches (feasible runs and after) */
    /* gpu-macro: the macroscale on the GPU, and each outer step's dt kept there */
    mm_dmacro macro;
    double *d_steps_dt, *h_steps_dt;
    /* multi-gpu-macro: GPU 0's copy of the other slices' F, and Psi's being ready there */
    double *d_force_parts;
    cudaEvent_t psi_ready;
    int runs;
    sb_phases phases;
} mm_gpu;

/* ---- set-up ---- */

static int check_algorithm(const mm_gpu *g)
{
    const mm_model *m = g->m;
    if (g->cfg.residence == MM_PIECES && !(m->global_dt && m->ab2))
        return sb_fail("original is the earlier algorithm, a global inner step and Adams-Bashforth "
                       "2: run it with --param inner_dt=global --param integrator=ab2");
    if (g->cfg.gpu_macro && m->global_dt)
        return sb_fail("gpu-macro takes local inner steps (a global one is a reduction on the "
                       "host each outer step, the round trip it removes): drop inner_dt=global");
    return 0;
}

static int alloc(mm_gpu *g, mm_slice *s, void **p, size_t bytes, const char *what)
{
    return sb_dev_alloc(&g->env->mem, s->device, p, bytes, what);
}

static int upload(mm_gpu *g, mm_slice *s, void *to, const void *from, size_t bytes)
{
    SB_CUDA(cudaSetDevice(s->device));
    if (sb_copy(&g->env->xfer, to, from, bytes, cudaMemcpyHostToDevice, s->stream) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(s->stream));
    return 0;
}

/* How many tails' M_b fit on the slice's GPU beside `reserve` bytes: every tail (resident), or a
 * piece (original). Refused before anything is launched when not even the stage's minimum fits:
 * the paper's "X" cells. */
static int fit_tails(mm_gpu *g, mm_slice *s, size_t reserve)
{
    const mm_model *m = g->m;
    size_t free_bytes = 0, total = 0, per_tail = g->levels * g->tail_bytes;
    int tails = s->end - s->first;
    SB_CUDA(cudaSetDevice(s->device));
    SB_CUDA(cudaMemGetInfo(&free_bytes, &total));
    size_t room = free_bytes > reserve ? free_bytes - reserve : 0;
    if (g->cfg.residence == MM_PIECES) {
        long long asked = (long long)sb_param_num(g->env->params, "piece_tails");
        long long fit = (long long)(room / per_tail);
        s->capacity = (int)(asked > 0 && asked < fit ? asked : fit < tails ? fit : tails);
        if (s->capacity >= 1)
            return 0;
    } else if ((size_t)tails * per_tail <= room) {
        s->capacity = tails;
        return 0;
    }
    char need[32], have[32];
    sb_fail("M_b of %d tails at outer=%d inner=%d in fp%d (%d level%s) needs %s on GPU %d, which "
            "has %s free: it does not fit (the paper's X); use more GPUs (multi-gpu) or the "
            "original's pieces",
            g->cfg.residence == MM_PIECES ? 1 : tails, m->n_outer, m->n_inner,
            g->cfg.kernel.fp32 ? 32 : 64, g->levels, g->levels > 1 ? "s" : "",
            sb_format_bytes((double)(g->cfg.residence == MM_PIECES ? 1 : tails) * per_tail + reserve,
                            need, sizeof need),
            s->device, sb_format_bytes((double)free_bytes, have, sizeof have));
    return SB_REFUSED;
}

static int open_slice(mm_gpu *g, mm_slice *s)
{
    const mm_model *m = g->m;
    size_t cells = (size_t)m->n_outer * m->n_outer, lines = (size_t)m->window * m->n_inner;
    size_t small = (cells * m->n_inner + 5 * cells + 2 * lines + 3 * m->n_inner) * sizeof(double) +
                   lines * 2 * sizeof(int) + (64u << 20);
    int rc = fit_tails(g, s, small);
    if (rc != 0)
        return rc;
    char what[160];
    snprintf(what, sizeof what, "M_b of %d tails (fp%d)", s->capacity, g->cfg.kernel.fp32 ? 32 : 64);
    if ((rc = alloc(g, s, &s->m_b, (size_t)s->capacity * g->tail_bytes, what)) != 0)
        return rc;
    if (m->ab2 && (rc = alloc(g, s, &s->rate_prev, (size_t)s->capacity * g->tail_bytes,
                              "AB2's previous rates")) != 0)
        return rc;
    void **small_arrays[] = {(void **)&s->dt_prev, (void **)&s->m_tot, (void **)&s->m_f,
                             (void **)&s->coarse, (void **)&s->dt};
    size_t small_sizes[] = {cells, cells, cells, cells, 1};
    for (int i = 0; i < 5; i++)
        if ((rc = alloc(g, s, small_arrays[i], small_sizes[i] * sizeof(double), "per-tail arrays")) != 0)
            return rc;
    if ((rc = alloc(g, s, (void **)&s->psi, cells * m->n_inner * sizeof(double), "Psi")) != 0 ||
        (rc = alloc(g, s, (void **)&s->force, 2 * cells * sizeof(double), "F")) != 0 ||
        (rc = alloc(g, s, (void **)&s->inner_steps, sizeof *s->inner_steps, "step count")) != 0 ||
        (rc = alloc(g, s, (void **)&s->line_first, lines * sizeof(int), "line table")) != 0 ||
        (rc = alloc(g, s, (void **)&s->line_end, lines * sizeof(int), "line table")) != 0 ||
        (rc = alloc(g, s, (void **)&s->active_lines, lines * sizeof(int), "line table")) != 0 ||
        (rc = alloc(g, s, (void **)&s->cells, g->active * sizeof *s->cells, "cell lists")) != 0 ||
        (rc = alloc(g, s, (void **)&s->cell_start, (m->window + 1) * sizeof(int), "cell lists")) != 0 ||
        (rc = alloc(g, s, (void **)&s->cos_theta, m->n_inner * sizeof(double), "tables")) != 0 ||
        (rc = alloc(g, s, (void **)&s->sin_theta, m->n_inner * sizeof(double), "tables")) != 0 ||
        (rc = alloc(g, s, (void **)&s->s_mid, m->n_inner * sizeof(double), "tables")) != 0)
        return rc;
    if (upload(g, s, s->m_tot, m->m_tot, cells * sizeof(double)) != 0 ||
        upload(g, s, s->line_first, m->line_first, lines * sizeof(int)) != 0 ||
        upload(g, s, s->line_end, m->line_end, lines * sizeof(int)) != 0 ||
        upload(g, s, s->active_lines, g->active_lines, (size_t)g->nactive * sizeof(int)) != 0 ||
        upload(g, s, s->cells, g->cells, g->active * sizeof *s->cells) != 0 ||
        upload(g, s, s->cell_start, g->cell_start, (m->window + 1) * sizeof(int)) != 0 ||
        upload(g, s, s->cos_theta, m->cos_theta, m->n_inner * sizeof(double)) != 0 ||
        upload(g, s, s->sin_theta, m->sin_theta, m->n_inner * sizeof(double)) != 0 ||
        upload(g, s, s->s_mid, m->s_mid, m->n_inner * sizeof(double)) != 0)
        return -1;
    return 0;
}

/* The slices: one per GPU in use, or this process's one under MPI. */
static int open_slices(mm_gpu *g)
{
    sb_env *env = g->env;
    int gpus = 1;
    if (g->cfg.processes == MM_MPI) {
        if (sb_lockstep_open(env, &g->mpi) != 0)
            return -1;
        if (g->mpi.size > g->m->n_outer || g->mpi.size > MM_MAX_PARTS)
            return sb_fail("%d MPI processes for %d rows of tails: use at most %d", g->mpi.size,
                           g->m->n_outer,
                           g->m->n_outer < MM_MAX_PARTS ? g->m->n_outer : MM_MAX_PARTS);
        mm_split_rows(g->m, g->m->psi0, g->mpi.size, g->row_first);
        g->nslices = 1;
        int local = g->mpi.local_rank % env->ndevices;
        g->slice[0].device = env->devices[local];
        g->slice[0].stream = env->streams[local];
        g->slice[0].first = g->row_first[g->mpi.rank] * g->m->n_outer;
        g->slice[0].end = g->row_first[g->mpi.rank + 1] * g->m->n_outer;
    } else {
        if (g->cfg.multi_gpu) {
            gpus = sb_param_is_set(env->params, "gpus") ? (int)sb_param_num(env->params, "gpus")
                                                         : env->ndevices;
            if (gpus > env->ndevices) {
                sb_fail("gpus=%d: this machine has %d GPU%s", gpus, env->ndevices,
                        env->ndevices == 1 ? "" : "s");
                return SB_REFUSED;
            }
        }
        /* slices=N > gpus: several slices a GPU, in turn (checks the split on fewer GPUs) */
        int slices = g->cfg.multi_gpu && sb_param_is_set(env->params, "slices")
                         ? (int)sb_param_num(env->params, "slices")
                         : gpus;
        if (slices < gpus || slices > g->m->n_outer)
            return sb_fail("slices=%d: use %d to %d (at least a GPU's worth, at most a row each)",
                           slices, gpus, g->m->n_outer);
        mm_split_rows(g->m, g->m->psi0, slices, g->row_first);
        g->nslices = slices;
        for (int i = 0; i < slices; i++) {
            g->slice[i].device = env->devices[i % gpus];
            g->slice[i].stream = env->streams[i % gpus];
            g->slice[i].first = g->row_first[i] * g->m->n_outer;
            g->slice[i].end = g->row_first[i + 1] * g->m->n_outer;
        }
    }
    for (int i = 0; i < g->nslices; i++) {
        int rc = open_slice(g, &g->slice[i]);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The host arrays every step copies to and from the GPUs, page-locked so that the copies to
 * several GPUs run at once and at full speed (Psi's two buffers: the transport swaps them). */
static int pin_exchanged(mm_gpu *g, int pin)
{
    size_t cells = (size_t)g->m->n_outer * g->m->n_outer, psi = cells * g->m->n_inner;
    void *host[] = {g->sim.psi, g->sim.psi_next, g->sim.coarse, g->sim.m_f, g->sim.force,
                    g->force_part};
    size_t bytes[] = {psi, psi, cells, cells, 2 * cells,
                      (size_t)(g->nslices > 1 ? g->nslices - 1 : 1) * 2 * cells};
    for (int i = 0; i < 6; i++) {
        if (pin)
            SB_CUDA(cudaHostRegister(host[i], bytes[i] * sizeof(double), cudaHostRegisterPortable));
        else
            cudaHostUnregister(host[i]);
    }
    g->pinned = pin;
    return 0;
}

/* The lines that meet the capture disc, and every centre's cells an inner step touches (those
 * lines from their first feasible cell on), in the dimension mapping's order: s fastest (a
 * line's cells one after another) or theta fastest. The same for every tail. */
static int list_cells(mm_gpu *g)
{
    const mm_model *m = g->m;
    int ni = m->n_inner;
    size_t lines = (size_t)m->window * ni;
    g->active_lines = malloc(lines * sizeof *g->active_lines);
    g->cells = malloc(lines * ni * sizeof *g->cells);
    g->cell_start = malloc((size_t)(m->window + 1) * sizeof *g->cell_start);
    if (!g->active_lines || !g->cells || !g->cell_start)
        return sb_fail("out of host memory");
    for (int w = 0; w < m->window; w++) {
        const int *first = m->line_first + w * ni, *end = m->line_end + w * ni;
        g->cell_start[w] = (int)g->active;
        for (int k = 0; k < ni; k++)
            if (first[k] != end[k])
                g->active_lines[g->nactive++] = w * ni + k;
        for (int a = 0; a < ni; a++)
            for (int b = 0; b < ni; b++) {
                int k = g->cfg.kernel.map_s_to_x ? a : b, s = g->cfg.kernel.map_s_to_x ? b : a;
                if (first[k] != end[k] && s >= first[k])
                    g->cells[g->active++] = (unsigned short)(k << 8 | s);
            }
    }
    g->cell_start[m->window] = (int)g->active;
    return 0;
}

/* multi-gpu-macro: peer access between GPU 0 and each other GPU (where the topology allows;
 * the copies go through the host otherwise), the buffer for the other slices' F on GPU 0, and
 * the events that order the GPUs' streams, so that the steps queue without the host waiting. */
static int open_exchange(mm_gpu *g)
{
    mm_slice *lead = &g->slice[0];
    size_t plane_pair = 2 * (size_t)g->m->n_outer * g->m->n_outer * sizeof(double);
    int rc = alloc(g, lead, (void **)&g->d_force_parts, (size_t)(g->nslices - 1) * plane_pair,
                   "the other GPUs' F");
    if (rc != 0)
        return rc;
    SB_CUDA(cudaSetDevice(lead->device));
    SB_CUDA(cudaEventCreateWithFlags(&g->psi_ready, cudaEventDisableTiming));
    for (int i = 0; i < g->nslices; i++) {
        mm_slice *s = &g->slice[i];
        SB_CUDA(cudaSetDevice(s->device));
        SB_CUDA(cudaEventCreateWithFlags(&s->done, cudaEventDisableTiming));
        int a = s->device, b = lead->device, can = 0;
        if (a == b)
            continue;
        SB_CUDA(cudaDeviceCanAccessPeer(&can, a, b));
        for (int way = 0; can && way < 2; way++) {
            SB_CUDA(cudaSetDevice(way ? b : a));
            cudaError_t e = cudaDeviceEnablePeerAccess(way ? a : b, 0);
            if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
                return sb_fail("enabling peer access between GPUs %d and %d: %s", a, b,
                               cudaGetErrorString(e));
            cudaGetLastError(); /* clear "already enabled" */
        }
    }
    return 0;
}

int mm_gpu_setup(sb_env *env, const void *model, void **state, const mm_stage_config *config)
{
    mm_gpu *g = calloc(1, sizeof *g);
    if (!g)
        return sb_fail("out of host memory");
    *state = g;
    const mm_model *m = model;
    g->env = env;
    g->m = m;
    g->cfg = *config;
    g->real = config->kernel.fp32 ? sizeof(float) : sizeof(double);
    g->tail_entries = (size_t)m->window * m->n_inner * m->n_inner;
    g->tail_bytes = g->tail_entries * g->real;
    g->levels = m->ab2 ? 2 : 1;
    g->reach = m->half + (int)ceil(m->laws.ell / 2) + 1;
    int rc = check_algorithm(g);
    if (rc != 0)
        return rc;
    if ((rc = list_cells(g)) != 0)
        return rc;
    if ((rc = open_slices(g)) != 0)
        return rc;
    if (g->cfg.residence == MM_PIECES) {
        size_t tails = (size_t)m->n_outer * m->n_outer;
        g->host_m_b = malloc(tails * g->tail_bytes);
        g->host_rate = malloc(tails * g->tail_bytes);
        g->host_dt_prev = malloc(tails * sizeof(double));
        if (!g->host_m_b || !g->host_rate || !g->host_dt_prev) {
            char need[32];
            sb_fail("out of host memory for the original's M_b and AB2 rates (%s)",
                    sb_format_bytes(2.0 * tails * g->tail_bytes, need, sizeof need));
            return SB_REFUSED;
        }
    }
    if (g->cfg.gpu_macro) {
        mm_slice *s = &g->slice[0];
        if ((rc = mm_dmacro_open(&g->macro, env, m, s->device, s->stream)) != 0 ||
            (rc = alloc(g, s, (void **)&g->d_steps_dt, (size_t)m->steps * sizeof(double),
                        "each outer step's dt")) != 0)
            return rc;
        g->h_steps_dt = malloc((size_t)m->steps * sizeof(double));
        if (!g->h_steps_dt)
            return sb_fail("out of host memory");
        s->psi = g->macro.psi; /* the kernels read the macro's Psi where it lives */
        return g->nslices > 1 ? open_exchange(g) : 0;
    }
    /* the host's macro on every core, as the paper's OpenMP (cpu_threads: OMP_NUM_THREADS or
     * the cores this process may run on). Under MPI the processes of a host share its cores: a
     * team of all of them in every process puts several threads on a core, and each barrier
     * waits for the threads without one (2 processes on 32 cores, 64^2 x 16^2: 64 ms a run of 2
     * outer steps with 32 threads each, 3.3 ms with 16) */
    int threads = env->cpu_threads;
    if (g->cfg.processes == MM_MPI)
        threads = threads > g->mpi.local_size ? threads / g->mpi.local_size : 1;
    if ((rc = mm_sim_open(&g->sim, m, threads, 0, 0)) != 0)
        return rc;
    size_t cells = (size_t)m->n_outer * m->n_outer;
    g->force_part = malloc((size_t)(g->nslices > 1 ? g->nslices - 1 : 1) * 2 * cells * sizeof(double));
    if (!g->force_part)
        return sb_fail("out of host memory");
    return pin_exchanged(g, 1);
}

void mm_gpu_teardown(void *state)
{
    mm_gpu *g = state;
    if (!g)
        return;
    if (g->pinned)
        pin_exchanged(g, 0);
    if (g->sim.m)
        mm_sim_close(&g->sim);
    if (g->macro.m)
        mm_dmacro_close(&g->macro);
    for (int i = 0; i < g->nslices; i++)
        if (g->slice[i].done) {
            cudaSetDevice(g->slice[i].device);
            cudaEventDestroy(g->slice[i].done);
        }
    if (g->psi_ready) {
        cudaSetDevice(g->slice[0].device);
        cudaEventDestroy(g->psi_ready);
    }
    sb_dev_free_all(&g->env->mem);
    free(g->h_steps_dt);
    free(g->cells);
    free(g->cell_start);
    free(g->active_lines);
    free(g->force_part);
    free(g->host_m_b);
    free(g->host_rate);
    free(g->host_dt_prev);
    free(g);
}

/* ---- the outer step ---- */

static int wait_all(mm_gpu *g)
{
    for (int i = 0; i < g->nslices; i++) {
        SB_CUDA(cudaSetDevice(g->slice[i].device));
        SB_CUDA(cudaStreamSynchronize(g->slice[i].stream));
    }
    return 0;
}

static int reset(mm_gpu *g)
{
    const mm_model *m = g->m;
    size_t cells = (size_t)m->n_outer * m->n_outer;
    if (g->cfg.gpu_macro) {
        if (mm_dmacro_reset(&g->macro) != 0)
            return -1;
    } else
        mm_sim_reset(&g->sim);
    for (int i = 0; i < g->nslices; i++) {
        mm_slice *s = &g->slice[i];
        SB_CUDA(cudaSetDevice(s->device));
        if (g->cfg.residence == MM_RESIDENT) {
            SB_CUDA(cudaMemsetAsync(s->m_b, 0, (size_t)s->capacity * g->tail_bytes, s->stream));
            if (s->rate_prev)
                SB_CUDA(cudaMemsetAsync(s->rate_prev, 0, (size_t)s->capacity * g->tail_bytes,
                                        s->stream));
        }
        SB_CUDA(cudaMemsetAsync(s->dt_prev, 0, cells * sizeof(double), s->stream));
        SB_CUDA(cudaMemsetAsync(s->coarse, 0, cells * sizeof(double), s->stream));
        SB_CUDA(cudaMemsetAsync(s->inner_steps, 0, sizeof *s->inner_steps, s->stream));
        if (sb_copy(&g->env->xfer, s->m_f, s->m_tot, cells * sizeof(double),
                    cudaMemcpyDeviceToDevice, s->stream) != 0)
            return -1;
    }
    /* every GPU clears its M_b at once, not one after the other (13 GB in all at 256^2 x 32^2) */
    if (wait_all(g) != 0)
        return -1;
    if (g->cfg.residence == MM_PIECES) {
        memset(g->host_m_b, 0, cells * g->tail_bytes);
        memset(g->host_rate, 0, cells * g->tail_bytes);
        memset(g->host_dt_prev, 0, cells * sizeof(double));
    }
    return 0;
}

static int is_lead(const mm_gpu *g)
{
    return g->cfg.processes != MM_MPI || g->mpi.rank == 0;
}

/* The rows of Psi a slice's kernels read (its tails' windows), from `from` on GPU `from_device`
 * (-1: the host) into the slice's Psi at the same place. */
static int copy_psi_rows(mm_gpu *g, mm_slice *s, const double *from, int from_device)
{
    const mm_model *m = g->m;
    size_t row = (size_t)m->n_outer * m->n_inner; /* Psi's entries a row of cells */
    int first[2], count[2];
    int runs = mm_psi_rows(m, s->first / m->n_outer, s->end / m->n_outer, first, count);
    for (int r = 0; r < runs; r++) {
        size_t at = (size_t)first[r] * row, bytes = (size_t)count[r] * row * sizeof(double);
        if ((from_device < 0 ? sb_copy(&g->env->xfer, s->psi + at, from + at, bytes,
                                       cudaMemcpyHostToDevice, s->stream)
                             : sb_copy_peer(&g->env->xfer, s->psi + at, s->device, from + at,
                                            from_device, bytes, s->stream)) != 0)
            return -1;
    }
    return 0;
}

/* Psi and dt from the host (MPI: from rank 0) to every GPU. */
static int send_psi(mm_gpu *g, double *dt)
{
    const mm_model *m = g->m;
    size_t psi = (size_t)m->n_outer * m->n_outer * m->n_inner;
    if (g->cfg.processes == MM_MPI) {
        SB_MPI(MPI_Bcast(g->sim.psi, (int)psi, MPI_DOUBLE, 0, MPI_COMM_WORLD));
        SB_MPI(MPI_Bcast(dt, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    }
    for (int i = 0; i < g->nslices; i++) {
        mm_slice *s = &g->slice[i];
        SB_CUDA(cudaSetDevice(s->device));
        if (copy_psi_rows(g, s, g->sim.psi, -1) != 0 ||
            sb_copy(&g->env->xfer, s->dt, dt, sizeof *dt, cudaMemcpyHostToDevice, s->stream) != 0)
            return -1;
    }
    return wait_all(g);
}

/* The global rule's one limit for every tail: the smallest over all of them, reduced on the host
 * (the original algorithm's synchronisation point). 0 under the local rule. */
static double global_limit(mm_gpu *g)
{
    const mm_model *m = g->m;
    if (!m->global_dt)
        return 0;
    double limit = INFINITY;
    int tails = m->n_outer * m->n_outer;
#pragma omp parallel for schedule(static) reduction(min : limit) num_threads(g->sim.threads)
    for (int r0 = 0; r0 < tails; r0++)
        limit = fmin(limit, mm_inner_limit(&m->laws, m->ds, mm_capacity(m, g->sim.psi, r0)));
    return limit;
}

static mm_micro_args micro_args(const mm_gpu *g, const mm_slice *s, double limit)
{
    const mm_model *m = g->m;
    mm_micro_args a = {s->m_b, s->rate_prev, s->dt_prev, s->psi, s->m_tot, s->m_f, s->coarse,
                       s->dt, limit, s->inner_steps, s->line_first, s->line_end, s->cells, s->cell_start,
                       s->first, s->end, m->n_outer, m->n_inner, m->half, m->side, m->window,
                       m->ab2, m->ds, m->dtheta, m->laws};
    return a;
}

static mm_force_args force_args(const mm_gpu *g, const mm_slice *s)
{
    const mm_model *m = g->m;
    mm_force_args a = {s->m_b, s->psi, s->force, s->line_first, s->active_lines, g->nactive,
                       s->cos_theta, s->sin_theta, s->s_mid, s->first, s->end, m->n_outer,
                       m->n_inner, m->half, m->side, m->window, g->reach,
                       m->laws.f0 * m->dtheta * m->ds};
    return a;
}

static int zero_force(mm_gpu *g)
{
    size_t bytes = 2 * (size_t)g->m->n_outer * g->m->n_outer * sizeof(double);
    for (int i = 0; i < g->nslices; i++) {
        SB_CUDA(cudaSetDevice(g->slice[i].device));
        SB_CUDA(cudaMemsetAsync(g->slice[i].force, 0, bytes, g->slice[i].stream));
    }
    return 0;
}

/* A phase ends when every GPU is done with it, its time then taken; unless `timed` is 0:
 * gpu-macro's later runs queue every step and wait once, at the end (the first run, which
 * validates, is the timed one). */
static int phase_end(mm_gpu *g, const char *name, double started, int timed)
{
    if (!timed)
        return 0;
    if (wait_all(g) != 0)
        return -1;
    sb_phase_end(&g->phases, name, started);
    return 0;
}

/* Resident M_b: every GPU's tails in one launch each, then the force. */
static int micro_and_force(mm_gpu *g, double limit, int timed)
{
    double t0 = sb_phase_begin(g->env, "micro");
    for (int i = 0; i < g->nslices; i++) {
        mm_slice *s = &g->slice[i];
        mm_micro_args a = micro_args(g, s, limit);
        SB_CUDA(cudaSetDevice(s->device));
        if (mm_launch_micro(&g->cfg.kernel, &a, s->stream) != 0)
            return -1;
    }
    if (phase_end(g, "micro", t0, timed) != 0)
        return -1;
    t0 = sb_phase_begin(g->env, "force");
    if (zero_force(g) != 0)
        return -1;
    for (int i = 0; i < g->nslices; i++) {
        mm_slice *s = &g->slice[i];
        mm_force_args a = force_args(g, s);
        SB_CUDA(cudaSetDevice(s->device));
        if (mm_launch_force(&g->cfg.kernel, &a, s->stream) != 0)
            return -1;
    }
    return phase_end(g, "force", t0, timed);
}

/* The original: M_b (and AB2's rates and last steps) on the host, through the GPU a piece at a
 * time: up, the micro kernel, the force of the piece, down. */
static int micro_and_force_in_pieces(mm_gpu *g, double limit)
{
    mm_slice *s = &g->slice[0];
    sb_transfers *x = &g->env->xfer;
    SB_CUDA(cudaSetDevice(s->device));
    if (zero_force(g) != 0)
        return -1;
    for (int first = 0; first < s->end; first += s->capacity) {
        int end = first + s->capacity < s->end ? first + s->capacity : s->end;
        size_t bytes = (size_t)(end - first) * g->tail_bytes, at = (size_t)first * g->tail_bytes;
        double t0 = sb_phase_begin(g->env, "transfers");
        if (sb_copy(x, s->m_b, (char *)g->host_m_b + at, bytes, cudaMemcpyHostToDevice,
                    s->stream) != 0 ||
            sb_copy(x, s->rate_prev, (char *)g->host_rate + at, bytes, cudaMemcpyHostToDevice,
                    s->stream) != 0 ||
            sb_copy(x, s->dt_prev + first, g->host_dt_prev + first,
                    (size_t)(end - first) * sizeof(double), cudaMemcpyHostToDevice,
                    s->stream) != 0)
            return -1;
        SB_CUDA(cudaStreamSynchronize(s->stream));
        sb_phase_end(&g->phases, "transfers", t0);
        mm_slice piece = *s;
        piece.first = first;
        piece.end = end;
        t0 = sb_phase_begin(g->env, "micro");
        mm_micro_args a = micro_args(g, &piece, limit);
        if (mm_launch_micro(&g->cfg.kernel, &a, s->stream) != 0)
            return -1;
        SB_CUDA(cudaStreamSynchronize(s->stream));
        sb_phase_end(&g->phases, "micro", t0);
        t0 = sb_phase_begin(g->env, "force");
        mm_force_args f = force_args(g, &piece);
        if (mm_launch_force(&g->cfg.kernel, &f, s->stream) != 0)
            return -1;
        SB_CUDA(cudaStreamSynchronize(s->stream));
        sb_phase_end(&g->phases, "force", t0);
        t0 = sb_phase_begin(g->env, "transfers");
        if (sb_copy(x, (char *)g->host_m_b + at, s->m_b, bytes, cudaMemcpyDeviceToHost,
                    s->stream) != 0 ||
            sb_copy(x, (char *)g->host_rate + at, s->rate_prev, bytes, cudaMemcpyDeviceToHost,
                    s->stream) != 0 ||
            sb_copy(x, g->host_dt_prev + first, s->dt_prev + first,
                    (size_t)(end - first) * sizeof(double), cudaMemcpyDeviceToHost,
                    s->stream) != 0)
            return -1;
        SB_CUDA(cudaStreamSynchronize(s->stream));
        sb_phase_end(&g->phases, "transfers", t0);
    }
    return 0;
}

/* MPI: rank r's tails, [starts[r], starts[r] + counts[r]). */
static void rank_tails(const mm_gpu *g, int *counts, int *starts)
{
    for (int r = 0; r < g->mpi.size; r++) {
        starts[r] = g->row_first[r] * g->m->n_outer;
        counts[r] = (g->row_first[r + 1] - g->row_first[r]) * g->m->n_outer;
    }
}

/* Coarse densities and M_f of each GPU's rows, and the sum of every GPU's F, to the host (MPI:
 * gathered and reduced at rank 0). */
static int collect(mm_gpu *g)
{
    const mm_model *m = g->m;
    sb_transfers *x = &g->env->xfer;
    size_t cells = (size_t)m->n_outer * m->n_outer;
    for (int i = 0; i < g->nslices; i++) { /* every GPU's copies at once */
        mm_slice *s = &g->slice[i];
        size_t rows = (size_t)(s->end - s->first) * sizeof(double);
        double *force = i == 0 ? g->sim.force : g->force_part + (size_t)(i - 1) * 2 * cells;
        SB_CUDA(cudaSetDevice(s->device));
        if (sb_copy(x, g->sim.coarse + s->first, s->coarse + s->first, rows,
                    cudaMemcpyDeviceToHost, s->stream) != 0 ||
            sb_copy(x, g->sim.m_f + s->first, s->m_f + s->first, rows, cudaMemcpyDeviceToHost,
                    s->stream) != 0 ||
            sb_copy(x, force, s->force, 2 * cells * sizeof(double), cudaMemcpyDeviceToHost,
                    s->stream) != 0)
            return -1;
    }
    if (wait_all(g) != 0)
        return -1;
    for (int i = 1; i < g->nslices; i++) /* in GPU order: the same sums every run */
        for (size_t c = 0; c < 2 * cells; c++)
            g->sim.force[c] += g->force_part[(size_t)(i - 1) * 2 * cells + c];
    if (g->cfg.processes != MM_MPI || g->mpi.size == 1)
        return 0;
    int counts[MM_MAX_PARTS], starts[MM_MAX_PARTS];
    rank_tails(g, counts, starts);
    int rank = g->mpi.rank, lead = rank == 0;
    SB_MPI(MPI_Gatherv(lead ? MPI_IN_PLACE : g->sim.coarse + starts[rank], counts[rank], MPI_DOUBLE,
                       g->sim.coarse, counts, starts, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    SB_MPI(MPI_Gatherv(lead ? MPI_IN_PLACE : g->sim.m_f + starts[rank], counts[rank], MPI_DOUBLE,
                       g->sim.m_f, counts, starts, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    SB_MPI(MPI_Reduce(lead ? MPI_IN_PLACE : g->sim.force, g->sim.force, (int)(2 * cells),
                      MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    return 0;
}

static int step(mm_gpu *g)
{
    double dt = 0, t0;
    if (is_lead(g)) {
        t0 = sb_phase_begin(g->env, "psi");
        dt = mm_macro_psi(&g->sim);
        sb_phase_end(&g->phases, "psi", t0);
    }
    t0 = sb_phase_begin(g->env, "transfers");
    if (send_psi(g, &dt) != 0)
        return -1;
    sb_phase_end(&g->phases, "transfers", t0);
    t0 = sb_phase_begin(g->env, "micro");
    double limit = global_limit(g);
    sb_phase_end(&g->phases, "micro", t0);
    if ((g->cfg.residence == MM_PIECES ? micro_and_force_in_pieces(g, limit)
                                       : micro_and_force(g, limit, 1)) != 0)
        return -1;
    t0 = sb_phase_begin(g->env, "transfers");
    if (collect(g) != 0)
        return -1;
    sb_phase_end(&g->phases, "transfers", t0);
    if (is_lead(g)) {
        t0 = sb_phase_begin(g->env, "fluid");
        mm_macro_fluid(&g->sim);
        sb_phase_end(&g->phases, "fluid", t0);
    }
    g->sim.t += dt;
    return 0;
}

/* multi-gpu-macro: Psi (the rows each slice reads) and dt from GPU 0 to the other slices, each
 * slice's stream waiting for them on GPU 0 first. */
static int share_psi(mm_gpu *g)
{
    mm_slice *lead = &g->slice[0];
    SB_CUDA(cudaSetDevice(lead->device));
    SB_CUDA(cudaEventRecord(g->psi_ready, lead->stream));
    for (int i = 1; i < g->nslices; i++) {
        mm_slice *s = &g->slice[i];
        SB_CUDA(cudaSetDevice(s->device));
        SB_CUDA(cudaStreamWaitEvent(s->stream, g->psi_ready, 0));
        if (copy_psi_rows(g, s, g->macro.psi, lead->device) != 0 ||
            sb_copy_peer(&g->env->xfer, s->dt, s->device, lead->dt, lead->device, sizeof(double),
                         s->stream) != 0)
            return -1;
    }
    return 0;
}

/* multi-gpu-macro: each other slice's coarse densities and M_f (its rows) and its F onto GPU 0,
 * then GPU 0's stream waits for them and adds the F in slice order. */
static int gather_on_lead(mm_gpu *g)
{
    mm_slice *lead = &g->slice[0];
    size_t cells = (size_t)g->m->n_outer * g->m->n_outer;
    for (int i = 1; i < g->nslices; i++) {
        mm_slice *s = &g->slice[i];
        size_t rows = (size_t)(s->end - s->first) * sizeof(double);
        SB_CUDA(cudaSetDevice(s->device));
        if (sb_copy_peer(&g->env->xfer, lead->coarse + s->first, lead->device,
                         s->coarse + s->first, s->device, rows, s->stream) != 0 ||
            sb_copy_peer(&g->env->xfer, lead->m_f + s->first, lead->device, s->m_f + s->first,
                         s->device, rows, s->stream) != 0 ||
            sb_copy_peer(&g->env->xfer, g->d_force_parts + (size_t)(i - 1) * 2 * cells,
                         lead->device, s->force, s->device, 2 * cells * sizeof(double),
                         s->stream) != 0)
            return -1;
        SB_CUDA(cudaEventRecord(s->done, s->stream));
    }
    SB_CUDA(cudaSetDevice(lead->device));
    for (int i = 1; i < g->nslices; i++)
        SB_CUDA(cudaStreamWaitEvent(lead->stream, g->slice[i].done, 0));
    for (int i = 1; i < g->nslices; i++)
        if (mm_dmacro_add(&g->macro, lead->force, g->d_force_parts + (size_t)(i - 1) * 2 * cells,
                          2 * cells) != 0)
            return -1;
    return 0;
}

static int step_on_gpu(mm_gpu *g, long long k, int timed)
{
    mm_slice *lead = &g->slice[0];
    double t0 = sb_phase_begin(g->env, "psi");
    if (mm_dmacro_psi(&g->macro, lead->coarse, lead->dt) != 0 ||
        sb_copy(&g->env->xfer, g->d_steps_dt + k, lead->dt, sizeof(double),
                cudaMemcpyDeviceToDevice, lead->stream) != 0 ||
        phase_end(g, "psi", t0, timed) != 0)
        return -1;
    if (g->nslices > 1) {
        t0 = sb_phase_begin(g->env, "transfers");
        if (share_psi(g) != 0 || phase_end(g, "transfers", t0, timed) != 0)
            return -1;
    }
    if (micro_and_force(g, 0, timed) != 0)
        return -1;
    if (g->nslices > 1) {
        t0 = sb_phase_begin(g->env, "transfers");
        if (gather_on_lead(g) != 0 || phase_end(g, "transfers", t0, timed) != 0)
            return -1;
    }
    t0 = sb_phase_begin(g->env, "fluid");
    if (mm_dmacro_fluid(&g->macro, lead->force) != 0 || phase_end(g, "fluid", t0, timed) != 0)
        return -1;
    return 0;
}

int mm_gpu_run(void *state)
{
    mm_gpu *g = state;
    int timed = !g->cfg.gpu_macro || g->runs == 0;
    if (timed) /* gpu-macro's untimed runs leave the first run's phases in the report */
        sb_phases_clear(&g->phases);
    if (reset(g) != 0)
        return -1;
    for (long long k = 0; k < g->m->steps; k++)
        if ((g->cfg.gpu_macro ? step_on_gpu(g, k, timed) : step(g)) != 0)
            return -1;
    if (g->cfg.gpu_macro && wait_all(g) != 0)
        return -1;
    g->runs++;
    return 0;
}

/* ---- output ---- */

void mm_bound_to_model(const mm_model *m, const mm_kernel_config *k, const void *from, double *to,
                       size_t tails)
{
    size_t ni = (size_t)m->n_inner, tile = ni * ni;
    long long tiles = (long long)(tails * m->window);
#pragma omp parallel for schedule(static)
    for (long long t = 0; t < tiles; t++)
        for (size_t a = 0; a < ni; a++)
            for (size_t b = 0; b < ni; b++) {
                /* a walks the storage's outer index of the tile, b its inner one */
                size_t src = t * tile + a * ni + b, dst = t * tile + (k->s_inner ? a * ni + b : b * ni + a);
                to[dst] = k->fp32 ? ((const float *)from)[src] : ((const double *)from)[src];
            }
}

void mm_bound_from_model(const mm_model *m, const mm_kernel_config *k, const double *from,
                         void *to, size_t tails)
{
    size_t ni = (size_t)m->n_inner, tile = ni * ni;
    long long tiles = (long long)(tails * m->window);
#pragma omp parallel for schedule(static)
    for (long long t = 0; t < tiles; t++)
        for (size_t a = 0; a < ni; a++)
            for (size_t b = 0; b < ni; b++) {
                size_t dst = t * tile + a * ni + b, src = t * tile + (k->s_inner ? a * ni + b : b * ni + a);
                if (k->fp32)
                    ((float *)to)[dst] = (float)from[src];
                else
                    ((double *)to)[dst] = from[src];
            }
}

/* fetch_bound's device-resident case: each slice's rows of M_b through `stage`, MM_FETCH_CHUNK
 * rows at a time. */
#define MM_FETCH_CHUNK 1024
static int fetch_slices(mm_gpu *g, void *stage, double *out)
{
    for (int i = 0; i < g->nslices; i++) {
        mm_slice *s = &g->slice[i];
        SB_CUDA(cudaSetDevice(s->device));
        for (int first = s->first; first < s->end; first += MM_FETCH_CHUNK) {
            int n = s->end - first < MM_FETCH_CHUNK ? s->end - first : MM_FETCH_CHUNK;
            if (sb_copy(&g->env->xfer, stage,
                        (char *)s->m_b + (size_t)(first - s->first) * g->tail_bytes,
                        (size_t)n * g->tail_bytes, cudaMemcpyDeviceToHost, s->stream) != 0)
                return -1;
            SB_CUDA(cudaStreamSynchronize(s->stream));
            mm_bound_to_model(g->m, &g->cfg.kernel, stage, out + (size_t)first * g->tail_entries, n);
        }
    }
    return 0;
}

/* Every GPU's M_b into the model's order and precision, a chunk of tails at a time (converted on
 * every core). */
static int fetch_bound(mm_gpu *g, double *out)
{
    if (g->cfg.residence == MM_PIECES) {
        mm_bound_to_model(g->m, &g->cfg.kernel, g->host_m_b, out,
                          (size_t)g->m->n_outer * g->m->n_outer);
        return 0;
    }
    void *stage = malloc(MM_FETCH_CHUNK * g->tail_bytes);
    if (!stage)
        return sb_fail("out of host memory");
    int rc = fetch_slices(g, stage, out);
    free(stage);
    return rc;
}

/* MPI: every process ends with the whole output (the harness validates it on each): M_b's rows
 * from their processes, the macro's fields from rank 0. */
static int share_output(mm_gpu *g, mm_output *o)
{
    MPI_Datatype tail;
    int counts[MM_MAX_PARTS], starts[MM_MAX_PARTS];
    rank_tails(g, counts, starts);
    SB_MPI(MPI_Type_contiguous((int)g->tail_entries, MPI_DOUBLE, &tail));
    SB_MPI(MPI_Type_commit(&tail));
    int rc = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, o->m_b, counts, starts, tail,
                            MPI_COMM_WORLD);
    MPI_Type_free(&tail);
    SB_MPI(rc);
    SB_MPI(MPI_Bcast(o->coarse, (int)o->cells, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    SB_MPI(MPI_Bcast(o->m_f, (int)o->cells, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    SB_MPI(MPI_Bcast(o->force, (int)(2 * o->cells), MPI_DOUBLE, 0, MPI_COMM_WORLD));
    SB_MPI(MPI_Bcast(o->psi, (int)o->psi_size, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    SB_MPI(MPI_Bcast(o->u, (int)(2 * o->cells), MPI_DOUBLE, 0, MPI_COMM_WORLD));
    SB_MPI(MPI_Bcast(&o->t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    SB_MPI(MPI_Allreduce(MPI_IN_PLACE, &o->inner_steps, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    return 0;
}

/* gpu-macro: the fields from the device; t summed over the steps' dt in order, as the host's. */
static int fetch_macro(mm_gpu *g, mm_output *o)
{
    mm_slice *s = &g->slice[0];
    const mm_model *m = g->m;
    sb_transfers *x = &g->env->xfer;
    SB_CUDA(cudaSetDevice(s->device));
    if (sb_copy(x, o->psi, g->macro.psi, o->psi_size * sizeof(double), cudaMemcpyDeviceToHost,
                s->stream) != 0 ||
        sb_copy(x, o->u, g->macro.u, 2 * o->cells * sizeof(double), cudaMemcpyDeviceToHost,
                s->stream) != 0 ||
        sb_copy(x, o->force, s->force, 2 * o->cells * sizeof(double), cudaMemcpyDeviceToHost,
                s->stream) != 0 ||
        sb_copy(x, o->coarse, s->coarse, o->cells * sizeof(double), cudaMemcpyDeviceToHost,
                s->stream) != 0 ||
        sb_copy(x, o->m_f, s->m_f, o->cells * sizeof(double), cudaMemcpyDeviceToHost,
                s->stream) != 0 ||
        sb_copy(x, g->h_steps_dt, g->d_steps_dt, (size_t)m->steps * sizeof(double),
                cudaMemcpyDeviceToHost, s->stream) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(s->stream));
    o->t = 0;
    for (long long k = 0; k < m->steps; k++)
        o->t += g->h_steps_dt[k];
    return 0;
}

/* The inner steps this process's GPUs took in the last run. */
static int inner_steps_taken(mm_gpu *g, long long *total)
{
    *total = 0;
    for (int i = 0; i < g->nslices; i++) {
        unsigned long long steps = 0;
        SB_CUDA(cudaSetDevice(g->slice[i].device));
        if (sb_copy(&g->env->xfer, &steps, g->slice[i].inner_steps, sizeof steps,
                    cudaMemcpyDeviceToHost, g->slice[i].stream) != 0)
            return -1;
        SB_CUDA(cudaStreamSynchronize(g->slice[i].stream));
        *total += (long long)steps;
    }
    return 0;
}

int mm_gpu_output(void *state, void *out)
{
    mm_gpu *g = state;
    mm_output *o = out;
    /* the macro's fields and t; M_b and the steps below */
    if (g->cfg.gpu_macro ? fetch_macro(g, o) != 0 : (mm_sim_output(&g->sim, o), 0))
        return -1;
    if (fetch_bound(g, o->m_b) != 0 || inner_steps_taken(g, &o->inner_steps) != 0)
        return -1;
    o->mixed = g->cfg.kernel.fp32;
    if (g->cfg.processes == MM_MPI && g->mpi.size > 1)
        return share_output(g, o);
    return 0;
}

/* Bytes the kernels must move by their own count: each inner step reads and writes a tail's
 * touched entries of M_b (AB2: and its previous rates), the force reads them once a step. */
void mm_gpu_report(void *state, sb_report *r)
{
    mm_gpu *g = state;
    r->phases = g->phases;
    long long inner;
    if (inner_steps_taken(g, &inner) != 0)
        return; /* no count: no bytes to report */
    double tails = g->cfg.processes == MM_MPI
                       ? (double)(g->slice[0].end - g->slice[0].first)
                       : (double)g->m->n_outer * g->m->n_outer;
    r->bytes_moved = (double)g->active * g->real *
                     ((double)inner * (g->m->ab2 ? 4 : 2) + (double)g->m->steps * tails);
}
