/* Stage 1 (thesis 3.2.2, fig. 3.4): one kernel per generation. X_g's cells go to the device, each
 * thread writes its children at 2i, 2i+1 with a state (Alive, Inactive = the terminal parent,
 * Remove); the whole generation comes back, the host files Inactive cells, drops Remove and
 * compacts Alive into X_{g+1}; repeat while anything is Alive. The final histogram is built at the
 * end from the list of terminal fluorescences. Device memory holds one generation at a time, as
 * large as its Alive population (thesis fig. 3.10, "filtered"). */
#include <stdlib.h>

#include "../../cuda/check.h"
#include "../../cuda/timing.h"
#include "../../cuda/base/error.h"
#include "device.h"
#include "table.h"

__global__ void generation_kernel(pc_rules rules, const pc_cell *x, uint64_t n, pc_cell *children,
                                  uint8_t *states, pc_device_tally *tally)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    pc_cell c = x[i];
    double t_division;
    uint8_t s0 = PC_REMOVE, s1 = PC_REMOVE;
    switch (pc_fate(&rules, &c, &t_division)) {
    case PC_DIVIDES:
        children[2 * i] = pc_daughter(&c, t_division, 0);
        children[2 * i + 1] = pc_daughter(&c, t_division, 1);
        s0 = s1 = PC_ALIVE;
        break;
    case PC_TERMINAL:
        children[2 * i] = c;
        s0 = PC_INACTIVE;
        break;
    case PC_VANISHES:
        break;
    default:
        atomicAdd(&tally->too_deep, 1ull);
    }
    states[2 * i] = s0;
    states[2 * i + 1] = s1;
}

typedef struct host_loop {
    sb_env *env;
    const pc_model *m;
    pc_device_tables tab;
    pc_device_tally *d_tally;
    pc_cell *alive, *children;
    uint8_t *states;
    size_t alive_cap, children_cap, states_cap;
    double *terminal;
    size_t nterminal, terminal_cap;
    pc_output result;
    sb_phases phases;
    cudaEvent_t marks[3]; /* before upload, after the kernel, after the copy back */
    int generations;
    double bytes_by_generation[SB_MAX_SERIES_POINTS];
    double floor_bytes; /* device-memory bytes the last run had to move, by the count below */
} host_loop;

/* The DRAM traffic a generation of n cells cannot avoid: its cells written (upload, or created
 * on the device) and read by the kernel; 2n children and their states written, then read by
 * the copy back. */
static double generation_floor_bytes(uint64_t n)
{
    return 2.0 * (double)n * sizeof(pc_cell) + 2.0 * 2.0 * (double)n * (sizeof(pc_cell) + 1);
}

/* The final histogram of t terminal fluorescences: uploaded, read and written once by a sort at
 * the very least, read by the run-length encoding. */
static double histogram_floor_bytes(size_t t)
{
    return 4.0 * (double)t * sizeof(double);
}

static int reserve(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 4096;
    while (n < need)
        n *= 2;
    void *p = realloc(*buf, n * elem);
    if (!p)
        return sb_fail("out of host memory (%zu items)", n);
    *buf = p;
    *cap = n;
    return 0;
}

static int setup(sb_env *env, const void *model, void **state)
{
    host_loop *s = (host_loop *)calloc(1, sizeof *s);
    if (!s)
        return sb_fail("out of host memory");
    *state = s;
    s->env = env;
    s->m = (const pc_model *)model;
    int rc = pc_output_init(&s->result, s->m);
    for (int i = 0; i < 3; i++)
        SB_CUDA(cudaEventCreate(&s->marks[i]));
    if (rc == 0)
        rc = pc_tables_upload(env, 0, s->m, &s->tab);
    if (rc == 0)
        rc = sb_dev_alloc(&env->mem, env->devices[0], (void **)&s->d_tally, sizeof *s->d_tally,
                          "tally");
    return rc;
}

/* One generation: n cells (on the device already when from_host is 0) -> children back on the
 * host. Device memory is allocated for this generation alone. */
