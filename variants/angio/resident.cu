/* Stage 7: the whole simulation resident on the GPU (the paper's conclusion). The cells and tubes
 * go to the device once, at setup; a run resets them there and runs every step on one stream:
 *   cell lists  a counting sort of the cells by box (histogram with atomics, CUB scan, scatter),
 *               and the interaction inputs as arrays per property (float4 x,y,z,r; float2 c,a);
 *   cell-cell   a team of threads per cell over the 27 boxes around it (as cpu-openmp.c): one
 *               thread when the cells fill the GPU, up to a warp when they are few;
 *   tube-cell   a thread per cell over the tubes of its box (box lists built once: tubes do not
 *               move), each tube's TAF gained by atomics; faster than alg. 5, 6's tube lists at
 *               every tube count of fig. 8, and nothing to overflow;
 *   life cycle  a thread per cell steps it, then divisions and removals by scans over flags,
 *               keeping host.c's order: survivors in id order, then the daughters in their
 *               parents' order, numbered from next_id.
 * The host waits on nothing during a run: the population lives on the device (each kernel reads
 * it; launches cover a bound on it), a population past max_cells is noted there (and fails the
 * run), and the host reads those once, at the end, with the cells. The first run (validation) launches step by step with events between the phases,
 * which time them; later runs launch one CUDA graph whose while-loop runs two steps a turn, with no
 * event and no host in the loop. Stage 8 (sorted.cu) is this engine with `sorted` set: the
 * interaction inputs are laid out in box order (a box's cells contiguous) instead of id order. */
#include <cub/device/device_scan.cuh>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/check.h"
#include "../../cuda/graphloop.h"
#include "../../harness/error.h"
#include "../../harness/stats.h"
#include "box-tubes.cuh"
#include "host.h"
#include "physics.h"
#include "resident.h"
#include "table.h"

#define AG_BLOCK 256
#define AG_MAX_RUNS 4096
/* Event sets of the timed phases, used in turn: the host waits for a set only when the GPU is
 * this many steps behind. */
#define AG_EVENT_SETS 32

enum { AG_NPHASES = 4 };
static const char *const phase_name[AG_NPHASES] = {"cell lists", "cell-cell", "tube-cell",
                                                   "life cycle"};

typedef struct ag_grid {
    float edge;
    int nbox;
} ag_grid;

/* The population between steps, on the device: step k reads pop[k & 1], and its life cycle writes
 * pop[(k + 1) & 1]. */
typedef struct ag_pop {
    int n;
    uint32_t next_id;
    long long step;
    long long divisions, deaths;
} ag_pop;

/* What went wrong during a run, for the host to read at its end. */
typedef struct ag_faults {
    int overflowed; /* the population passed max_cells at `step` (the run stopped there) */
    long long step;
    int survivors, born;
} ag_faults;

/* What the host reads back at a run's end (page-locked). */
typedef struct ag_readback {
    ag_pop pop;
    ag_faults faults;
    unsigned long long pairs[2];
} ag_readback;

typedef struct ag_gpu {
    sb_env *env;
    const ag_model *m;
    int sorted; /* interaction inputs in box order (stage 8), else in id order */
    int team_log2; /* threads per cell in the cell-cell kernel: 1 to 32 (choose_team) */
    unsigned cell_cell_blocks; /* the most its grid needs: as many as the GPU holds at once */
    ag_grid grid;
    int nboxes;
    /* the population at the end of the last run (host.c's ag_sim) */
    int ncells;
    long long divisions, deaths, cell_pairs, tube_pairs;
    /* cells: as uploaded, and the two id-ordered arrays the life cycle compacts between (step k
     * reads d_cells[k & 1]) */
    ag_cell *d_init, *d_cells[2];
    ag_tube *d_tubes0, *d_tubes; /* as uploaded, and with the run's TAF */
    ag_pop *d_pop;               /* [2] */
    ag_faults *d_faults;
    /* cell lists: box b holds box_cells[box_start[b] .. box_start[b + 1]) */
    int *d_box_count, *d_box_start, *d_box_cells, *d_rank;
    /* interaction inputs, indexed by cell (slot in box order when sorted) */
    float4 *d_pos;
    float2 *d_ca;
    /* the tubes' box lists: box b meets tubes tube_boxes[tube_start[b] .. tube_start[b + 1]) */
    int *d_tube_start, *d_tube_boxes;
    /* life cycle: per cell, survives << 32 | divides, and its exclusive scan */
    unsigned long long *d_flags, *d_ranks;
    unsigned long long *d_pairs; /* cell-cell (each pair twice), tube-cell */
    void *d_scratch;
    size_t scratch_bytes;
    ag_readback *h_back;
    ag_pop *h_pop0; /* the population a run starts from */
    ag_cell *h_cells;
    ag_tube *h_tubes;
    /* phase boundaries of a step, sets used in turn; the loop's start and end */
    cudaEvent_t mark[AG_EVENT_SETS][AG_NPHASES + 1], loop[2];
    int pending[AG_EVENT_SETS];
    cudaGraph_t graph; /* the loop of the runs after the first: none until one is needed */
    cudaGraphExec_t graph_exec;
    sb_phases phases;
    int runs;
    double loop_seconds[AG_MAX_RUNS];
} ag_gpu;

