/* Stage 1: MPD-RDME on one GPU, as Lattice Microbes does it. Per step: the x-, y- and z-sweeps and
 * the reactions (kernels.h) on the whole lattice; then the overflow count goes to the host, and
 * when it is not zero the lattice comes to the host, the particles are placed, and the lattice
 * goes back. */
#include <stdlib.h>
#include <string.h>

#include "../../cuda/check.h"
#include "../../cuda/timing.h"
#include "../../cuda/base/error.h"
#include "gpu.h"
#include "table.h"

#define RD_INSTRUMENTED_STEPS 1000 /* steps whose kernels the first run times one by one */

enum { EV_LOOP_START, EV_LOOP_END, EV_A, EV_B, EV_COUNT };

static rd_step step_of(const rd_gpu *g, long long step)
{
    const rd_model *m = g->m;
    rd_step a = {m->seed, step, m->nx, m->ny, m->nz, m->periodic, {0, m->nz, 0},
                 g->d_threshold, g->d_types, g->sink};
    a.sink.first = 0;
    a.sink.end = m->nsites;
    return a;
}

static int launch_sweep(rd_gpu *g, int axis, const void *in, void *out, const rd_step *a)
{
    cudaStream_t st = g->env->streams[0];
    return axis == 2 ? rd_sweep_z(g->m->format, in, out, a, st)
                     : rd_sweep_planes(g->m->format, axis, in, out, a, 0, g->m->nz, st);
}

static int launch_count(rd_gpu *g, const void *lattice, int sample)
{
    const rd_model *m = g->m;
    rd_step a = step_of(g, 0);
    return rd_count_planes(m->format, lattice, &a, m->nspecies,
                           g->d_planes + (size_t)sample * m->nz * (m->nspecies + 1),
                           g->env->streams[0]);
}

/* A kernel phase: timed by events when the run is instrumented, its seconds times scale. */
#define TIMED(g, name, scale, call)                                                                \
    do {                                                                                           \
        if ((g)->instrument)                                                                       \
            SB_CUDA(cudaEventRecord((g)->ev[EV_A], (g)->env->streams[0]));                         \
        if ((call) != 0)                                                                           \
            return -1;                                                                             \
        if ((g)->instrument) {                                                                     \
            double sec_;                                                                           \
            SB_CUDA(cudaEventRecord((g)->ev[EV_B], (g)->env->streams[0]));                         \
            if (sb_event_seconds((g)->ev[EV_A], (g)->ev[EV_B], &sec_) != 0)                        \
                return -1;                                                                         \
            sb_phase_add(&(g)->phases, name, sec_ *(scale));                                       \
        }                                                                                          \
    } while (0)

