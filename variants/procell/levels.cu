#include "levels.h"

#include <stdlib.h>
#include <string.h>

#include "../../cuda/check.h"
#include "../../cuda/base/error.h"

/* cmake -DSB_CDP=OFF (SB_NO_CDP), the build compute-sanitizer's racecheck and synccheck check:
 * no device runtime, so the host stands in for the device-side launches. A block marks the two
 * blocks of the next level that it would have launched, and the host launches each level whole
 * once the one before it has finished; unmarked blocks return at once. The kernels and what each
 * block computes are the same; the next level waits for its whole parent level instead of its
 * parent block only, which changes no result (blocks write disjoint slots). Not for timing. */

/* Where a block launches its two children: CDP2's fire-and-forget stream, or, with a toolkit
 * before CUDA 12 (SB_NO_CDP2: CDP1 only), the block's own NULL stream. One launch per block
 * either way, so the children of different blocks are as independent in both, and the parent
 * grid completes once its children have (CDP1 and CDP2 alike). */
#ifdef SB_NO_CDP2
#define PC_CHILD_STREAM 0
#else
#define PC_CHILD_STREAM cudaStreamFireAndForget
#endif

/* Device-side launch accounting: CUDA can drop fire-and-forget launches past its pending-launch
 * limit without any error reaching the host, so every launch and every child block is counted. */
typedef struct launch_counters {
    unsigned long long launched, failed, blocks_ran;
    unsigned long long first_error; /* cudaError_t of the first failed launch */
} launch_counters;

/* What the level kernels read, resident on the device so that a device-side launch passes one
 * pointer. */
typedef struct level_args {
    pc_rules rules;
    pc_cell *cells[PC_MAX_LEVELS + 1];
    uint8_t *states[PC_MAX_LEVELS + 1];
    int depth;
    const double *omega;
    int nomega;
    unsigned long long *counts;
    pc_device_tally *tally;
    launch_counters *launches;
    /* SB_NO_CDP: marked[g][b], whether block b of level g-1 launched its two children */
    uint8_t *marked[PC_MAX_LEVELS + 1];
} level_args;

/* Processes the cells of level g in this block's PC_BLOCK slots, writes their children into level
 * g+1 (slots 2i, 2i+1, states as in thesis 3.2.2), then launches the two blocks of level g+1 that
 * hold those children. `roots` is the number of level-0 cells of the batch. */
template <bool BOUNDING, bool GPU_HISTOGRAM>
__global__ void __launch_bounds__(PC_BLOCK)
    level_kernel(const level_args *a, int g, unsigned block_base, uint64_t roots)
{
    unsigned block = block_base + blockIdx.x;
#ifdef SB_NO_CDP
    if (g > 0 && !a->marked[g][block / 2])
        return; /* its parent launched no children: with dynamic parallelism it would not exist */
#endif
    uint64_t i = (uint64_t)block * PC_BLOCK + threadIdx.x;
    int child_alive = 0;
    if (g > 0 && threadIdx.x == 0)
        atomicAdd(&a->launches->blocks_ran, 1ull);
    if (i < (roots << g)) {
        uint8_t s0 = PC_EMPTY, s1 = PC_EMPTY;
        if (a->states[g][i] == PC_ALIVE) {
            pc_cell c = a->cells[g][i];
            double t_division;
            switch (pc_fate(&a->rules, &c, &t_division)) {
            case PC_DIVIDES:
                a->cells[g + 1][2 * i] = pc_daughter(&c, t_division, 0);
                a->cells[g + 1][2 * i + 1] = pc_daughter(&c, t_division, 1);
                s0 = s1 = PC_ALIVE;
                child_alive = 1;
                if (GPU_HISTOGRAM)
                    atomicAdd(&a->tally->divisions, 1ull);
                break;
            case PC_TERMINAL:
                if (GPU_HISTOGRAM) { /* stage 5: count it here, by binary search of Omega */
                    int bin = pc_omega_search(a->omega, a->nomega, c.f);
                    atomicAdd(bin >= 0 ? &a->counts[bin] : &a->tally->not_in_omega, 1ull);
                    atomicAdd(&a->tally->terminal, 1ull);
                    s0 = s1 = PC_REMOVE;
                } else { /* the Inactive slot carries the terminal cell to the host */
                    a->cells[g + 1][2 * i] = c;
                    s0 = PC_INACTIVE;
                    s1 = PC_REMOVE;
                }
                break;
            case PC_VANISHES:
                if (GPU_HISTOGRAM)
                    atomicAdd(&a->tally->vanished, 1ull);
                s0 = s1 = PC_REMOVE;
                break;
            default:
                atomicAdd(&a->tally->too_deep, 1ull);
                s0 = s1 = PC_REMOVE;
            }
        }
        a->states[g + 1][2 * i] = s0;
        a->states[g + 1][2 * i + 1] = s1;
    }
    if (g + 1 >= a->depth)
        return; /* level g+1 is the last: its Alive cells restart from the host */
    /* The barrier makes the whole block's writes visible to the child grid (thesis 3.2.3);
     * bounding turns it into a vote. */
    int launch = BOUNDING ? __syncthreads_or(child_alive) : (__syncthreads(), 1);
    if (launch && threadIdx.x == 0) {
#ifdef SB_NO_CDP
        a->marked[g + 1][block] = 1;
        cudaError_t err = cudaSuccess;
#else
        level_kernel<BOUNDING, GPU_HISTOGRAM>
            <<<2, PC_BLOCK, 0, PC_CHILD_STREAM>>>(a, g + 1, 2 * block, roots);
        cudaError_t err = cudaGetLastError();
#endif
        if (err == cudaSuccess) {
            atomicAdd(&a->launches->launched, 1ull);
        } else {
            atomicAdd(&a->launches->failed, 1ull);
            atomicCAS(&a->launches->first_error, 0ull, (unsigned long long)err);
        }
    }
}