static int generation(host_loop *s, uint64_t n, int from_host, int g)
{
    sb_env *env = s->env;
    cudaStream_t st = env->streams[0];
    int dev = env->devices[0], rc, in_range = 0;
    pc_cell *d_x = NULL, *d_children = NULL;
    uint8_t *d_states = NULL;
    double t0 = sb_phase_begin(env, "allocation");
    /* device first: a generation too large for the GPU is refused before the host grows its
     * buffers to match */
    char what[96];
    snprintf(what, sizeof what, "generation %d (%llu cells and their children)", g,
             (unsigned long long)n);
    if ((rc = sb_dev_check_fits(dev, n * (3 * sizeof(pc_cell) + 2), what)) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&d_x, n * sizeof(pc_cell), what)) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&d_children, 2 * n * sizeof(pc_cell), what)) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&d_states, 2 * n, what)) ||
        (rc = reserve((void **)&s->children, &s->children_cap, 2 * n, sizeof(pc_cell))) ||
        (rc = reserve((void **)&s->states, &s->states_cap, 2 * n, 1)))
        goto done;
    if (g < SB_MAX_SERIES_POINTS)
        s->bytes_by_generation[g] = (double)env->mem.current;
    sb_phase_end(&s->phases, "allocation", t0);
    sb_range_push(env->label, "upload + kernel + copy back");
    in_range = 1;
    SB_CUDA(cudaEventRecord(s->marks[0], st));
    if (from_host)
        rc = sb_copy(&env->xfer, d_x, s->alive, n * sizeof(pc_cell), cudaMemcpyHostToDevice, st);
    else /* thesis 3.2.1: the initial population is created on the device */
        rc = pc_launch_init_roots(s->m, &s->tab, 0, n, d_x, d_states, st);
    if (rc)
        goto done;
    generation_kernel<<<(unsigned)((n + PC_BLOCK - 1) / PC_BLOCK), PC_BLOCK, 0, st>>>(
        s->m->rules, d_x, n, d_children, d_states, s->d_tally);
    rc = -1;
    if (cudaGetLastError() != cudaSuccess) {
        sb_fail("launch of generation_kernel failed");
        goto done;
    }
    if (cudaEventRecord(s->marks[1], st) != cudaSuccess ||
        sb_copy(&env->xfer, s->children, d_children, 2 * n * sizeof(pc_cell),
                cudaMemcpyDeviceToHost, st) ||
        sb_copy(&env->xfer, s->states, d_states, 2 * n, cudaMemcpyDeviceToHost, st) ||
        cudaEventRecord(s->marks[2], st) != cudaSuccess)
        goto done;
    if (cudaStreamSynchronize(st) != cudaSuccess) {
        sb_fail("generation %d failed on the device: %s", g, cudaGetErrorString(cudaGetLastError()));
        goto done;
    }
    sb_range_pop();
    in_range = 0;
    double upload_and_kernel, copy_back;
    if (sb_event_seconds(s->marks[0], s->marks[1], &upload_and_kernel) ||
        sb_event_seconds(s->marks[1], s->marks[2], &copy_back))
        goto done;
    sb_phase_add(&s->phases, "upload + kernel", upload_and_kernel);
    sb_phase_add(&s->phases, "copy back", copy_back);
    rc = 0;
done:
    if (in_range)
        sb_range_pop();
    t0 = sb_phase_begin(env, "allocation");
    sb_dev_free(&env->mem, d_x);
    sb_dev_free(&env->mem, d_children);
    sb_dev_free(&env->mem, d_states);
    sb_phase_end(&s->phases, "allocation", t0);
    return rc;
}

static int run(void *state)
{
    host_loop *s = (host_loop *)state;
    sb_env *env = s->env;
    pc_output *r = &s->result;
    pc_device_tally tally;
    pc_output_zero(r);
    s->nterminal = 0;
    sb_phases_clear(&s->phases);
    s->floor_bytes = 0;
    SB_CUDA(cudaMemsetAsync(s->d_tally, 0, sizeof tally, env->streams[0]));
    uint64_t n = s->m->nroots;
    int g = 0, rc;
    for (; n > 0; g++) {
        if ((rc = generation(s, n, g > 0, g)))
            return rc;
        s->floor_bytes += generation_floor_bytes(n);
        /* the host's part: file Inactive, drop Remove, compact Alive */
        double t0 = sb_phase_begin(env, "host filing");
        size_t alive = 0;
        for (uint64_t j = 0; j < 2 * n; j += 2) {
            if (s->states[j] == PC_ALIVE) {
                r->divisions++;
                s->children[alive++] = s->children[j];
                s->children[alive++] = s->children[j + 1];
            } else if (s->states[j] == PC_INACTIVE) {
                if ((rc = reserve((void **)&s->terminal, &s->terminal_cap, s->nterminal + 1,
                                  sizeof(double)))) {
                    sb_phase_end(&s->phases, "host filing", t0);
                    return rc;
                }
                s->terminal[s->nterminal++] = s->children[j].f;
                r->terminal++;
            } else {
                r->vanished++;
            }
        }
        pc_cell *next = s->children; /* the compacted children become X_{g+1} */
        size_t next_cap = s->children_cap;
        s->children = s->alive;
        s->children_cap = s->alive_cap;
        s->alive = next;
        s->alive_cap = next_cap;
        n = alive;
        sb_phase_end(&s->phases, "host filing", t0);
    }
    s->generations = g;
    if (sb_copy(&env->xfer, &tally, s->d_tally, sizeof tally, cudaMemcpyDeviceToHost,
                env->streams[0]))
        return -1;
    SB_CUDA(cudaStreamSynchronize(env->streams[0]));
    if ((rc = pc_check_tally(&tally)))
        return rc;
    double t0 = sb_phase_begin(env, "final histogram");
    rc = pc_histogram_of_values(env, s->m, s->terminal, s->nterminal, r);
    sb_phase_end(&s->phases, "final histogram", t0);
    s->floor_bytes += histogram_floor_bytes(s->nterminal);
    return rc;
}

static int output(void *state, void *out)
{
    pc_output_copy((pc_output *)out, &((host_loop *)state)->result);
    return 0;
}

static void teardown(void *state)
{
    host_loop *s = (host_loop *)state;
    pc_output_free(&s->result);
    for (int i = 0; i < 3; i++)
        if (s->marks[i])
            cudaEventDestroy(s->marks[i]);
    free(s->alive);
    free(s->children);
    free(s->states);
    free(s->terminal);
    free(s);
}

static void report(void *state, sb_report *r)
{
    host_loop *s = (host_loop *)state;
    r->host_launches = 1 + s->generations + 2; /* roots, generations, final sort + encode */
    r->bytes_moved = s->floor_bytes;
    r->phases = s->phases;
    sb_series *series = &r->series[r->nseries++];
    series->name = "device_bytes_by_generation";
    series->x_name = "generation";
    for (int g = 0; g < s->generations && g < SB_MAX_SERIES_POINTS; g++) {
        series->x[g] = g;
        series->y[g] = s->bytes_by_generation[g];
        series->n = g + 1;
    }
}

const sb_variant_ops pc_host_loop_ops = {setup, run, output, teardown, report};
