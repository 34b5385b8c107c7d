/* Stage 7: the whole simulation resident on the GPU (the paper's conclusion). The cells and tubes
 * go to the device once, at setup; a run resets them there and runs every step on one stream:
 *   cell lists  a counting sort of the cells by box (histogram with atomics, CUB scan, scatter),
 *               and the interaction inputs as arrays per property (float4 x,y,z,r; float2 c,a);
 *   cell-cell   a thread per cell over the 27 boxes around it (as cpu-openmp.c);
 *   tube-cell   tube lists (alg. 5, 6): a thread per tube appends itself to the lists of the cells
 *               it meets and sums its TAF, then a thread per cell adds its listed tubes' effects;
 *   life cycle  a thread per cell steps it, then divisions and removals by scans over flags,
 *               keeping host.c's order: survivors in id order, then the daughters in their
 *               parents' order, numbered from next_id.
 * The host reads a few counts per step (the population, and whether a tube list overflowed); the
 * cells come back once, at the end. Stage 8 (sorted.cu) is this engine with `sorted` set: the
 * interaction inputs are laid out in box order (a box's cells contiguous) instead of id order. */
#include <cub/device/device_scan.cuh>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/check.h"
#include "../../harness/error.h"
#include "host.h"
#include "physics.h"
#include "resident.h"
#include "table.h"

#define AG_BLOCK 256
/* One thread per tube walks many boxes: small blocks spread a few hundred tubes over the SMs. */
#define AG_TUBE_BLOCK 32
/* Tubes a cell's list holds at first; a fuller list doubles it and the phase runs again. */
#define AG_TUBE_SLOTS 16
#define AG_MAX_RUNS 4096

enum { AG_NPHASES = 4 };
static const char *const phase_name[AG_NPHASES] = {"cell lists", "cell-cell", "tube-cell",
                                                   "life cycle"};

typedef struct ag_grid {
    float edge;
    int nbox;
} ag_grid;

/* What the host reads back (page-locked): per step, the life cycle's totals and the longest tube
 * list; at the end, the pair counters. */
typedef struct ag_readback {
    unsigned long long totals; /* survivors << 32 | divisions */
    unsigned long long pairs[2];
    int need;
} ag_readback;

typedef struct ag_gpu {
    sb_env *env;
    const ag_model *m;
    int sorted; /* interaction inputs in box order (stage 8), else in id order */
    ag_grid grid;
    int nboxes;
    /* the population: host.c's ag_sim, on the device */
    int ncells, cur;
    uint32_t next_id;
    long long divisions, deaths, cell_pairs, tube_pairs;
    /* cells: as uploaded, and the two id-ordered arrays the life cycle compacts between */
    ag_cell *d_init, *d_cells[2];
    ag_tube *d_tubes0, *d_tubes; /* as uploaded, and with the run's TAF */
    float *d_gain;               /* each tube's TAF of the step */
    /* cell lists: box b holds box_cells[box_start[b] .. box_start[b + 1]) */
    int *d_box_count, *d_box_start, *d_box_cells, *d_rank;
    /* interaction inputs, indexed by cell (slot in box order when sorted) */
    float4 *d_pos;
    float2 *d_ca;
    /* tube lists, indexed like the inputs: slot s of entry k at s * max_cells + k */
    int tube_cap;
    int *d_tube_count, *d_tube_list, *d_need;
    /* life cycle: per cell, survives << 32 | divides, and its exclusive scan */
    unsigned long long *d_flags, *d_ranks;
    unsigned long long *d_pairs; /* cell-cell (each pair twice), tube-cell */
    void *d_scratch;
    size_t scratch_bytes;
    ag_readback *h_back;
    ag_cell *h_cells;
    ag_tube *h_tubes;
    /* phase boundaries of a step, two sets used in turn; the loop's start and end */
    cudaEvent_t mark[2][AG_NPHASES + 1], loop[2];
    int pending[2];
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
static __global__ void bin_kernel(ag_grid grid, int n, const ag_cell *cells, int *box_count,
                                  int *rank)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        rank[i] = atomicAdd(&box_count[box_of(grid, cells[i].x)], 1);
}