/* Stage 5: Alive cells of the last level, gathered for the restart (any order: the histogram is
 * a sum). */
__global__ void collect_restarts(const level_args *a, uint64_t slots, pc_cell *restart,
                                 unsigned long long *count)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < slots && a->states[a->depth][i] == PC_ALIVE)
        restart[atomicAdd(count, 1ull)] = a->cells[a->depth][i];
}

typedef struct levels_state {
    pc_levels_config cfg;
    sb_env *env;
    const pc_model *m;
    pc_device_tables tab;
    int depth;          /* D: levels 0..D */
    uint64_t capacity;  /* roots per batch: the whole initial population */
    level_args args;    /* host copy of *d_args */
    level_args *d_args;
    pc_device_tally *d_tally;
    launch_counters *d_launches;
    unsigned long long *d_counts;
    pc_cell *d_restart; /* stage 5 */
    unsigned long long *d_restart_count;
    /* host side of stages 2-4: the levels copied back, the terminal fluorescences */
    pc_cell *h_cells;
    uint8_t *h_states;
    double *terminal;
    size_t nterminal, terminal_cap;
    /* cells restarting from the host */
    pc_cell *restart;
    size_t nrestart, restart_cap;
    pc_output result;
    double device_launches, host_launches;
    size_t launch_limit;
    sb_phases phases;
} levels_state;

static size_t level_slots(uint64_t roots, int g)
{
    return (size_t)roots << g;
}

static size_t slot_bytes(void)
{
    return sizeof(pc_cell) + sizeof(uint8_t);
}

/* Device bytes of levels 0..depth for `roots` roots, plus stage 5's restart buffer. */
static size_t plan_bytes(uint64_t roots, int depth, int gpu_histogram)
{
    size_t bytes = (level_slots(roots, depth + 1) - roots) * slot_bytes();
    if (gpu_histogram)
        bytes += level_slots(roots, depth) * sizeof(pc_cell);
    return bytes;
}

static int grow(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t cap2 = *cap ? *cap : 1024;
    while (cap2 < need)
        cap2 *= 2;
    void *p = realloc(*buf, cap2 * elem);
    if (!p)
        return sb_fail("out of host memory (%zu items)", cap2);
    *buf = p;
    *cap = cap2;
    return 0;
}