/* ---- kernels ---- */

static __device__ int box_of(ag_grid g, const float *x)
{
    return ag_box_at(x[0], g.edge, g.nbox) +
           g.nbox * (ag_box_at(x[1], g.edge, g.nbox) + g.nbox * ag_box_at(x[2], g.edge, g.nbox));
}

static __device__ void copy_effects(ag_cell *to, const ag_cell *from)
{
    to->f[0] = from->f[0];
    to->f[1] = from->f[1];
    to->f[2] = from->f[2];
    to->dc = from->dc;
    to->da = from->da;
    to->p = from->p;
}

/* Adds every lane's v to *counter, one atomic per warp (every lane of the warp must call it). */
static __device__ void count_add(unsigned long long *counter, unsigned v)
{
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, d);
    if ((threadIdx.x & 31) == 0 && v > 0)
        atomicAdd(counter, (unsigned long long)v);
}

/* Counting sort, first half: each cell's rank among the cells of its box (in no set order). */
static __global__ void bin_kernel(ag_grid grid, const ag_pop *pop, const ag_cell *cells,
                                  int *box_count, int *rank)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pop->n)
        rank[i] = atomicAdd(&box_count[box_of(grid, cells[i].x)], 1);
}

/* Second half, after the scan of the counts: each cell to its place in box_cells, and its
 * interaction inputs to its own index, or to that place when sorted. The counts, scanned, are
 * cleared here for the next step's histogram (a memset less per step). */
static __global__ void place_kernel(ag_grid grid, int nboxes, const ag_pop *pop, int sorted,
                                    const ag_cell *cells, int *box_count, const int *box_start,
                                    const int *rank, int *box_cells, float4 *pos, float2 *ca)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int b = i; b <= nboxes; b += gridDim.x * blockDim.x)
        box_count[b] = 0;
    if (i >= pop->n)
        return;
    const ag_cell *c = &cells[i];
    int slot = box_start[box_of(grid, c->x)] + rank[i], k = sorted ? slot : i;
    box_cells[slot] = i;
    pos[k] = make_float4(c->x[0], c->x[1], c->x[2], c->r);
    ca[k] = make_float2(c->c, c->a);
}

/* Sums a cell's effects over the `team` lanes that share it (a power of two up to 32, aligned
 * in the warp; every lane of the warp must call it). */
static __device__ void team_sum(ag_cell *sum, int team)
{
    for (int d = team / 2; d > 0; d /= 2) {
        for (int a = 0; a < 3; a++)
            sum->f[a] += __shfl_xor_sync(0xffffffffu, sum->f[a], d);
        sum->dc += __shfl_xor_sync(0xffffffffu, sum->dc, d);
        sum->da += __shfl_xor_sync(0xffffffffu, sum->da, d);
        sum->p += __shfl_xor_sync(0xffffffffu, sum->p, d);
    }
}

/* Cell-cell: a team of 2^team_log2 lanes per entry k of the inputs over the 27 boxes around its
 * cell, skipping itself, as cpu-openmp.c. Boxes are numbered x first, so a row of three boxes
 * along x is one run of box_cells: the 27 boxes are 9 runs. A lone thread's walk is a chain of
 * dependent loads (row start, entry, partner), 9 runs long: a team splits the runs among its
 * lanes (a team of 32 puts 3 lanes on each run, taking its cells in turn), so few cells get wide
 * teams, and their sums meet by shuffles. One thread a cell sums in the runs' order. The sum is
 * written, not added: this is where the step's effects are cleared. Each pair is counted from
 * both sides. The grid strides over the entries (its size need not follow the population). */