/* Second half, after the scan of the counts: each cell to its place in box_cells, and its
 * interaction inputs to its own index, or to that place when sorted. */
static __global__ void place_kernel(ag_grid grid, int n, int sorted, const ag_cell *cells,
                                    const int *box_start, const int *rank, int *box_cells,
                                    float4 *pos, float2 *ca)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const ag_cell *c = &cells[i];
    int slot = box_start[box_of(grid, c->x)] + rank[i], k = sorted ? slot : i;
    box_cells[slot] = i;
    pos[k] = make_float4(c->x[0], c->x[1], c->x[2], c->r);
    ca[k] = make_float2(c->c, c->a);
}

/* Cell-cell: a thread per entry k of the inputs over the 27 boxes around its cell, skipping
 * itself, as cpu-openmp.c. Its sum is written, not added: this is where the step's effects are
 * cleared. Boxes are numbered x first, so a row of three boxes along x is one run of box_cells:
 * the 27 boxes are 9 runs. Each pair is counted from both sides. */
static __global__ void cell_cell_kernel(ag_laws l, ag_grid grid, int n, int sorted,
                                        const float4 *pos, const float2 *ca, const int *box_start,
                                        const int *box_cells, ag_cell *cells,
                                        unsigned long long *pairs)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned met = 0;
    if (k < n) {
        float4 p = pos[k];
        float2 q = ca[k];
        float x[3] = {p.x, p.y, p.z};
        int nb = grid.nbox, b[3];
        for (int a = 0; a < 3; a++)
            b[a] = ag_box_at(x[a], grid.edge, nb);
        int x0 = max(b[0] - 1, 0), x1 = min(b[0] + 1, nb - 1);
        ag_cell sum = {};
        for (int z = max(b[2] - 1, 0); z <= min(b[2] + 1, nb - 1); z++)
            for (int y = max(b[1] - 1, 0); y <= min(b[1] + 1, nb - 1); y++) {
                int row = nb * (y + nb * z), end = box_start[row + x1 + 1];
                for (int j = box_start[row + x0]; j < end; j++) {
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
        copy_effects(&cells[sorted ? box_cells[k] : k], &sum);
    }
    count_add(pairs, met);
}

/* Alg. 5: a thread per tube over the cells of the boxes it can reach (host.c's ag_tube_boxes):
 * the tube appended to the list of each cell it meets, and its TAF of the step (the thread owns
 * the tube). A list that is full is not written past: the longest goes to *need, the host grows
 * the lists and runs the phase again, so the TAF is written, not added, here. */
static __global__ void tube_list_kernel(ag_laws l, ag_grid grid, float r_max, int ntubes,
                                        int sorted, const ag_tube *tubes, const float4 *pos,
                                        const float2 *ca, const int *box_start,
                                        const int *box_cells, int cap, int stride, int *count,
                                        int *list, int *need, float *gain)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ntubes)
        return;
    ag_tube tube = tubes[t];
    int nb = grid.nbox, lo[3], hi[3];
    ag_tube_box_range(&tube, l.k_c, r_max, grid.edge, nb, lo, hi);
    float gained = 0;
    for (int z = lo[2]; z <= hi[2]; z++)
        for (int y = lo[1]; y <= hi[1]; y++) {
            int row = nb * (y + nb * z), end = box_start[row + hi[0] + 1];
            for (int j = box_start[row + lo[0]]; j < end; j++) {
                int o = sorted ? j : box_cells[j];
                float4 p = pos[o];
                float2 q = ca[o];
                float x[3] = {p.x, p.y, p.z};
                ag_effect e;
                float taf;
                if (!ag_tube_cell(&l, &tube, x, p.w, q.x, q.y, &e, &taf))
                    continue;
                gained += taf;
                int slot = atomicAdd(&count[o], 1);
                if (slot < cap)
                    list[(size_t)slot * stride + o] = t;
                else
                    atomicMax(need, slot + 1);
            }
        }
    gain[t] = gained;
}

/* Alg. 6: a thread per entry over the tubes listed for its cell, added to the cell-cell effects.
 * The test is made again (and counted here): in another kernel nvcc may fuse other operations,
 * so a pair at the range's very edge may fall the other way. */