static int choose_depth(levels_state *s)
{
    const pc_model *m = s->m;
    size_t free_b = 0, total_b = 0;
    SB_CUDA(cudaMemGetInfo(&free_b, &total_b));
    double gib = sb_param_num(s->env->params, "level_memory_gib");
    /* A fifth of free memory stays with the device runtime: it backs pending device launches
     * when they happen (seen on an H100: 95 % of free memory in levels -> 1 % of launches
     * failed). */
    double budget = 0.8 * (double)free_b;
    if (gib > 0 && gib * 1073741824.0 < budget)
        budget = gib * 1073741824.0;
    int mem_depth = 0;
    while (mem_depth < PC_MAX_LEVELS &&
           (double)plan_bytes(s->capacity, mem_depth + 1, s->cfg.gpu_histogram) <= budget)
        mem_depth++;
    if (mem_depth == 0) {
        char need[32], have[32];
        sb_fail("needs %s of device memory for levels X_0..X_1 of %llu cells, and the level "
                "budget is %s (level_memory_gib, free device memory); lower replicate or use "
                "subtree-dfs",
                sb_format_bytes((double)plan_bytes(s->capacity, 1, s->cfg.gpu_histogram), need,
                                sizeof need),
                (unsigned long long)s->capacity, sb_format_bytes(budget, have, sizeof have));
        return SB_REFUSED;
    }
    s->depth = mem_depth;
    if (s->cfg.infer_depth && pc_inferred_levels(m) < mem_depth)
        s->depth = pc_inferred_levels(m);
    return 0;
}

/* Blocks of level g: the level-0 grid's, doubled at each level. */
static size_t level_blocks(uint64_t roots, int g)
{
    return (size_t)((roots + PC_BLOCK - 1) / PC_BLOCK) << g;
}

/* Device launches one batch plans when nothing is bounded: every block of levels 0..D-2 launches
 * one child grid. */
static unsigned long long planned_launches(uint64_t roots, int depth)
{
    unsigned long long blocks0 = (roots + PC_BLOCK - 1) / PC_BLOCK;
    return depth >= 2 ? blocks0 * ((1ull << (depth - 1)) - 1) : 0;
}

int pc_levels_setup(sb_env *env, const pc_model *m, const pc_levels_config *cfg, void **state)
{
    levels_state *s = (levels_state *)calloc(1, sizeof *s);
    if (!s)
        return sb_fail("out of host memory");
    *state = s;
    s->cfg = *cfg;
    s->env = env;
    s->m = m;
    s->capacity = m->nroots;
    int dev = env->devices[0], rc;
    if ((rc = pc_output_init(&s->result, m)) || (rc = choose_depth(s)))
        return rc;
    /* Raise the pending-launch limit to the planned fan-out before sizing memory: the launch
     * pool it reserves comes out of the same free memory. */
    size_t limit = planned_launches(s->capacity, s->depth);
    s->launch_limit = limit > 2048 ? limit : 2048;
#ifndef SB_NO_CDP
    SB_CUDA(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, s->launch_limit));
#endif
    char what[160];
    snprintf(what, sizeof what, "levels X_0..X_%d of %llu cells", s->depth,
             (unsigned long long)s->capacity);
    if ((rc = sb_dev_check_fits(dev, plan_bytes(s->capacity, s->depth, cfg->gpu_histogram), what)))
        return rc;
    level_args *a = &s->args;
    a->rules = m->rules;
    a->depth = s->depth;
    a->nomega = m->nomega;
    for (int g = 0; g <= s->depth; g++) {
        size_t n = level_slots(s->capacity, g);
        if ((rc = sb_dev_alloc(&env->mem, dev, (void **)&a->cells[g], n * sizeof(pc_cell), what)) ||
            (rc = sb_dev_alloc(&env->mem, dev, (void **)&a->states[g], n, what)))
            return rc;
    }
#ifdef SB_NO_CDP
    for (int g = 1; g < s->depth; g++)
        if ((rc = sb_dev_alloc(&env->mem, dev, (void **)&a->marked[g],
                               level_blocks(s->capacity, g - 1), "launch marks")))
            return rc;