static __global__ void cell_cell_kernel(ag_laws l, ag_grid grid, const ag_pop *pop, int sorted,
                                        int team_log2, const float4 *pos, const float2 *ca,
                                        const int *box_start, const int *box_cells,
                                        ag_cell *cells, unsigned long long *pairs)
{
    int team = 1 << team_log2, lane = threadIdx.x & (team - 1);
    int per_run = team >= 9 ? team / 9 : 1; /* lanes sharing a run */
    int runs_at_once = team / per_run, first_run = lane / per_run, stripe = lane % per_run;
    long long lanes = ((long long)pop->n << team_log2) + blockDim.x - 1;
    lanes -= lanes % blockDim.x; /* whole blocks: every lane of a warp reaches the shuffles */
    unsigned met = 0;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < lanes;
         t += (long long)gridDim.x * blockDim.x) {
        int k = (int)(t >> team_log2), mine = k < pop->n;
        ag_cell sum = {};
        if (mine) {
            float4 p = pos[k];
            float2 q = ca[k];
            float x[3] = {p.x, p.y, p.z};
            int nb = grid.nbox, b[3];
            for (int a = 0; a < 3; a++)
                b[a] = ag_box_at(x[a], grid.edge, nb);
            int x0 = max(b[0] - 1, 0), x1 = min(b[0] + 1, nb - 1);
            for (int r = first_run; r < 9; r += runs_at_once) {
                int y = b[1] + r % 3 - 1, z = b[2] + r / 3 - 1;
                if (y < 0 || y >= nb || z < 0 || z >= nb)
                    continue;
                int row = nb * (y + nb * z), end = box_start[row + x1 + 1];
                for (int j = box_start[row + x0] + stripe; j < end; j += per_run) {
                    int o = sorted ? j : box_cells[j]; /* the partner's entry in the inputs */
                    if (o == k)
                        continue;
                    float4 pj = pos[o];
                    float2 qj = ca[o];
                    float xj[3] = {pj.x, pj.y, pj.z};
                    ag_effect e;
                    if (ag_cell_pair(&l, x, p.w, q.x, q.y, xj, pj.w, qj.x, qj.y, &e)) {
                        ag_effect_add(&sum, &e);
                        met++;
                    }
                }
            }
        }
        team_sum(&sum, team);
        if (mine && lane == 0)
            copy_effects(&cells[sorted ? box_cells[k] : k], &sum);
    }
    count_add(pairs, met);
}

/* Tube-cell: a thread per entry over the tubes of its cell's box, added to the cell-cell
 * effects; a tube's TAF of the step gained by atomics (cells share tubes; the interaction does
 * not read it). */
static __global__ void tube_cell_kernel(ag_laws l, ag_grid grid, const ag_pop *pop, int sorted,
                                        ag_tube *tubes, const int *tube_start,
                                        const int *tube_boxes, const float4 *pos,
                                        const float2 *ca, const int *box_cells, ag_cell *cells,
                                        unsigned long long *pairs)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned met = 0;
    if (k < pop->n) {
        float4 p = pos[k];
        float2 q = ca[k];
        float x[3] = {p.x, p.y, p.z};
        int box = box_of(grid, x), first = tube_start[box], end = tube_start[box + 1];
        if (first < end) {
            ag_cell *c = &cells[sorted ? box_cells[k] : k];
            ag_cell sum;
            copy_effects(&sum, c);
            met = ag_box_tubes(&l, tubes, tube_boxes, first, end, x, p.w, q.x, q.y, &sum,
                               &tubes[0].taf, sizeof *tubes);
            copy_effects(c, &sum);
        }
    }
    count_add(pairs, met);
}

/* A thread per cell: its step, in place, and its flags for the scan; threads n to `bound` write
 * 0, so that the scan (over bound + 1 flags) holds the totals at n. Both counts fit in 32 bits,
 * so one 64-bit sum scans both. */
static __global__ void life_step_kernel(ag_laws l, float side, const ag_pop *pop, int bound,
                                        ag_cell *cells, unsigned long long *flags)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, n = pop->n;
    if (i > bound)
        return;
    if (i >= n) {
        flags[i] = 0;
        return;
    }
    ag_cell c = cells[i];
    int divides = ag_cell_step(&l, side, &c);
    cells[i] = c;
    flags[i] = (unsigned long long)(c.state != AG_DEAD) << 32 | (unsigned)divides;
}

/* A thread per cell: a survivor goes to its rank among the survivors; a dividing one (cells are
 * in id order, so its rank among the dividing ones is the host's order) also places its daughter
 * after every survivor, numbered from next_id by that rank. Thread 0 writes the next step's
 * population, or notes a population past max_cells and leaves none (the run has failed). In the
 * graph's loop, the second step's thread 0 also says whether the loop goes on (`loop_stop`
 * steps; 0 outside the graph). */