static __global__ void tube_gather_kernel(ag_laws l, int n, int sorted, const ag_tube *tubes,
                                          const float4 *pos, const float2 *ca,
                                          const int *box_cells, const int *count,
                                          const int *list, int stride, ag_cell *cells,
                                          unsigned long long *pairs)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int listed = k < n ? count[k] : 0;
    unsigned met = 0;
    if (listed > 0) {
        float4 p = pos[k];
        float2 q = ca[k];
        float x[3] = {p.x, p.y, p.z};
        ag_cell *c = &cells[sorted ? box_cells[k] : k];
        ag_cell sum;
        copy_effects(&sum, c);
        for (int s = 0; s < listed; s++) {
            ag_effect e;
            float taf;
            if (ag_tube_cell(&l, &tubes[list[(size_t)s * stride + k]], x, p.w, q.x, q.y, &e,
                             &taf)) {
                ag_effect_add(&sum, &e);
                met++;
            }
        }
        copy_effects(c, &sum);
    }
    count_add(pairs, met);
}

/* The step's TAF joins each tube's once the lists fit (the list kernel may have run twice). */
static __global__ void tube_taf_kernel(int ntubes, const float *gain, ag_tube *tubes)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < ntubes)
        tubes[t].taf += gain[t];
}

/* A thread per cell: its step, in place, and its flags for the scan (thread n writes the last
 * element, 0, so that the scan's last entry is the totals). Both counts fit in 32 bits, so one
 * 64-bit sum scans both. */
static __global__ void life_step_kernel(ag_laws l, float side, int n, ag_cell *cells,
                                        unsigned long long *flags)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n)
        return;
    if (i == n) {
        flags[n] = 0;
        return;
    }
    ag_cell c = cells[i];
    int divides = ag_cell_step(&l, side, &c);
    cells[i] = c;
    flags[i] = (unsigned long long)(c.state != AG_DEAD) << 32 | (unsigned)divides;
}

/* A thread per cell: a survivor goes to its rank among the survivors; a dividing one (cells are
 * in id order, so its rank among the dividing ones is the host's order) also places its daughter
 * after every survivor, numbered from next_id by that rank. */
static __global__ void life_place_kernel(uint32_t seed, long long step, float side, int n,
                                         const ag_cell *cells, const unsigned long long *flags,
                                         const unsigned long long *ranks, int survivors,
                                         uint32_t next_id, ag_cell *next)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || !(flags[i] >> 32))
        return;
    ag_cell c = cells[i];
    unsigned long long r = ranks[i];
    if (flags[i] & 1) {
        uint32_t born = (uint32_t)r;
        ag_cell daughter;
        ag_divide(side, seed, step, &c, &daughter, next_id + born);
        next[survivors + born] = daughter;
    }
    next[r >> 32] = c;
}

/* ---- one step ---- */

static unsigned blocks_of(long long n, int block)
{
    return (unsigned)((n + block - 1) / block);
}

static int cell_lists(ag_gpu *g, int n)
{
    cudaStream_t st = g->env->streams[0];
    const ag_cell *cells = g->d_cells[g->cur];
    SB_CUDA(cudaMemsetAsync(g->d_box_count, 0, ((size_t)g->nboxes + 1) * sizeof(int), st));
    bin_kernel<<<blocks_of(n, AG_BLOCK), AG_BLOCK, 0, st>>>(g->grid, n, cells, g->d_box_count,
                                                             g->d_rank);
    SB_LAUNCHED("bin_kernel");
    SB_CUDA(cub::DeviceScan::ExclusiveSum(g->d_scratch, g->scratch_bytes, g->d_box_count,
                                          g->d_box_start, g->nboxes + 1, st));
    place_kernel<<<blocks_of(n, AG_BLOCK), AG_BLOCK, 0, st>>>(g->grid, n, g->sorted, cells,
                                                               g->d_box_start, g->d_rank,
                                                               g->d_box_cells, g->d_pos, g->d_ca);
    SB_LAUNCHED("place_kernel");
    return 0;
}