#endif
    if ((rc = pc_tables_upload(env, 0, m, &s->tab)) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&s->d_args, sizeof *a, "level arguments")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&s->d_tally, sizeof *s->d_tally, "tally")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&s->d_launches, sizeof *s->d_launches,
                           "launch counters")))
        return rc;
    a->omega = s->tab.omega;
    a->tally = s->d_tally;
    a->launches = s->d_launches;
    if (cfg->gpu_histogram) {
        size_t last = level_slots(s->capacity, s->depth);
        if ((rc = sb_dev_alloc(&env->mem, dev, (void **)&s->d_counts,
                               (size_t)m->nomega * sizeof *s->d_counts, "histogram")) ||
            (rc = sb_dev_alloc(&env->mem, dev, (void **)&s->d_restart, last * sizeof(pc_cell),
                               "restart buffer")) ||
            (rc = sb_dev_alloc(&env->mem, dev, (void **)&s->d_restart_count,
                               sizeof *s->d_restart_count, "restart count")))
            return rc;
        a->counts = s->d_counts;
    } else {
        size_t slots = level_slots(s->capacity, s->depth + 1) - 2 * s->capacity; /* X_1..X_D */
        s->h_cells = (pc_cell *)malloc(slots * sizeof(pc_cell));
        s->h_states = (uint8_t *)malloc(slots);
        if (!s->h_cells || !s->h_states)
            return sb_fail("out of host memory for the %zu cells of the levels copied back", slots);
    }
    if (sb_copy(&env->xfer, s->d_args, a, sizeof *a, cudaMemcpyHostToDevice, env->streams[0]))
        return -1;
    SB_CUDA(cudaStreamSynchronize(env->streams[0]));
    return 0;
}

/* Stages 2-4: the levels come back to the host, which files terminal cells and restarts. */
static int collect_on_host(levels_state *s, uint64_t roots)
{
    sb_env *env = s->env;
    cudaStream_t st = env->streams[0];
    const level_args *a = &s->args;
    size_t offset = 0;
    double t0 = sb_phase_begin(env, "copy back");
    int rc = 0;
    for (int g = 1; rc == 0 && g <= s->depth; g++) {
        size_t n = level_slots(roots, g);
        rc = sb_copy(&env->xfer, s->h_cells + offset, a->cells[g], n * sizeof(pc_cell),
                     cudaMemcpyDeviceToHost, st) ||
             sb_copy(&env->xfer, s->h_states + offset, a->states[g], n, cudaMemcpyDeviceToHost, st);
        offset += n;
    }
    cudaError_t synced = cudaStreamSynchronize(st);
    sb_phase_end(&s->phases, "copy back", t0);
    if (rc != 0)
        return -1;
    if (synced != cudaSuccess)
        return sb_fail("copying the levels back failed: %s", cudaGetErrorString(synced));
    double t1 = sb_phase_begin(env, "host filing");
    pc_output *r = &s->result;
    offset = 0;
    for (int g = 1; g <= s->depth; g++) {
        size_t n = level_slots(roots, g);
        const uint8_t *state = s->h_states + offset;
        const pc_cell *cell = s->h_cells + offset;
        for (size_t j = 0; j < n; j += 2) {
            if (state[j] == PC_ALIVE) {
                r->divisions++;
                if (g == s->depth) {
                    if (grow((void **)&s->restart, &s->restart_cap, s->nrestart + 2,
                             sizeof(pc_cell)))
                        return -1;
                    s->restart[s->nrestart++] = cell[j];
                    s->restart[s->nrestart++] = cell[j + 1];
                }
            } else if (state[j] == PC_INACTIVE) {
                if (grow((void **)&s->terminal, &s->terminal_cap, s->nterminal + 1, sizeof(double)))
                    return -1;
                s->terminal[s->nterminal++] = cell[j].f;
                r->terminal++;
            } else if (state[j] == PC_REMOVE) {
                r->vanished++;
            }
        }
        offset += n;
    }
    sb_phase_end(&s->phases, "host filing", t1);
    return 0;
}