static __global__ void life_place_kernel(uint32_t seed, float side, int max_cells,
                                         const ag_pop *pop, const ag_cell *cells,
                                         const unsigned long long *flags,
                                         const unsigned long long *ranks, ag_cell *next,
                                         ag_pop *pop_next, ag_faults *faults,
                                         cudaGraphConditionalHandle loop, long long loop_stop)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    ag_pop p = *pop;
    unsigned long long totals = ranks[p.n];
    int survivors = (int)(totals >> 32), born = (int)(uint32_t)totals;
    int fits = survivors + born <= max_cells;
    if (i == 0) {
        ag_pop q = {fits ? survivors + born : 0, p.next_id + (uint32_t)born, p.step + 1,
                    p.divisions + born, p.deaths + p.n - survivors};
        *pop_next = q;
        if (!fits) {
            faults->overflowed = 1;
            faults->step = p.step;
            faults->survivors = survivors;
            faults->born = born;
        }
        if (loop_stop > 0)
            cudaGraphSetConditional(loop, q.step < loop_stop);
    }
    if (!fits || i >= p.n || !(flags[i] >> 32))
        return;
    ag_cell c = cells[i];
    unsigned long long r = ranks[i];
    if (flags[i] & 1) {
        uint32_t rank = (uint32_t)r;
        ag_cell daughter;
        ag_divide(side, seed, p.step, &c, &daughter, p.next_id + rank);
        next[survivors + rank] = daughter;
    }
    next[r >> 32] = c;
}

/* ---- one step ---- */

static unsigned blocks_of(long long n, int block)
{
    return (unsigned)((n + block - 1) / block);
}

/* How step k is launched: its buffers' parity (k & 1), the number of cells its launches cover (at
 * least the population), and its event set (-1: none). */
typedef struct ag_launch {
    int parity, bound, set;
    cudaGraphConditionalHandle loop; /* with loop_stop > 0: the graph's loop, decided by this step */
    long long loop_stop;
} ag_launch;

static int cell_lists(ag_gpu *g, const ag_launch *s)
{
    cudaStream_t st = g->env->streams[0];
    const ag_cell *cells = g->d_cells[s->parity];
    const ag_pop *pop = &g->d_pop[s->parity];
    bin_kernel<<<blocks_of(s->bound, AG_BLOCK), AG_BLOCK, 0, st>>>(g->grid, pop, cells,
                                                                    g->d_box_count, g->d_rank);
    SB_LAUNCHED("bin_kernel");
    SB_CUDA(cub::DeviceScan::ExclusiveSum(g->d_scratch, g->scratch_bytes, g->d_box_count,
                                          g->d_box_start, g->nboxes + 1, st));
    place_kernel<<<blocks_of(s->bound, AG_BLOCK), AG_BLOCK, 0, st>>>(
        g->grid, g->nboxes, pop, g->sorted, cells, g->d_box_count, g->d_box_start, g->d_rank,
        g->d_box_cells, g->d_pos, g->d_ca);
    SB_LAUNCHED("place_kernel");
    return 0;
}

static int cell_cell(ag_gpu *g, const ag_launch *s)
{
    unsigned blocks = blocks_of((long long)s->bound << g->team_log2, AG_BLOCK);
    cell_cell_kernel<<<blocks < g->cell_cell_blocks ? blocks : g->cell_cell_blocks, AG_BLOCK, 0,
                       g->env->streams[0]>>>(g->m->laws, g->grid, &g->d_pop[s->parity],
                                             g->sorted, g->team_log2, g->d_pos, g->d_ca,
                                             g->d_box_start, g->d_box_cells,
                                             g->d_cells[s->parity], &g->d_pairs[0]);
    SB_LAUNCHED("cell_cell_kernel");
    return 0;
}

static int tube_cell(ag_gpu *g, const ag_launch *s)
{
    tube_cell_kernel<<<blocks_of(s->bound, AG_BLOCK), AG_BLOCK, 0, g->env->streams[0]>>>(
        g->m->laws, g->grid, &g->d_pop[s->parity], g->sorted, g->d_tubes, g->d_tube_start,
        g->d_tube_boxes, g->d_pos, g->d_ca, g->d_box_cells, g->d_cells[s->parity],
        &g->d_pairs[1]);
    SB_LAUNCHED("tube_cell_kernel");
    return 0;
}