/* After the kernels of a step: overflowed particles placed on the host, the lattice back. */
static int resolve_overflow(rd_gpu *g, void *d_lattice)
{
    sb_env *env = g->env;
    cudaStream_t st = env->streams[0];
    uint64_t *entries;
    unsigned int n;
    if (g->channel->collect(g, &entries, &n) != 0)
        return -1;
    if (n == 0)
        return 0;
    if (n > g->sink.capacity)
        return sb_fail("%u particles overflowed in one step, more than the list's %u: lower the "
                       "particle density",
                       n, g->sink.capacity);
    if (sb_copy(&env->xfer, g->h_lattice, d_lattice, g->lattice_bytes, cudaMemcpyDeviceToHost,
                st) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    if (rd_overflow_resolve(g->m, g->h_lattice, entries, n) != 0)
        return -1;
    g->overflow_particles += n;
    return sb_copy(&env->xfer, d_lattice, g->h_lattice, g->lattice_bytes, cudaMemcpyHostToDevice,
                   st);
}

static int run_steps(rd_gpu *g)
{
    const rd_model *m = g->m;
    sb_env *env = g->env;
    cudaStream_t st = env->streams[0];
    int cur = 0, sample = 0, nsamples = rd_output_nsamples(m);
    double t0;
    SB_CUDA(cudaMemsetAsync(g->d_planes, 0, g->planes_bytes, st));
    SB_CUDA(cudaMemsetAsync(g->d_fired, 0, sizeof *g->d_fired, st));
    TIMED(g, "initial copy", 1.0,
          sb_copy(&env->xfer, g->d_lattice[0], g->d_init, g->lattice_bytes,
                  cudaMemcpyDeviceToDevice, st));
    SB_CUDA(cudaEventRecord(g->ev[EV_LOOP_START], st));
    /* the instrumented run times the kernels of its first steps only (an event pair and a wait
     * per kernel would double a long run); its phases are seconds per step */
    int instrumented_run = g->instrument;
    long long timed_steps = m->steps < RD_INSTRUMENTED_STEPS ? m->steps : RD_INSTRUMENTED_STEPS;
    double per_step = timed_steps > 0 ? 1.0 / (double)timed_steps : 0.0;
    TIMED(g, "samples per step", per_step, launch_count(g, g->d_lattice[0], sample++));
    static const char *const sweep_names[3] = {"x-sweep per step", "y-sweep per step",
                                               "z-sweep per step"};
    for (long long step = 0; step < m->steps; step++) {
        rd_step a = step_of(g, step);
        g->instrument = instrumented_run && step < timed_steps;
        for (int axis = 0; axis < 3; axis++) {
            TIMED(g, sweep_names[axis], per_step,
                  launch_sweep(g, axis, g->d_lattice[cur], g->d_lattice[1 - cur], &a));
            cur = 1 - cur;
        }
        TIMED(g, "reactions per step", per_step, rd_react(m->format, g->d_lattice[cur], &a, 0, m->nz, g->d_reactions, g->d_fired, st));
        t0 = sb_now();
        if (resolve_overflow(g, g->d_lattice[cur]) != 0)
            return -1;
        if (g->instrument)
            sb_phase_add(&g->phases, "overflow per step", (sb_now() - t0) * per_step);
        if (sample < nsamples && rd_output_sample_step(m, sample) == step + 1)
            TIMED(g, "samples per step", per_step,
                  launch_count(g, g->d_lattice[cur], sample++));
    }
    g->instrument = instrumented_run;
    SB_CUDA(cudaEventRecord(g->ev[EV_LOOP_END], st));
    TIMED(g, "download", 1.0,
          sb_copy(&env->xfer, g->h_lattice, g->d_lattice[cur], g->lattice_bytes,
                  cudaMemcpyDeviceToHost, st) ||
              sb_copy(&env->xfer, g->h_planes, g->d_planes, g->planes_bytes,
                      cudaMemcpyDeviceToHost, st));
    if (sb_copy(&env->xfer, g->host_fired, g->d_fired, sizeof *g->host_fired,
                cudaMemcpyDeviceToHost, st))
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    g->reactions_fired = *g->host_fired;
    double loop;
    if (sb_event_seconds(g->ev[EV_LOOP_START], g->ev[EV_LOOP_END], &loop) != 0)
        return -1;
    if (g->runs < RD_GPU_MAX_RUNS)
        g->loop_seconds[g->runs] = loop;
    return 0;
}

int rd_gpu_run(void *state)
{
    rd_gpu *g = (rd_gpu *)state;
    g->instrument = g->runs == 0;
    if (g->instrument)
        sb_phases_clear(&g->phases);
    g->overflow_particles = 0;
    int rc = run_steps(g);
    g->runs++;
    return rc;
}

int rd_gpu_setup(sb_env *env, const void *model, void **state, const rd_overflow_channel *ch)
{
    rd_gpu *g = (rd_gpu *)calloc(1, sizeof *g);
    if (!g)
        return sb_fail("out of host memory");
    *state = g;
    g->env = env;
    g->m = (const rd_model *)model;
    g->channel = ch;
    const rd_model *m = g->m;
    int dev = env->devices[0];
    cudaStream_t st = env->streams[0];
    g->lattice_bytes = m->nsites * rd_site_bytes(m->format);
    g->planes_bytes = (size_t)rd_output_nsamples(m) * m->nz * (m->nspecies + 1) * sizeof(uint32_t);
    size_t need = 3 * g->lattice_bytes + (m->format == RD_BYTE16 ? m->nsites : 0) +
                  g->planes_bytes;
    int rc;
    if ((rc = sb_dev_check_fits(dev, need, "the initial and two working lattices")) != 0)
        return rc;
    SB_CUDA(cudaSetDevice(dev));
    if (rd_kernels_load(m->format) != 0)
        return -1;
    for (int i = 0; i < EV_COUNT; i++)
        SB_CUDA(cudaEventCreate(&g->ev[i]));
    SB_CUDA(cudaMallocHost(&g->h_lattice, g->lattice_bytes));
    SB_CUDA(cudaMallocHost((void **)&g->h_planes, g->planes_bytes));
    SB_CUDA(cudaMallocHost((void **)&g->host_count, sizeof *g->host_count));
    SB_CUDA(cudaMallocHost((void **)&g->host_fired, sizeof *g->host_fired));
    rd_reaction_table t;
    rd_reaction_table_of(m, &t);
    if ((rc = sb_dev_alloc(&env->mem, dev, &g->d_init, g->lattice_bytes, "initial lattice")) ||
        (rc = sb_dev_alloc(&env->mem, dev, &g->d_lattice[0], g->lattice_bytes, "lattice")) ||
        (rc = sb_dev_alloc(&env->mem, dev, &g->d_lattice[1], g->lattice_bytes, "lattice")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&g->d_threshold,
                           sizeof m->threshold, "thresholds")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&g->d_reactions, sizeof t, "reactions")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&g->d_planes, g->planes_bytes,
                           "plane counts")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&g->d_fired, sizeof *g->d_fired,
                           "reaction count")))
        return rc;
    if (m->format == RD_BYTE16 &&
        ((rc = sb_dev_alloc(&env->mem, dev, (void **)&g->d_types, m->nsites, "site types")) ||
         (rc = sb_copy(&env->xfer, g->d_types, m->types, m->nsites, cudaMemcpyHostToDevice, st))))
        return rc;
    if (sb_copy(&env->xfer, g->d_init, m->lattice0, g->lattice_bytes, cudaMemcpyHostToDevice, st) ||
        sb_copy(&env->xfer, g->d_threshold, m->threshold, sizeof m->threshold,
                cudaMemcpyHostToDevice, st) ||
        sb_copy(&env->xfer, g->d_reactions, &t, sizeof t, cudaMemcpyHostToDevice, st) ||
        ch->open(g) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    return 0;
}