/* Stage 5: only the last level's Alive cells come back. */
static int collect_restarts_on_device(levels_state *s, uint64_t roots)
{
    sb_env *env = s->env;
    cudaStream_t st = env->streams[0];
    size_t slots = level_slots(roots, s->depth);
    unsigned long long count = 0;
    double t0 = sb_phase_begin(env, "restart collection");
    SB_CUDA(cudaMemsetAsync(s->d_restart_count, 0, sizeof count, st));
    collect_restarts<<<(unsigned)((slots + PC_BLOCK - 1) / PC_BLOCK), PC_BLOCK, 0, st>>>(
        s->d_args, slots, s->d_restart, s->d_restart_count);
    SB_LAUNCHED("collect_restarts");
    s->host_launches++;
    if (sb_copy(&env->xfer, &count, s->d_restart_count, sizeof count, cudaMemcpyDeviceToHost, st))
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    if (grow((void **)&s->restart, &s->restart_cap, s->nrestart + count, sizeof(pc_cell)) ||
        sb_copy(&env->xfer, s->restart + s->nrestart, s->d_restart, count * sizeof(pc_cell),
                cudaMemcpyDeviceToHost, st))
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    s->nrestart += count;
    sb_phase_end(&s->phases, "restart collection", t0);
    return 0;
}

static int check_launches(levels_state *s, uint64_t roots)
{
    launch_counters c;
    if (sb_copy(&s->env->xfer, &c, s->d_launches, sizeof c, cudaMemcpyDeviceToHost,
                s->env->streams[0]))
        return -1;
    SB_CUDA(cudaStreamSynchronize(s->env->streams[0]));
    unsigned long long planned = planned_launches(roots, s->depth);
    if (c.failed || c.blocks_ran != 2 * c.launched ||
        (!s->cfg.bounding && c.launched != planned))
        return sb_fail("dynamic parallelism lost work: %llu child grids planned, %llu launched, "
                       "%llu failed to launch (first: %s), %llu of their %llu blocks ran "
                       "(pending-launch limit %zu)",
                       s->cfg.bounding ? c.launched + c.failed : planned, c.launched, c.failed,
                       c.failed ? cudaGetErrorString((cudaError_t)c.first_error) : "none",
                       c.blocks_ran, 2 * c.launched, s->launch_limit);
    s->device_launches += (double)c.launched;
    return 0;
}

/* The host's launch of level g's `blocks` blocks (with dynamic parallelism, level 0 only). */
static int launch_level(levels_state *s, int g, size_t blocks, uint64_t roots)
{
    cudaStream_t st = s->env->streams[0];
    for (size_t base = 0; base < blocks; base += 1u << 30) { /* a grid has at most 2^31 - 1 */
        unsigned n = (unsigned)(blocks - base < (1u << 30) ? blocks - base : 1u << 30);
        if (s->cfg.bounding && s->cfg.gpu_histogram)
            level_kernel<true, true><<<n, PC_BLOCK, 0, st>>>(s->d_args, g, (unsigned)base, roots);
        else if (s->cfg.bounding)
            level_kernel<true, false><<<n, PC_BLOCK, 0, st>>>(s->d_args, g, (unsigned)base, roots);
        else
            level_kernel<false, false><<<n, PC_BLOCK, 0, st>>>(s->d_args, g, (unsigned)base, roots);
        SB_LAUNCHED("level_kernel");
        s->host_launches++;
    }
    return 0;
}

static int run_batch(levels_state *s, uint64_t roots)
{
    sb_env *env = s->env;
    cudaStream_t st = env->streams[0];
    double t0 = sb_phase_begin(env, "device tree");
    if (s->cfg.bounding) /* unlaunched blocks leave their children's slots unwritten */
        for (int g = 1; g <= s->depth; g++)
            SB_CUDA(cudaMemsetAsync(s->args.states[g], PC_EMPTY, level_slots(roots, g), st));
    SB_CUDA(cudaMemsetAsync(s->d_launches, 0, sizeof(launch_counters), st));
#ifdef SB_NO_CDP
    for (int g = 1; g < s->depth; g++)
        SB_CUDA(cudaMemsetAsync(s->args.marked[g], 0, level_blocks(roots, g - 1), st));
    for (int g = 0; g < s->depth; g++)
        if (launch_level(s, g, level_blocks(roots, g), roots) != 0)
            return -1;
#else
    if (launch_level(s, 0, level_blocks(roots, 0), roots) != 0)
        return -1;
#endif
    SB_CUDA(cudaStreamSynchronize(st));
    int rc = check_launches(s, roots);
    sb_phase_end(&s->phases, "device tree", t0);
    if (rc == 0)
        rc = s->cfg.gpu_histogram ? collect_restarts_on_device(s, roots)
                                  : collect_on_host(s, roots);
    return rc;
}