/* host.c's ag_sim_life */
static int life_cycle(ag_gpu *g, const ag_launch *s)
{
    const ag_model *m = g->m;
    cudaStream_t st = g->env->streams[0];
    int p = s->parity;
    life_step_kernel<<<blocks_of((long long)s->bound + 1, AG_BLOCK), AG_BLOCK, 0, st>>>(
        m->laws, m->side, &g->d_pop[p], s->bound, g->d_cells[p], g->d_flags);
    SB_LAUNCHED("life_step_kernel");
    SB_CUDA(cub::DeviceScan::ExclusiveSum(g->d_scratch, g->scratch_bytes, g->d_flags, g->d_ranks,
                                          s->bound + 1, st));
    life_place_kernel<<<blocks_of(s->bound, AG_BLOCK), AG_BLOCK, 0, st>>>(
        m->seed, m->side, m->max_cells, &g->d_pop[p], g->d_cells[p], g->d_flags, g->d_ranks,
        g->d_cells[1 - p], &g->d_pop[1 - p], g->d_faults, s->loop, s->loop_stop);
    SB_LAUNCHED("life_place_kernel");
    return 0;
}

/* The phase times of event set `set`, once the stream has passed it. */
static int phases_collect(ag_gpu *g, int set)
{
    if (!g->pending[set])
        return 0;
    SB_CUDA(cudaEventSynchronize(g->mark[set][AG_NPHASES]));
    for (int p = 0; p < AG_NPHASES; p++) {
        float ms;
        SB_CUDA(cudaEventElapsedTime(&ms, g->mark[set][p], g->mark[set][p + 1]));
        sb_phase_add(&g->phases, phase_name[p], ms * 1e-3);
    }
    g->pending[set] = 0;
    return 0;
}

/* Boundary p of a step's phases (p = AG_NPHASES: its end): an event on the stream, and the NVTX
 * range of the phase that begins; nothing for a step without events. */
static int mark(ag_gpu *g, const ag_launch *s, int p)
{
    if (s->set < 0)
        return 0;
    if (p > 0)
        sb_range_pop();
    if (p < AG_NPHASES)
        sb_range_push(g->env->label, phase_name[p]);
    SB_CUDA(cudaEventRecord(g->mark[s->set][p], g->env->streams[0]));
    return 0;
}

static int step(ag_gpu *g, const ag_launch *s)
{
    int rc;
    if ((rc = mark(g, s, 0)) || (rc = cell_lists(g, s)) || (rc = mark(g, s, 1)) ||
        (rc = cell_cell(g, s)) || (rc = mark(g, s, 2)) ||
        (rc = g->m->ntubes > 0 ? tube_cell(g, s) : 0) || (rc = mark(g, s, 3)) ||
        (rc = life_cycle(g, s)) || (rc = mark(g, s, AG_NPHASES)))
        return rc;
    if (s->set >= 0)
        g->pending[s->set] = 1;
    return 0;
}

/* The graph of the runs after the first: a while-loop whose body is two steps at full bound (so
 * that it ends in the buffers it starts from); it runs steps / 2 turns. */
static int capture_loop(ag_gpu *g)
{
    const ag_model *m = g->m;
    cudaStream_t st = g->env->streams[0];
    cudaGraphConditionalHandle loop;
    cudaGraph_t body;
    if (sb_graph_while(&g->graph, &loop, &body) != 0)
        return -1;
    /* relaxed: CUB's scans query the device while they are captured */
    SB_CUDA(cudaStreamBeginCaptureToGraph(st, body, NULL, NULL, 0, cudaStreamCaptureModeRelaxed));
    ag_launch even = {0, m->max_cells, -1, 0, 0};
    ag_launch odd = {1, m->max_cells, -1, loop, m->steps - m->steps % 2};
    int rc = step(g, &even) || step(g, &odd);
    cudaError_t e = cudaStreamEndCapture(st, &body);
    if (rc != 0)
        return -1;
    SB_CUDA(e);
    SB_CUDA(cudaGraphInstantiate(&g->graph_exec, g->graph, 0));
    return 0;
}

static int drop_loop(ag_gpu *g)
{
    if (g->graph_exec)
        SB_CUDA(cudaGraphExecDestroy(g->graph_exec));
    if (g->graph)
        SB_CUDA(cudaGraphDestroy(g->graph));
    g->graph_exec = NULL;
    g->graph = NULL;
    return 0;
}

/* The cells step k's launches cover: the population at most doubles a step. */
static int bound_at(const ag_model *m, long long k)
{
    long long bound = m->ncells;
    for (; k > 0 && bound < m->max_cells; k--)
        bound *= 2;
    return bound < m->max_cells ? (int)bound : m->max_cells;
}

/* Every step of a run from the uploaded state, then the population and faults read back. Step by
 * step with events when `timed_phases`, else through the graph. */