static int cell_cell(ag_gpu *g, int n)
{
    cell_cell_kernel<<<blocks_of(n, AG_BLOCK), AG_BLOCK, 0, g->env->streams[0]>>>(
        g->m->laws, g->grid, n, g->sorted, g->d_pos, g->d_ca, g->d_box_start, g->d_box_cells,
        g->d_cells[g->cur], &g->d_pairs[0]);
    SB_LAUNCHED("cell_cell_kernel");
    return 0;
}

/* A cell met more tubes than its list holds: lists of at least `need` slots (doubling). */
static int grow_tube_lists(ag_gpu *g, int need)
{
    int cap = g->tube_cap;
    while (cap < need)
        cap *= 2;
    if (sb_dev_free(&g->env->mem, g->d_tube_list) != 0)
        return -1;
    g->d_tube_list = NULL;
    int rc = sb_dev_alloc(&g->env->mem, g->env->devices[0], (void **)&g->d_tube_list,
                          (size_t)cap * g->m->max_cells * sizeof(int), "tube lists");
    if (rc != 0)
        return rc;
    g->tube_cap = cap;
    return 0;
}

static int tube_cell(ag_gpu *g, int n)
{
    const ag_model *m = g->m;
    sb_env *env = g->env;
    cudaStream_t st = env->streams[0];
    for (;;) {
        SB_CUDA(cudaMemsetAsync(g->d_tube_count, 0, (size_t)n * sizeof(int), st));
        SB_CUDA(cudaMemsetAsync(g->d_need, 0, sizeof(int), st));
        tube_list_kernel<<<blocks_of(m->ntubes, AG_TUBE_BLOCK), AG_TUBE_BLOCK, 0, st>>>(
            m->laws, g->grid, m->r_max, m->ntubes, g->sorted, g->d_tubes, g->d_pos, g->d_ca,
            g->d_box_start, g->d_box_cells, g->tube_cap, m->max_cells, g->d_tube_count,
            g->d_tube_list, g->d_need, g->d_gain);
        SB_LAUNCHED("tube_list_kernel");
        /* the host waits here every step: a list that overflowed must be grown and the phase
         * run again before any cell reads its list (4 bytes) */
        if (sb_copy(&env->xfer, &g->h_back->need, g->d_need, sizeof g->h_back->need,
                    cudaMemcpyDeviceToHost, st) != 0)
            return -1;
        SB_CUDA(cudaStreamSynchronize(st));
        if (g->h_back->need <= g->tube_cap)
            break;
        int rc = grow_tube_lists(g, g->h_back->need);
        if (rc != 0)
            return rc;
    }
    tube_gather_kernel<<<blocks_of(n, AG_BLOCK), AG_BLOCK, 0, st>>>(
        m->laws, n, g->sorted, g->d_tubes, g->d_pos, g->d_ca, g->d_box_cells, g->d_tube_count,
        g->d_tube_list, m->max_cells, g->d_cells[g->cur], &g->d_pairs[1]);
    SB_LAUNCHED("tube_gather_kernel");
    tube_taf_kernel<<<blocks_of(m->ntubes, AG_BLOCK), AG_BLOCK, 0, st>>>(m->ntubes, g->d_gain,
                                                                          g->d_tubes);
    SB_LAUNCHED("tube_taf_kernel");
    return 0;
}

/* The event sets of a step are read once the stream has passed them (the next step's wait for
 * the life cycle's totals, or the run's end), so timing the phases adds no wait of its own. */
static int phases_collect(ag_gpu *g, int set)
{
    if (!g->pending[set])
        return 0;
    for (int p = 0; p < AG_NPHASES; p++) {
        float ms;
        SB_CUDA(cudaEventElapsedTime(&ms, g->mark[set][p], g->mark[set][p + 1]));
        sb_phase_add(&g->phases, phase_name[p], ms * 1e-3);
    }
    g->pending[set] = 0;
    return 0;
}