int rd_gpu_output(void *state, void *out)
{
    rd_gpu *g = (rd_gpu *)state;
    const rd_model *m = g->m;
    rd_output *o = (rd_output *)out;
    memcpy(o->lattice, g->h_lattice, g->lattice_bytes);
    memcpy(o->plane_counts, g->h_planes, g->planes_bytes);
    rd_output_counts_from_planes(m, o);
    o->overflow_particles = g->overflow_particles;
    o->reactions_fired = g->reactions_fired;
    return 0;
}

void rd_gpu_teardown(void *state)
{
    rd_gpu *g = (rd_gpu *)state;
    if (!g)
        return;
    if (g->channel)
        g->channel->close(g);
    for (int i = 0; i < EV_COUNT; i++)
        if (g->ev[i])
            cudaEventDestroy(g->ev[i]);
    cudaFreeHost(g->h_lattice);
    cudaFreeHost(g->h_planes);
    cudaFreeHost(g->host_count);
    cudaFreeHost(g->host_fired);
    free(g);
}

void rd_gpu_report(void *state, sb_report *r)
{
    rd_gpu *g = (rd_gpu *)state;
    const rd_model *m = g->m;
    /* four passes a step (three sweeps and the reactions); the initial device copy reads and
     * writes the lattice, the download reads it */
    r->bytes_moved = 4.0 * rd_pass_bytes(m) * (double)m->steps + 3.0 * (double)g->lattice_bytes;
    r->host_launches = 4.0 * (double)m->steps + rd_output_nsamples(m);
    r->phases = g->phases;
    rd_report_steady(m, 4.0, g->loop_seconds, g->runs < RD_GPU_MAX_RUNS ? g->runs : RD_GPU_MAX_RUNS,
                     &r->steady);
}

/* Stage 1's overflow channel: a list in device memory; its count is copied to the host every
 * step, the entries only when there are some. */
typedef struct device_list {
    unsigned int *d_count;
    uint64_t *d_entries;
} device_list;

static int device_list_open(rd_gpu *g)
{
    sb_env *env = g->env;
    int dev = env->devices[0], rc;
    unsigned int cap = rd_overflow_capacity(g->m);
    SB_CUDA(cudaMallocHost((void **)&g->host_entries, (size_t)cap * sizeof(uint64_t)));
    if ((rc = sb_dev_alloc(&env->mem, dev, (void **)&g->sink.count, sizeof(unsigned int),
                           "overflow count")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&g->sink.entries,
                           (size_t)cap * sizeof(uint64_t), "overflow list")))
        return rc;
    g->sink.capacity = cap;
    SB_CUDA(cudaMemsetAsync(g->sink.count, 0, sizeof(unsigned int), env->streams[0]));
    return 0;
}

static int device_list_collect(rd_gpu *g, uint64_t **entries, unsigned int *n)
{
    sb_env *env = g->env;
    cudaStream_t st = env->streams[0];
    if (sb_copy(&env->xfer, g->host_count, g->sink.count, sizeof(unsigned int),
                cudaMemcpyDeviceToHost, st))
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    *n = *g->host_count;
    *entries = g->host_entries;
    if (*n == 0)
        return 0;
    unsigned int copy = *n < g->sink.capacity ? *n : g->sink.capacity;
    if (sb_copy(&env->xfer, g->host_entries, g->sink.entries, (size_t)copy * sizeof(uint64_t),
                cudaMemcpyDeviceToHost, st))
        return -1;
    SB_CUDA(cudaMemsetAsync(g->sink.count, 0, sizeof(unsigned int), st));
    SB_CUDA(cudaStreamSynchronize(st));
    return 0;
}

static void device_list_close(rd_gpu *g)
{
    cudaFreeHost(g->host_entries);
}

static const rd_overflow_channel device_list_channel = {device_list_open, device_list_collect,
                                                        device_list_close};

static int setup(sb_env *env, const void *model, void **state)
{
    return rd_gpu_setup(env, model, state, &device_list_channel);
}

const sb_variant_ops rd_gpu_ops = {setup, rd_gpu_run, rd_gpu_output, rd_gpu_teardown,
                                   rd_gpu_report};