static int simulate(ag_gpu *g, int timed_phases)
{
    const ag_model *m = g->m;
    sb_env *env = g->env;
    cudaStream_t st = env->streams[0];
    if (sb_copy(&env->xfer, g->d_cells[0], g->d_init, (size_t)m->ncells * sizeof(ag_cell),
                cudaMemcpyDeviceToDevice, st) != 0 ||
        sb_copy(&env->xfer, g->d_tubes, g->d_tubes0, (size_t)m->ntubes * sizeof(ag_tube),
                cudaMemcpyDeviceToDevice, st) != 0 ||
        sb_copy(&env->xfer, &g->d_pop[0], g->h_pop0, sizeof *g->h_pop0, cudaMemcpyHostToDevice,
                st) != 0)
        return -1;
    /* the kernels clear these for the next step; a run starts them cleared */
    SB_CUDA(cudaMemsetAsync(g->d_pairs, 0, 2 * sizeof *g->d_pairs, st));
    SB_CUDA(cudaMemsetAsync(g->d_faults, 0, sizeof *g->d_faults, st));
    SB_CUDA(cudaMemsetAsync(g->d_box_count, 0, ((size_t)g->nboxes + 1) * sizeof(int), st));
    SB_CUDA(cudaEventRecord(g->loop[0], st));
    if (timed_phases) {
        sb_phases_clear(&g->phases);
        for (long long k = 0; k < m->steps; k++) {
            ag_launch s = {(int)(k & 1), bound_at(m, k), (int)(k % AG_EVENT_SETS), 0, 0};
            int rc = phases_collect(g, s.set);
            if (rc != 0 || (rc = step(g, &s)) != 0)
                return rc;
        }
    } else {
        if (m->steps >= 2) {
            if (!g->graph_exec && capture_loop(g) != 0)
                return -1;
            SB_CUDA(cudaGraphLaunch(g->graph_exec, st));
        }
        if (m->steps % 2) {
            ag_launch last = {0, bound_at(m, m->steps - 1), -1, 0, 0};
            int rc = step(g, &last);
            if (rc != 0)
                return rc;
        }
    }
    SB_CUDA(cudaEventRecord(g->loop[1], st));
    if (sb_copy(&env->xfer, &g->h_back->pop, &g->d_pop[m->steps & 1], sizeof g->h_back->pop,
                cudaMemcpyDeviceToHost, st) != 0 ||
        sb_copy(&env->xfer, &g->h_back->faults, g->d_faults, sizeof g->h_back->faults,
                cudaMemcpyDeviceToHost, st) != 0 ||
        sb_copy(&env->xfer, g->h_back->pairs, g->d_pairs, sizeof g->h_back->pairs,
                cudaMemcpyDeviceToHost, st) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    for (int set = 0; set < AG_EVENT_SETS; set++)
        if (phases_collect(g, set) != 0)
            return -1;
    return 0;
}

/* ---- the stage ---- */

extern "C" int ag_resident_run(void *state)
{
    ag_gpu *g = (ag_gpu *)state;
    const ag_model *m = g->m;
    sb_env *env = g->env;
    cudaStream_t st = env->streams[0];
    const ag_readback *back = g->h_back;
    int rc = simulate(g, g->runs == 0);
    if (rc != 0)
        return rc;
    if (back->faults.overflowed)
        return sb_fail("step %lld: %d cells and %d divisions exceed max_cells=%d (raise "
                       "--param max_cells)",
                       back->faults.step, back->faults.survivors, back->faults.born,
                       m->max_cells);
    g->ncells = back->pop.n;
    g->divisions = back->pop.divisions;
    g->deaths = back->pop.deaths;
    g->cell_pairs = (long long)(back->pairs[0] / 2); /* each pair seen from both cells */
    g->tube_pairs = (long long)back->pairs[1];
    if (sb_copy(&env->xfer, g->h_cells, g->d_cells[m->steps & 1],
                (size_t)g->ncells * sizeof(ag_cell), cudaMemcpyDeviceToHost, st) != 0 ||
        sb_copy(&env->xfer, g->h_tubes, g->d_tubes, (size_t)m->ntubes * sizeof(ag_tube),
                cudaMemcpyDeviceToHost, st) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    float ms;
    SB_CUDA(cudaEventElapsedTime(&ms, g->loop[0], g->loop[1]));
    if (g->runs < AG_MAX_RUNS)
        g->loop_seconds[g->runs] = ms * 1e-3;
    g->runs++;
    return 0;
}

static int dev_alloc(ag_gpu *g, void *ptr, size_t bytes, const char *what)
{
    return sb_dev_alloc(&g->env->mem, g->env->devices[0], (void **)ptr, bytes, what);
}

/* The tubes' box lists, built by the host's builder and uploaded once (tubes do not move). */
static int upload_tube_boxes(ag_gpu *g)
{
    sb_env *env = g->env;
    int *start = NULL, *list = NULL;
    int rc = ag_tube_box_lists(g->m, &start, &list);
    size_t entries = rc == 0 ? (size_t)start[g->nboxes] + 1 : 0;
    if (rc == 0 &&
        ((rc = dev_alloc(g, &g->d_tube_start, ((size_t)g->nboxes + 1) * sizeof(int),
                         "tubes' box starts")) ||
         (rc = dev_alloc(g, &g->d_tube_boxes, entries * sizeof(int), "tubes' box lists")) ||
         (rc = sb_copy(&env->xfer, g->d_tube_start, start, ((size_t)g->nboxes + 1) * sizeof(int),
                       cudaMemcpyHostToDevice, env->streams[0])) ||
         (rc = sb_copy(&env->xfer, g->d_tube_boxes, list, entries * sizeof(int),
                       cudaMemcpyHostToDevice, env->streams[0]))))
        rc = -1;
    cudaError_t e = rc == 0 ? cudaStreamSynchronize(env->streams[0]) : cudaSuccess;
    free(start);
    free(list);
    SB_CUDA(e);
    return rc;
}

/* Threads per cell in the cell-cell kernel: the widest team (up to a warp) with which the
 * initial cells still fit in the GPU's resident threads, so a large population keeps one thread
 * a cell and a small one spreads its walks over the SMs. */
static int choose_team(ag_gpu *g)
{
    int sms, per_sm, dev = g->env->devices[0];
    SB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    SB_CUDA(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    long long resident = (long long)sms * per_sm, cells = g->m->ncells > 0 ? g->m->ncells : 1;
    g->team_log2 = 0;
    while (g->team_log2 < 5 && (cells << (g->team_log2 + 1)) <= resident)
        g->team_log2++;
    int per_sm_blocks;
    SB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_blocks, cell_cell_kernel,
                                                          AG_BLOCK, 0));
    g->cell_cell_blocks = (unsigned)(sms * (per_sm_blocks > 0 ? per_sm_blocks : 1));
    return 0;
}

extern "C" int ag_resident_setup(sb_env *env, const void *model, void **state, int sorted)
{
    ag_gpu *g = (ag_gpu *)calloc(1, sizeof *g);
    if (!g)
        return sb_fail("out of host memory");
    *state = g;
    const ag_model *m = (const ag_model *)model;
    g->env = env;
    g->m = m;
    g->sorted = sorted;
    g->grid.edge = m->box_edge;
    g->grid.nbox = m->nbox;
    g->nboxes = m->nbox * m->nbox * m->nbox;
    cudaStream_t st = env->streams[0];
    size_t cap = (size_t)m->max_cells, boxes = (size_t)g->nboxes + 1, tubes = (size_t)m->ntubes;
    SB_CUDA(cudaSetDevice(env->devices[0]));
    for (int s = 0; s < AG_EVENT_SETS; s++)
        for (int p = 0; p <= AG_NPHASES; p++)
            SB_CUDA(cudaEventCreate(&g->mark[s][p]));
    SB_CUDA(cudaEventCreate(&g->loop[0]));
    SB_CUDA(cudaEventCreate(&g->loop[1]));
    SB_CUDA(cudaMallocHost((void **)&g->h_back, sizeof *g->h_back));
    SB_CUDA(cudaMallocHost((void **)&g->h_pop0, sizeof *g->h_pop0));
    memset(g->h_pop0, 0, sizeof *g->h_pop0);
    g->h_pop0->n = m->ncells;
    g->h_pop0->next_id = (uint32_t)m->ncells;
    SB_CUDA(cudaMallocHost((void **)&g->h_cells, cap * sizeof(ag_cell)));
    SB_CUDA(cudaMallocHost((void **)&g->h_tubes, (tubes + 1) * sizeof(ag_tube)));
    size_t box_scan = 0, life_scan = 0;
    SB_CUDA(cub::DeviceScan::ExclusiveSum(NULL, box_scan, (int *)NULL, (int *)NULL,
                                          g->nboxes + 1));
    SB_CUDA(cub::DeviceScan::ExclusiveSum(NULL, life_scan, (unsigned long long *)NULL,
                                          (unsigned long long *)NULL, m->max_cells + 1));
    g->scratch_bytes = box_scan > life_scan ? box_scan : life_scan;
    int rc;
    if ((rc = dev_alloc(g, &g->d_init, (size_t)m->ncells * sizeof(ag_cell), "initial cells")) ||
        (rc = dev_alloc(g, &g->d_cells[0], cap * sizeof(ag_cell), "cells")) ||
        (rc = dev_alloc(g, &g->d_cells[1], cap * sizeof(ag_cell), "cells")) ||
        (rc = dev_alloc(g, &g->d_tubes0, tubes * sizeof(ag_tube), "initial tubes")) ||
        (rc = dev_alloc(g, &g->d_tubes, tubes * sizeof(ag_tube), "tubes")) ||
        (rc = dev_alloc(g, &g->d_pop, 2 * sizeof(ag_pop), "population")) ||
        (rc = dev_alloc(g, &g->d_faults, sizeof(ag_faults), "faults")) ||
        (rc = dev_alloc(g, &g->d_box_count, boxes * sizeof(int), "box counts")) ||
        (rc = dev_alloc(g, &g->d_box_start, boxes * sizeof(int), "box starts")) ||
        (rc = dev_alloc(g, &g->d_box_cells, cap * sizeof(int), "cell lists")) ||
        (rc = dev_alloc(g, &g->d_rank, cap * sizeof(int), "ranks in boxes")) ||
        (rc = dev_alloc(g, &g->d_pos, cap * sizeof(float4), "positions and radii")) ||
        (rc = dev_alloc(g, &g->d_ca, cap * sizeof(float2), "oxygen and TAF")) ||
        (rc = dev_alloc(g, &g->d_flags, (cap + 1) * sizeof(unsigned long long), "life flags")) ||
        (rc = dev_alloc(g, &g->d_ranks, (cap + 1) * sizeof(unsigned long long), "life ranks")) ||
        (rc = dev_alloc(g, &g->d_pairs, 2 * sizeof(unsigned long long), "pair counters")) ||
        (rc = dev_alloc(g, &g->d_scratch, g->scratch_bytes, "CUB scratch")))
        return rc;
    if (sb_copy(&env->xfer, g->d_init, m->cells, (size_t)m->ncells * sizeof(ag_cell),
                cudaMemcpyHostToDevice, st) != 0 ||
        sb_copy(&env->xfer, g->d_tubes0, m->tubes, tubes * sizeof(ag_tube),
                cudaMemcpyHostToDevice, st) != 0 ||
        (m->ntubes > 0 && upload_tube_boxes(g) != 0))
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    return choose_team(g);
}

extern "C" int ag_resident_output(void *state, void *out)
{
    ag_gpu *g = (ag_gpu *)state;
    ag_output_set((ag_output *)out, g->h_cells, g->ncells, g->h_tubes, g->cell_pairs,
                  g->tube_pairs, g->divisions, g->deaths);
    return 0;
}

/* Device memory belongs to the environment, which frees it after teardown. */
extern "C" void ag_resident_teardown(void *state)
{
    ag_gpu *g = (ag_gpu *)state;
    if (!g)
        return;
    drop_loop(g);
    for (int s = 0; s < AG_EVENT_SETS; s++)
        for (int p = 0; p <= AG_NPHASES; p++)
            if (g->mark[s][p])
                cudaEventDestroy(g->mark[s][p]);
    for (int e = 0; e < 2; e++)
        if (g->loop[e])
            cudaEventDestroy(g->loop[e]);
    cudaFreeHost(g->h_back);
    cudaFreeHost(g->h_pop0);
    cudaFreeHost(g->h_cells);
    cudaFreeHost(g->h_tubes);
    free(g);
}

extern "C" void ag_resident_report(void *state, sb_report *r)
{
    ag_gpu *g = (ag_gpu *)state;
    const ag_model *m = g->m;
    r->phases = g->phases;
    /* steady: the median step loop of the graph's runs (the first launches step by step) */
    int runs = g->runs < AG_MAX_RUNS ? g->runs : AG_MAX_RUNS;
    r->steady.runs = sb_steady_median(g->loop_seconds, runs, &r->steady.seconds);
    if (r->steady.runs == 0)
        return;
    r->steady.items = (double)(g->cell_pairs + g->tube_pairs);
    r->steady.simulated_seconds = (double)m->steps * m->laws.dt * 60;
}

static int setup(sb_env *env, const void *model, void **state)
{
    return ag_resident_setup(env, model, state, 0);
}

extern "C" const sb_variant_ops ag_resident_ops = {setup, ag_resident_run, ag_resident_output,
                                                  ag_resident_teardown, ag_resident_report};