int pc_levels_run(void *state)
{
    levels_state *s = (levels_state *)state;
    sb_env *env = s->env;
    cudaStream_t st = env->streams[0];
    const pc_model *m = s->m;
    pc_device_tally tally;
    int rc;
    pc_output_zero(&s->result);
    s->nterminal = s->nrestart = 0;
    s->device_launches = s->host_launches = 0;
    sb_phases_clear(&s->phases);
    SB_CUDA(cudaMemsetAsync(s->d_tally, 0, sizeof tally, st));
    if (s->cfg.gpu_histogram)
        SB_CUDA(cudaMemsetAsync(s->d_counts, 0, (size_t)m->nomega * sizeof *s->d_counts, st));
    uint64_t next_root = 0;
    while (next_root < m->nroots || s->nrestart > 0) {
        uint64_t n;
        if (next_root < m->nroots) {
            n = m->nroots - next_root < s->capacity ? m->nroots - next_root : s->capacity;
            if ((rc = pc_launch_init_roots(m, &s->tab, next_root, n, s->args.cells[0],
                                           s->args.states[0], st)))
                return rc;
            s->host_launches++;
            next_root += n;
        } else { /* restart: the last cells of the queue become level 0 */
            n = s->nrestart < s->capacity ? s->nrestart : s->capacity;
            s->nrestart -= n;
            double t0 = sb_now();
            if (sb_copy(&env->xfer, s->args.cells[0], s->restart + s->nrestart,
                        n * sizeof(pc_cell), cudaMemcpyHostToDevice, st))
                return -1;
            SB_CUDA(cudaMemsetAsync(s->args.states[0], PC_ALIVE, n, st));
            SB_CUDA(cudaStreamSynchronize(st));
            sb_phase_add(&s->phases, "restart upload", sb_now() - t0);
        }
        if ((rc = run_batch(s, n)))
            return rc;
    }
    if (sb_copy(&env->xfer, &tally, s->d_tally, sizeof tally, cudaMemcpyDeviceToHost, st))
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    if ((rc = pc_check_tally(&tally)))
        return rc;
    if (!s->cfg.gpu_histogram) {
        double t0 = sb_now();
        rc = pc_histogram_of_values(env, m, s->terminal, s->nterminal, &s->result);
        sb_phase_add(&s->phases, "final histogram", sb_now() - t0);
        return rc;
    }
    if (sb_copy(&env->xfer, s->result.counts, s->d_counts,
                (size_t)m->nomega * sizeof *s->d_counts, cudaMemcpyDeviceToHost, st))
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    s->result.divisions = tally.divisions;
    s->result.terminal = tally.terminal;
    s->result.vanished = tally.vanished;
    return 0;
}

int pc_levels_output(void *state, void *out)
{
    pc_output_copy((pc_output *)out, &((levels_state *)state)->result);
    return 0;
}

void pc_levels_teardown(void *state)
{
    levels_state *s = (levels_state *)state;
    pc_output_free(&s->result);
    free(s->h_cells);
    free(s->h_states);
    free(s->terminal);
    free(s->restart);
    free(s); /* device memory goes back with the harness' allocator */
}

void pc_levels_report(void *state, sb_report *r)
{
    levels_state *s = (levels_state *)state;
    r->device_launches = s->device_launches;
    r->host_launches = s->host_launches;
    r->phases = s->phases;
    /* Thesis fig. 3.10: every generation's level stays allocated, filtered or not. */
    sb_series *series = &r->series[r->nseries++];
    series->name = "device_bytes_by_generation";
    series->x_name = "generation";
    for (int g = 0; g <= s->depth && g < SB_MAX_SERIES_POINTS; g++) {
        series->x[g] = g;
        series->y[g] = (double)(level_slots(s->capacity, g + 1) - s->capacity) *
                       (double)slot_bytes();
        series->n = g + 1;
    }
}