/* host.c's ag_sim_life. */
static int life_cycle(ag_gpu *g, int n, long long step, int set)
{
    const ag_model *m = g->m;
    sb_env *env = g->env;
    cudaStream_t st = env->streams[0];
    ag_cell *cells = g->d_cells[g->cur], *next = g->d_cells[1 - g->cur];
    life_step_kernel<<<blocks_of((long long)n + 1, AG_BLOCK), AG_BLOCK, 0, st>>>(
        m->laws, m->side, n, cells, g->d_flags);
    SB_LAUNCHED("life_step_kernel");
    SB_CUDA(cub::DeviceScan::ExclusiveSum(g->d_scratch, g->scratch_bytes, g->d_flags, g->d_ranks,
                                          n + 1, st));
    /* the host waits here every step: it checks the new population against max_cells before
     * anything is written past it, as host.c does, and sizes the next step's launches by it
     * (8 bytes) */
    if (sb_copy(&env->xfer, &g->h_back->totals, g->d_ranks + n, sizeof g->h_back->totals,
                cudaMemcpyDeviceToHost, st) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    if (phases_collect(g, 1 - set) != 0)
        return -1;
    int survivors = (int)(g->h_back->totals >> 32), born = (int)(uint32_t)g->h_back->totals;
    if (survivors + born > m->max_cells)
        return sb_fail("step %lld: %d cells and %d divisions exceed max_cells=%d (raise "
                       "--param max_cells)",
                       step, survivors, born, m->max_cells);
    life_place_kernel<<<blocks_of(n, AG_BLOCK), AG_BLOCK, 0, st>>>(
        m->seed, step, m->side, n, cells, g->d_flags, g->d_ranks, survivors, g->next_id, next);
    SB_LAUNCHED("life_place_kernel");
    g->cur = 1 - g->cur;
    g->next_id += (uint32_t)born;
    g->divisions += born;
    g->deaths += n - survivors;
    g->ncells = survivors + born;
    return 0;
}

/* Boundary p of a step's phases (p = AG_NPHASES: its end): an event on the stream, and the NVTX
 * range of the phase that begins. */
static int mark(ag_gpu *g, int set, int p)
{
    if (p > 0)
        sb_range_pop();
    if (p < AG_NPHASES)
        sb_range_push(g->env->label, phase_name[p]);
    SB_CUDA(cudaEventRecord(g->mark[set][p], g->env->streams[0]));
    return 0;
}

static int step(ag_gpu *g, long long k)
{
    int n = g->ncells, set = (int)(k & 1), rc;
    if (n == 0)
        return 0; /* no cell left: the host's step has nothing to do either */
    if ((rc = mark(g, set, 0)) || (rc = cell_lists(g, n)) || (rc = mark(g, set, 1)) ||
        (rc = cell_cell(g, n)) || (rc = mark(g, set, 2)) ||
        (rc = g->m->ntubes > 0 ? tube_cell(g, n) : 0) || (rc = mark(g, set, 3)) ||
        (rc = life_cycle(g, n, k, set)) || (rc = mark(g, set, AG_NPHASES)))
        return rc;
    g->pending[set] = 1;
    return 0;
}

/* ---- the stage ---- */

extern "C" int ag_resident_run(void *state)
{
    ag_gpu *g = (ag_gpu *)state;
    const ag_model *m = g->m;
    sb_env *env = g->env;
    cudaStream_t st = env->streams[0];
    int rc;
    if (sb_copy(&env->xfer, g->d_cells[0], g->d_init, (size_t)m->ncells * sizeof(ag_cell),
                cudaMemcpyDeviceToDevice, st) != 0 ||
        sb_copy(&env->xfer, g->d_tubes, g->d_tubes0, (size_t)m->ntubes * sizeof(ag_tube),
                cudaMemcpyDeviceToDevice, st) != 0)
        return -1;
    SB_CUDA(cudaMemsetAsync(g->d_pairs, 0, 2 * sizeof *g->d_pairs, st));
    g->ncells = m->ncells;
    g->cur = 0;
    g->next_id = (uint32_t)m->ncells;
    g->divisions = g->deaths = 0;
    g->pending[0] = g->pending[1] = 0;
    sb_phases_clear(&g->phases);
    SB_CUDA(cudaEventRecord(g->loop[0], st));
    for (long long k = 0; k < m->steps; k++)
        if ((rc = step(g, k)) != 0)
            return rc;
    SB_CUDA(cudaEventRecord(g->loop[1], st));
    if (sb_copy(&env->xfer, g->h_cells, g->d_cells[g->cur], (size_t)g->ncells * sizeof(ag_cell),
                cudaMemcpyDeviceToHost, st) != 0 ||
        sb_copy(&env->xfer, g->h_tubes, g->d_tubes, (size_t)m->ntubes * sizeof(ag_tube),
                cudaMemcpyDeviceToHost, st) != 0 ||
        sb_copy(&env->xfer, g->h_back->pairs, g->d_pairs, sizeof g->h_back->pairs,
                cudaMemcpyDeviceToHost, st) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    if (phases_collect(g, 0) != 0 || phases_collect(g, 1) != 0)
        return -1;
    g->cell_pairs = (long long)(g->h_back->pairs[0] / 2); /* each pair seen from both cells */
    g->tube_pairs = (long long)g->h_back->pairs[1];
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
    g->tube_cap = AG_TUBE_SLOTS;
    cudaStream_t st = env->streams[0];
    size_t cap = (size_t)m->max_cells, boxes = (size_t)g->nboxes + 1, tubes = (size_t)m->ntubes;
    SB_CUDA(cudaSetDevice(env->devices[0]));
    for (int s = 0; s < 2; s++)
        for (int p = 0; p <= AG_NPHASES; p++)
            SB_CUDA(cudaEventCreate(&g->mark[s][p]));
    SB_CUDA(cudaEventCreate(&g->loop[0]));
    SB_CUDA(cudaEventCreate(&g->loop[1]));
    SB_CUDA(cudaMallocHost((void **)&g->h_back, sizeof *g->h_back));
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
        (rc = dev_alloc(g, &g->d_gain, tubes * sizeof(float), "tubes' TAF of a step")) ||
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
    if (m->ntubes > 0 &&
        ((rc = dev_alloc(g, &g->d_tube_count, cap * sizeof(int), "tube list lengths")) ||
         (rc = dev_alloc(g, &g->d_tube_list, g->tube_cap * cap * sizeof(int), "tube lists")) ||
         (rc = dev_alloc(g, &g->d_need, sizeof(int), "longest tube list"))))
        return rc;
    if (sb_copy(&env->xfer, g->d_init, m->cells, (size_t)m->ncells * sizeof(ag_cell),
                cudaMemcpyHostToDevice, st) != 0 ||
        sb_copy(&env->xfer, g->d_tubes0, m->tubes, tubes * sizeof(ag_tube),
                cudaMemcpyHostToDevice, st) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    return 0;
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
    for (int s = 0; s < 2; s++)
        for (int p = 0; p <= AG_NPHASES; p++)
            if (g->mark[s][p])
                cudaEventDestroy(g->mark[s][p]);
    for (int e = 0; e < 2; e++)
        if (g->loop[e])
            cudaEventDestroy(g->loop[e]);
    cudaFreeHost(g->h_back);
    cudaFreeHost(g->h_cells);
    cudaFreeHost(g->h_tubes);
    free(g);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

extern "C" void ag_resident_report(void *state, sb_report *r)
{
    ag_gpu *g = (ag_gpu *)state;
    const ag_model *m = g->m;
    r->phases = g->phases;
    /* steady: the median step loop of the runs after the first (which loads the kernels) */
    int runs = g->runs < AG_MAX_RUNS ? g->runs : AG_MAX_RUNS, first = runs > 1;
    if (runs - first <= 0)
        return;
    qsort(g->loop_seconds + first, (size_t)(runs - first), sizeof(double), compare_doubles);
    r->steady.seconds = g->loop_seconds[first + (runs - first) / 2];
    r->steady.items = (double)(g->cell_pairs + g->tube_pairs);
    r->steady.simulated_seconds = (double)m->steps * m->laws.dt * 60;
    r->steady.runs = runs - first;
}

static int setup(sb_env *env, const void *model, void **state)
{
    return ag_resident_setup(env, model, state, 0);
}

extern "C" const sb_variant_ops ag_resident_ops = {setup, ag_resident_run, ag_resident_output,
                                                  ag_resident_teardown, ag_resident_report};
