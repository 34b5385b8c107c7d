/* Stage 7: the whole simulation resident on the GPU (the paper's conclusion). The cells and tubes
 * go to the device once, at setup; a run resets them there and runs every step on one stream:
 *   cell lists  a counting sort of the cells by box: each cell's box and rank in it come from
 *               the step before (its atomic on the box counts, made where the cell got its new
 *               place), a CUB scan of the counts, then each cell to its slot; the interaction
 *               inputs (float4 x,y,z,r; float2 c,a) in id order, or in box order (stage 8);
 *   interactions  one kernel, a team of threads per cell: cell-cell over the 27 boxes around
 *               it (as cpu-openmp.c; one thread when the cells fill the GPU, up to a warp when
 *               they are few), each lane noting the partners in range in shared memory and
 *               evaluating them when most of its warp has one noted; then the tubes of the
 *               cell's box, shared out over the team (box lists built once: tubes do not move;
 *               each tube's TAF gained by atomics; faster than alg. 5, 6's tube lists at every
 *               tube count of fig. 8);
 *               then the cell's own step (motion, oxygen, TAF, state), its flags for the life
 *               cycle, and, unless it divides or dies, its box and rank for the next step's lists;
 *   life cycle  a scan over the flags, then divisions and removals, keeping host.c's order:
 *               survivors in id order, then the daughters in their parents' order, numbered
 *               from next_id. A step without deaths leaves every cell where it is and only
 *               writes the daughters after them; a step with deaths compacts into the other
 *               buffer. One block does all of it for a small population (the tumour's), CUB's
 *               scan and a grid for a large one.
 * The host waits on nothing during a run: the population lives on the device (each kernel reads
 * it; launches cover a bound on it), a population past max_cells is noted there (and fails the
 * run), and the host reads those once, at the end, with the cells. The first run (validation)
 * launches step by step with events between the phases, which time them, and splits the
 * interaction kernel into its three parts (cell-cell, tube-cell, the cells' step) so that each
 * phase has its own time; later runs launch one CUDA graph whose while-loop runs AG_BODY_STEPS
 * steps a turn, with the parts fused, no event and no host in the loop; sorted's kernels are
 * chained to the kernel before each on sm_90 and later (cuda/chain.cuh; CUB's scans are not).
 * Stage 8 (sorted.cu) is this engine with `sorted` set: the interaction inputs are laid out in
 * box order (a box's cells contiguous) instead of id order. */
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/chain.cuh"
#include "../../cuda/check.h"
#include "../../cuda/graphloop.h"
#include "../../cuda/base/error.h"
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
/* Partners in range a lane notes (in shared memory) before it evaluates them. */
#define AG_HITS 16
/* Candidates a lane tests a turn. */
#define AG_TURN 3
/* Steps a turn of the graph's loop (even): a turn's launch costs about as much as a kernel's. The
 * steps past the last whole turn are launched one by one after it. */
#define AG_BODY_STEPS 8
/* The life cycle in one block (life_kernel) when a step's launches cover at most this many
 * cells: a run of at most 32 cells a thread. */
#define AG_LIFE_THREADS 512
#define AG_LIFE_CELLS (32 * AG_LIFE_THREADS)

enum { AG_NPHASES = 4 };
static const char *const phase_name[AG_NPHASES] = {"cell lists", "cell-cell", "tube-cell",
                                                   "life cycle"};

/* The parts of the interaction kernel: the first run launches them apart (a phase each), the
 * timed runs as one kernel. */
enum { AG_CELLS = 1, AG_TUBES = 2, AG_STEP = 4, AG_ALL = 7 };

static_assert(sizeof(ag_cell) == 64, "a cell is four 16-byte vectors");

typedef struct ag_grid {
    float edge;
    int nbox;
} ag_grid;

/* The population between steps, on the device: step k reads pop[k & 1], and its life cycle writes
 * pop[(k + 1) & 1]. Its cells are in buffer `buf` (ag_bufs). */
typedef struct ag_pop {
    int n, buf;
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

/* A cell's interaction inputs as its last step left them, with its box and its rank among that
 * box's cells (the counting sort's first half): one 32-byte sector, indexed like the cells. */
typedef struct __align__(16) ag_staged {
    float4 pos; /* x, y, z, r */
    float2 ca;  /* oxygen, TAF */
    int box, rank;
} ag_staged;
static_assert(sizeof(ag_staged) == 32 && offsetof(ag_staged, ca) == 16 &&
                  offsetof(ag_staged, box) == 24 && offsetof(ag_staged, rank) == 28,
              "a staged cell is one sector: x, y, z, r | c, a, box, rank");

/* The cells (id order) and their staged inputs, two of each: a step with deaths compacts the
 * survivors from buffer pop.buf into the other one. */
typedef struct ag_bufs {
    ag_cell *cells[2];
    ag_staged *stage[2];
} ag_bufs;

/* Buffer `buf` of each, chosen without indexing (a kernel parameter indexed at run time is
 * copied to local memory). */
static __device__ ag_cell *cells_in(const ag_bufs &b, int buf)
{
    return buf ? b.cells[1] : b.cells[0];
}

static __device__ ag_staged *staged_in(const ag_bufs &b, int buf)
{
    return buf ? b.stage[1] : b.stage[0];
}

typedef struct ag_gpu {
    sb_env *env;
    const ag_model *m;
    int sorted; /* interaction inputs in box order (stage 8), else in id order */
    int team_log2; /* threads per cell in the cell-cell part: 1 to 32 (choose_team) */
    /* the most the interaction kernels' grids need (as many blocks as the GPU holds at once):
     * the cell-cell part alone, and the three parts fused */
    unsigned cells_blocks, all_blocks;
    int chain; /* the kernels of a step without events are chained (chained()) */
    /* the cell lists' and life cycle's grids, which stride over the population: at most as many
     * blocks as the GPU holds at once (the launches cover max_cells, often twice the cells) */
    unsigned wave_blocks;
    ag_grid grid;
    int nboxes;
    /* the population at the end of the last run (host.c's ag_sim) */
    int ncells;
    long long divisions, deaths, cell_pairs, tube_pairs;
    ag_cell *d_init;             /* the cells as uploaded; a run starts from them */
    ag_bufs bufs;                /* the population's cells and staged inputs */
    ag_tube *d_tubes0, *d_tubes; /* as uploaded, and with the run's TAF */
    ag_pop *d_pop;               /* [2] */
    ag_faults *d_faults;
    /* cell lists: box b holds box_cells[box_start[b] .. box_start[b + 1]) */
    int *d_box_count, *d_box_start, *d_box_cells;
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
    sb_graph_loop loop_graph; /* the runs after the first: none until one is needed */
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

/* A cell moved whole, as four 16-byte loads or stores (cells are 64 bytes, the arrays aligned):
 * field by field, a warp's 16 four-byte accesses 64 bytes apart cost 16 times the requests.
 * Streaming (ld/st.global.cs: the first lines L2 evicts) where the interaction kernel reads and
 * writes each cell once, at random places, while its walks reuse the candidates' lines: kept
 * like any other line, the cells pushed those out. */
union ag_cell_vec {
    ag_cell c;
    int4 v[4];
};

static __device__ ag_cell load_cell(const ag_cell *at, bool streaming = false)
{
    ag_cell_vec u;
    const int4 *from = reinterpret_cast<const int4 *>(at);
#pragma unroll
    for (int q = 0; q < 4; q++)
        u.v[q] = streaming ? __ldcs(from + q) : from[q];
    return u.c;
}

static __device__ void store_cell(ag_cell *at, const ag_cell &c, bool streaming = false)
{
    ag_cell_vec u;
    u.c = c;
    int4 *to = reinterpret_cast<int4 *>(at);
#pragma unroll
    for (int q = 0; q < 4; q++) {
        if (streaming)
            __stcs(to + q, u.v[q]);
        else
            to[q] = u.v[q];
    }
}

union ag_staged_vec {
    ag_staged s;
    int4 v[2];
};

static __device__ ag_staged load_stage(const ag_staged *at)
{
    ag_staged_vec u;
    const int4 *from = reinterpret_cast<const int4 *>(at);
    u.v[0] = from[0];
    u.v[1] = from[1];
    return u.s;
}

/* Streaming too: the next step's place and gather kernels read it once, after the interaction
 * kernel (which writes most of the records) is done with its candidates. */
static __device__ void store_stage(ag_staged *at, const ag_staged &s)
{
    ag_staged_vec u;
    u.s = s;
    int4 *to = reinterpret_cast<int4 *>(at);
    __stcs(to, u.v[0]);
    __stcs(to + 1, u.v[1]);
}

/* A cell's inputs for the next cell lists: its box, its rank there (the box count's atomic: in no
 * set order), its position, radius, oxygen and TAF. */
static __device__ void stage_cell(ag_grid grid, int *box_count, const ag_cell &c, ag_staged *at)
{
    ag_staged s;
    s.pos = make_float4(c.x[0], c.x[1], c.x[2], c.r);
    s.ca = make_float2(c.c, c.a);
    s.box = box_of(grid, c.x);
    s.rank = atomicAdd(&box_count[s.box], 1);
    store_stage(at, s);
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

static_assert(offsetof(ag_cell, x) == 8 && offsetof(ag_cell, r) == 20 &&
                  offsetof(ag_cell, c) == 24 && offsetof(ag_cell, a) == 28,
              "a cell's inputs are in its first 32 bytes");

/* The first step's half of the counting sort (later steps' is made where each cell gets its
 * place): every cell of the uploaded population staged, from the first 32 bytes of each (one
 * sector: id, state, x, y, z, r, c, a). */
static __global__ void prepare_kernel(ag_grid grid, const ag_pop *pop, ag_bufs b, int *box_count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    ag_pop p = *pop;
    if (i >= p.n)
        return;
    const int4 *from = reinterpret_cast<const int4 *>(&cells_in(b, p.buf)[i]);
    int4 v0 = from[0], v1 = from[1];
    ag_cell c;
    c.x[0] = __int_as_float(v0.z);
    c.x[1] = __int_as_float(v0.w);
    c.x[2] = __int_as_float(v1.x);
    c.r = __int_as_float(v1.y);
    c.c = __int_as_float(v1.z);
    c.a = __int_as_float(v1.w);
    stage_cell(grid, box_count, c, &staged_in(b, p.buf)[i]);
}

/* Second half, after the scan of the counts: each cell to its place in box_cells, and, in id
 * order, its interaction inputs (sorted: gather_kernel's). The counts, scanned, are cleared here
 * for the next step's histogram (a memset less per step). */
static __global__ void place_kernel(int nboxes, const ag_pop *pop, int sorted, ag_bufs b,
                                    int *box_count, const int *box_start, int *box_cells,
                                    float4 *pos, float2 *ca)
{
    sb_await_previous_kernel();
    sb_launch_next_kernel();
    int first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    for (int bx = first; bx <= nboxes; bx += stride)
        box_count[bx] = 0;
    ag_pop p = *pop;
    for (int i = first; i < p.n; i += stride) {
        /* the record's second half (c, a, box, rank); its first (x, y, z, r) only when needed */
        const int4 *at = reinterpret_cast<const int4 *>(&staged_in(b, p.buf)[i]);
        int4 half = at[1];
        box_cells[box_start[half.z] + half.w] = i;
        if (!sorted) {
            int4 xyzr = at[0];
            pos[i] = make_float4(__int_as_float(xyzr.x), __int_as_float(xyzr.y),
                                 __int_as_float(xyzr.z), __int_as_float(xyzr.w));
            ca[i] = make_float2(__int_as_float(half.x), __int_as_float(half.y));
        }
    }
}

/* Sorted: the interaction inputs in box order, each slot gathering its cell's (scattered
 * 16- and 8-byte writes would each cost a partial sector; the gathered reads are whole ones). */
static __global__ void gather_kernel(const ag_pop *pop, ag_bufs b, const int *box_cells,
                                     float4 *pos, float2 *ca)
{
    sb_await_previous_kernel();
    sb_launch_next_kernel();
    ag_pop p = *pop;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < p.n; k += gridDim.x * blockDim.x) {
        ag_staged s = load_stage(&staged_in(b, p.buf)[box_cells[k]]);
        pos[k] = s.pos;
        ca[k] = s.ca;
    }
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

/* Partner o of the cell at x (radius p.w, oxygen and TAF q) evaluated and added to *sum: 1, or 0
 * if they do not meet after all (the note took the same test, so never). */
static __device__ unsigned evaluate(const ag_laws *l, const float *x, float4 p, float2 q, int o,
                                    const float4 *pos, const float2 *ca, ag_cell *sum)
{
    float4 pj = pos[o];
    float2 qj = ca[o];
    float xj[3] = {pj.x, pj.y, pj.z};
    ag_effect e;
    if (!ag_cell_pair(l, x, p.w, q.x, q.y, xj, pj.w, qj.x, qj.y, &e))
        return 0;
    ag_effect_add(sum, &e);
    return 1;
}

/* Cell-cell for entry k of the inputs (position and radius p, oxygen and TAF q), this lane's
 * share, skipping the cell itself, as cpu-openmp.c. Boxes are numbered x first, so a row of three
 * boxes along x is one run of box_cells: the 27 boxes are 9 runs. A team of lanes splits the runs
 * (a team of 32 puts 3 lanes on each run, taking its cells in turn; bit r of my_runs says
 * whether run r is this lane's, per_run lanes share a run, `stripe` is this lane's place among
 * them), so few cells get wide teams. The lane reads its runs' bounds at once, keeping the
 * non-empty ones, then walks them as one list, AG_TURN candidates a turn (a lane that
 * ends a run takes up the next in the same turn, not when the warp's slowest lane does), testing
 * each candidate's range only; the ones in range are noted, and evaluated one a lane once 7/8 of
 * the warp's walking lanes have one waiting, so the warp does the pair's arithmetic for
 * partners, not for every candidate some lane is at, and for most lanes at once. A lane sums its
 * partners in the order it meets them. Returns the pairs. */
static __device__ unsigned cell_cell_sum(const ag_laws *l, ag_grid grid, int sorted, int k,
                                         float4 p, float2 q, unsigned my_runs, int per_run,
                                         int stripe, const float4 *pos,
                                         const float2 *ca, const int *box_start,
                                         const int *box_cells, ag_cell *sum)
{
    __shared__ int notes[AG_HITS * AG_BLOCK], bounds[18 * AG_BLOCK];
    int *hits = notes + threadIdx.x; /* this lane's columns: no bank conflicts */
    /* the lane's non-empty runs: run r from run[2r AG_BLOCK] to run[(2r + 1) AG_BLOCK] */
    int *run = bounds + threadIdx.x, runs = 0;
    float x[3] = {p.x, p.y, p.z};
    int nb = grid.nbox, b[3];
    for (int a = 0; a < 3; a++)
        b[a] = ag_box_at(x[a], grid.edge, nb);
    int x0 = max(b[0] - 1, 0), x1 = min(b[0] + 1, nb - 1);
#pragma unroll
    for (int r = 0; r < 9; r++) {
        int y = b[1] + r % 3 - 1, z = b[2] + r / 3 - 1;
        int row = nb * (y + nb * z);
        int mine = (my_runs >> r & 1) && y >= 0 && y < nb && z >= 0 && z < nb;
        int from = mine ? box_start[row + x0] + stripe : 0, to = mine ? box_start[row + x1 + 1] : 0;
        run[2 * runs * AG_BLOCK] = from; /* kept only if not empty (a team shares out the 9) */
        run[(2 * runs + 1) * AG_BLOCK] = to;
        runs += from < to;
    }
    /* the partners noted and not yet evaluated: hits[done % AG_HITS .. noted % AG_HITS) */
    unsigned met = 0, noted = 0, done = 0;
    int r = 0, j = run[0], end = run[AG_BLOCK];
#pragma unroll 1
    for (;;) {
        /* past a run's end, the next run, in the same turn: a lane changing runs takes no turn
         * of its own, which the rest of the warp would wait through */
        if (j >= end) {
            if (++r >= runs)
                break;
            j = run[2 * r * AG_BLOCK];
            end = run[(2 * r + 1) * AG_BLOCK];
        }
        /* AG_TURN candidates a turn where the run has them: their loads in flight together */
        int n = 0, o[AG_TURN];
        float4 pj[AG_TURN];
#pragma unroll
        for (int c = 0; c < AG_TURN; c++) { /* the partner's entry in the inputs (or k's) */
            int at = j + c * per_run;
            n += at < end;
            o[c] = at >= end ? k : sorted ? at : box_cells[at];
            pj[c] = __ldg(&pos[o[c]]); /* read-only for the kernel's whole life */
        }
        j += n * per_run;
#pragma unroll
        for (int c = 0; c < AG_TURN; c++) { /* noted without a branch: the slot is free either way */
            float xj[3] = {pj[c].x, pj[c].y, pj[c].z};
            hits[(noted % AG_HITS) * AG_BLOCK] = o[c];
            noted += c < n && o[c] != k && ag_cells_meet(l, x, p.w, xj, pj[c].w);
        }
        /* A partner's arithmetic is evaluated once most lanes of the warp have one waiting (each
         * then takes one), so that the warp does it for many lanes at a time, not for each lane
         * apart; a lane whose notes are nearly full takes all of its own. */
        unsigned walking = __activemask();
        unsigned waiting = __ballot_sync(walking, noted > done);
        if (noted - done > AG_HITS - AG_TURN) {
            for (; done < noted; done++)
                met += evaluate(l, x, p, q, hits[(done % AG_HITS) * AG_BLOCK], pos, ca, sum);
        } else if (noted > done && 8 * __popc(waiting) >= 7 * __popc(walking)) {
            met += evaluate(l, x, p, q, hits[(done % AG_HITS) * AG_BLOCK], pos, ca, sum);
            done++;
        }
    }
    for (; done < noted; done++)
        met += evaluate(l, x, p, q, hits[(done % AG_HITS) * AG_BLOCK], pos, ca, sum);
    return met;
}

/* The interaction kernel, PARTS of it (AG_CELLS, AG_TUBES, AG_STEP): a team of 2^team_log2 lanes
 * per entry k of the inputs (the cell in box_cells[k] when sorted, else cell k).
 *   AG_CELLS  cell-cell (cell_cell_sum); each pair is counted from both sides. Without it, the
 *             sum so far is read from the cell (by lane 0).
 *   AG_TUBES  the team's lanes share out the tubes of the cell's box (when there are tubes).
 *   (the team's sums of both are then met by shuffles in lane 0)
 *   AG_STEP   lane 0 steps the cell (host.c's ag_sim_life, up to the divisions), writes it whole
 *             and its flags for the scan (survives << 32 | divides; the scan holds the totals at
 *             n, whatever lies past it: both counts fit in 32 bits, so one 64-bit sum scans
 *             both), and, if it neither dies nor divides, stages it for the next step's
 *             lists (a dividing cell is staged where it divides).
 * Without AG_STEP the sum is written to the cell for the next part: that write is where a step's
 * effects are cleared (the sums start at 0). The grid strides over the entries (its size need not
 * follow the population); every lane of a warp goes round the loop as often (shuffles, counts). */
template <int PARTS>
static __global__ void __launch_bounds__(AG_BLOCK, 4)
    interact_kernel(ag_laws l, float side, ag_grid grid, const ag_pop *pop, int sorted,
                    int team_log2, const float4 *pos, const float2 *ca, const int *box_start,
                    const int *box_cells, ag_tube *tubes, const int *tube_start,
                    const int *tube_boxes, ag_bufs b, int *box_count, unsigned long long *flags,
                    unsigned long long *pairs)
{
    sb_await_previous_kernel();
    ag_pop p = *pop;
    ag_cell *cells = cells_in(b, p.buf);
    long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x,
              stride = (long long)gridDim.x * blockDim.x;
    int team = 1 << team_log2, lane = threadIdx.x & (team - 1);
    int per_run = team >= 9 ? team / 9 : 1; /* lanes sharing a run */
    int runs_at_once = team / per_run, first_run = lane / per_run, stripe = lane % per_run;
    unsigned my_runs = 0; /* runs first_run, first_run + runs_at_once, ... */
    for (int r = first_run; r < 9; r += runs_at_once)
        my_runs |= 1u << r;
    /* whole blocks (of AG_BLOCK, a power of two: no 64-bit division): every lane of a warp
     * reaches the shuffles */
    long long lanes = ((long long)p.n << team_log2) + AG_BLOCK - 1;
    lanes -= lanes & (AG_BLOCK - 1);
    unsigned met = 0, met_tubes = 0;
    for (long long t = first; t < lanes; t += stride) {
        int k = (int)(t >> team_log2), mine = k < p.n;
        ag_cell sum = {};
        float4 pk = make_float4(0, 0, 0, 0);
        float2 qk = make_float2(0, 0);
        if (mine) {
            pk = pos[k];
            qk = ca[k];
        }
        /* the cell's index (lane 0); the cell is read after the walk, and not fetched into L2
         * before it: such a prefetch made the step at 2^20 cells 25 us slower on an H100 (the
         * lines wait in L2 through the walk, beside the candidates') */
        int i = mine && lane == 0 ? (sorted ? box_cells[k] : k) : 0;
        if (!(PARTS & AG_CELLS) && mine && lane == 0)
            copy_effects(&sum, &cells[i]);
        if ((PARTS & AG_CELLS) && mine)
            met += cell_cell_sum(&l, grid, sorted, k, pk, qk, my_runs, per_run, stripe, pos, ca,
                                 box_start, box_cells, &sum);
        /* the tubes of the cell's box shared out over the team, before its sums are met: the
         * walk through them is no longer lane 0's alone after the team's */
        if ((PARTS & AG_TUBES) && tube_start && mine) {
            float x[3] = {pk.x, pk.y, pk.z};
            int box = box_of(grid, x);
            met_tubes += ag_box_tubes(&l, tubes, tube_boxes, tube_start[box] + lane,
                                      tube_start[box + 1], team, x, pk.w, qk.x, qk.y, &sum,
                                      &tubes[0].taf, sizeof *tubes);
        }
        team_sum(&sum, team);
        if (!mine || lane != 0)
            continue;
        if (!(PARTS & AG_STEP)) {
            copy_effects(&cells[i], &sum);
            continue;
        }
        ag_cell c = load_cell(&cells[i], true);
        copy_effects(&c, &sum);
        int divides = ag_cell_step(&l, side, &c), survives = c.state != AG_DEAD;
        store_cell(&cells[i], c, true);
        flags[i] = (unsigned long long)survives << 32 | (unsigned)divides;
        if (survives && !divides)
            stage_cell(grid, box_count, c, &staged_in(b, p.buf)[i]);
    }
    if (PARTS & AG_CELLS)
        count_add(&pairs[0], met);
    if (PARTS & AG_TUBES)
        count_add(&pairs[1], met_tubes);
}

/* Where the life cycle puts the population that step p leaves, from the totals of its flags
 * (survivors << 32 | dividing cells): with no death every survivor keeps its place in buffer
 * p.buf; with deaths the survivors compact into the other one. */
typedef struct ag_settle {
    int survivors, born, fits, to;
    int stay; /* no death: only the dividing cells are touched */
} ag_settle;

static __device__ ag_settle settle_of(const ag_pop &p, unsigned long long totals, int max_cells)
{
    ag_settle s;
    s.survivors = (int)(totals >> 32);
    s.born = (int)(uint32_t)totals;
    s.fits = s.survivors + s.born <= max_cells;
    s.stay = s.survivors == p.n;
    s.to = s.stay ? p.buf : 1 - p.buf;
    return s;
}

/* One thread: the next step's population, or a population past max_cells noted and none left
 * (the run has failed). In the graph's loop, the second step also says whether the loop goes on
 * (`loop_stop` steps; 0 outside the graph). */
static __device__ void settle_population(const ag_pop &p, const ag_settle &s, ag_pop *pop_next,
                                         ag_faults *faults, cudaGraphConditionalHandle loop,
                                         long long loop_stop)
{
    ag_pop q = {s.fits ? s.survivors + s.born : 0, s.to, p.next_id + (uint32_t)s.born,
                p.step + 1, p.divisions + s.born, p.deaths + p.n - s.survivors};
    *pop_next = q;
    if (!s.fits) {
        faults->overflowed = 1;
        faults->step = p.step;
        faults->survivors = s.survivors;
        faults->born = s.born;
    }
    if (loop_stop > 0)
        sb_graph_loop_continue(loop, q.step < loop_stop);
}

/* Cell i's division or move (host.c's ag_sim_life), from its flags f and their exclusive scan r.
 * Cells are in id order, so a cell's rank among the survivors is its place and its rank among
 * the dividing ones the host's order: a daughter goes after every survivor, numbered from
 * next_id by that rank. A dividing cell and its daughter are staged for the next cell lists. */
static __device__ void settle_cell(ag_grid grid, uint32_t seed, float side, const ag_pop &p,
                                   ag_bufs b, const ag_settle &s, int *box_count, int i,
                                   unsigned long long f, unsigned long long r)
{
    int divides = (int)(f & 1);
    if (!(f >> 32) || (s.stay && !divides)) /* dead, or staying as its step left it */
        return;
    int at = (int)(r >> 32);
    const ag_cell *from = &cells_in(b, p.buf)[i];
    if (divides) {
        uint32_t rank = (uint32_t)r;
        ag_cell c = load_cell(from), daughter;
        ag_divide(side, seed, p.step, &c, &daughter, p.next_id + rank);
        int d = s.survivors + (int)rank;
        store_cell(&cells_in(b, s.to)[at], c);
        store_cell(&cells_in(b, s.to)[d], daughter);
        stage_cell(grid, box_count, c, &staged_in(b, s.to)[at]);
        stage_cell(grid, box_count, daughter, &staged_in(b, s.to)[d]);
    } else {
        store_cell(&cells_in(b, s.to)[at], load_cell(from));
        store_stage(&staged_in(b, s.to)[at], load_stage(&staged_in(b, p.buf)[i]));
    }
}

/* The life cycle of a large population: a thread per cell, after CUB's scan of the flags. */
static __global__ void settle_kernel(ag_grid grid, uint32_t seed, float side, int max_cells,
                                     const ag_pop *pop, ag_bufs b,
                                     const unsigned long long *flags,
                                     const unsigned long long *ranks, int *box_count,
                                     ag_pop *pop_next, ag_faults *faults,
                                     cudaGraphConditionalHandle loop, long long loop_stop)
{
    sb_await_previous_kernel();
    int first = blockIdx.x * blockDim.x + threadIdx.x;
    ag_pop p = *pop;
    ag_settle s = settle_of(p, ranks[p.n], max_cells);
    if (first == 0)
        settle_population(p, s, pop_next, faults, loop, loop_stop);
    for (int i = first; s.fits && i < p.n; i += gridDim.x * blockDim.x)
        settle_cell(grid, seed, side, p, b, s, box_count, i, flags[i], ranks[i]);
}

/* The life cycle of a small population (launches covering at most AG_LIFE_CELLS): one block
 * scans the flags of the population alone and settles its cells, a run of consecutive cells a
 * thread. It replaces three launches (CUB's two over max_cells, then settle_kernel) that took
 * about 2 us each on an H100 at the tumour's few thousand cells. */
static __global__ void __launch_bounds__(AG_LIFE_THREADS)
    life_kernel(ag_grid grid, uint32_t seed, float side, int max_cells, const ag_pop *pop,
                ag_bufs b, const unsigned long long *flags, int *box_count, ag_pop *pop_next,
                ag_faults *faults, cudaGraphConditionalHandle loop, long long loop_stop)
{
    typedef cub::BlockScan<unsigned long long, AG_LIFE_THREADS> block_scan;
    __shared__ typename block_scan::TempStorage scan_space;
    sb_await_previous_kernel();
    ag_pop p = *pop;
    int per = (p.n + AG_LIFE_THREADS - 1) / AG_LIFE_THREADS;
    int first = (int)threadIdx.x * per, end = first + per < p.n ? first + per : p.n;
    unsigned long long mine = 0, r, totals;
    for (int i = first; i < end; i++)
        mine += flags[i];
    block_scan(scan_space).ExclusiveSum(mine, r, totals);
    ag_settle s = settle_of(p, totals, max_cells);
    if (threadIdx.x == 0)
        settle_population(p, s, pop_next, faults, loop, loop_stop);
    for (int i = first; s.fits && i < end; i++) {
        unsigned long long f = flags[i];
        settle_cell(grid, seed, side, p, b, s, box_count, i, f, r);
        r += f;
    }
}

/* ---- one step ---- */

static unsigned blocks_of(long long n, int block)
{
    return (unsigned)((n + block - 1) / block);
}

/* The grid of a kernel striding over up to n cells. */
static unsigned wave_of(const ag_gpu *g, long long n)
{
    unsigned blocks = blocks_of(n, AG_BLOCK);
    return blocks < g->wave_blocks ? blocks : g->wave_blocks;
}

/* How step k is launched: its population's parity (k & 1), the number of cells its launches cover
 * (at least the population), its event set (-1: none, and the interaction parts fused), and
 * whether it is a run's first step (which stages the uploaded cells first). */
typedef struct ag_launch {
    int parity, bound, set;
    cudaGraphConditionalHandle loop; /* with loop_stop > 0: the graph's loop, decided by this step */
    long long loop_stop;
    int first;
} ag_launch;

/* Whether step s's kernels are chained to the kernel before each (cuda/chain.cuh): sorted's on
 * sm_90 and later, in the steps without events between their phases. Every grid here fits in one
 * wave. */
static int chained(const ag_gpu *g, const ag_launch *s)
{
    return g->chain && s->set < 0;
}

/* The uploaded population staged for the first step's lists. */
static int prepare(ag_gpu *g)
{
    prepare_kernel<<<blocks_of(g->m->ncells, AG_BLOCK), AG_BLOCK, 0, g->env->streams[0]>>>(
        g->grid, &g->d_pop[0], g->bufs, g->d_box_count);
    SB_LAUNCHED("prepare_kernel");
    return 0;
}

static int cell_lists(ag_gpu *g, const ag_launch *s)
{
    cudaStream_t st = g->env->streams[0];
    const ag_pop *pop = &g->d_pop[s->parity];
    if (s->first && prepare(g) != 0)
        return -1;
    SB_CUDA(cub::DeviceScan::ExclusiveSum(g->d_scratch, g->scratch_bytes, g->d_box_count,
                                          g->d_box_start, g->nboxes + 1, st));
    SB_LAUNCH_OK(sb_launch_kernel(place_kernel, dim3(wave_of(g, s->bound)), AG_BLOCK, 0,
                                  chained(g, s), st, g->nboxes, pop, g->sorted, g->bufs,
                                  g->d_box_count, g->d_box_start, g->d_box_cells, g->d_pos,
                                  g->d_ca),
                 "place_kernel");
    if (g->sorted)
        SB_LAUNCH_OK(sb_launch_kernel(gather_kernel, dim3(wave_of(g, s->bound)), AG_BLOCK, 0,
                                      chained(g, s), st, pop, g->bufs, g->d_box_cells, g->d_pos,
                                      g->d_ca),
                     "gather_kernel");
    return 0;
}

/* PARTS of the interaction kernel over the step's cells, `team_log2` lanes a cell, at most
 * `most` blocks. */
template <int PARTS>
static int interact(ag_gpu *g, const ag_launch *s, int team_log2, unsigned most)
{
    const ag_model *m = g->m;
    unsigned blocks = blocks_of((long long)s->bound << team_log2, AG_BLOCK);
    SB_LAUNCH_OK(sb_launch_kernel(interact_kernel<PARTS>, dim3(blocks < most ? blocks : most),
                                  AG_BLOCK, 0, chained(g, s), g->env->streams[0], m->laws,
                                  m->side, g->grid, &g->d_pop[s->parity], g->sorted, team_log2,
                                  g->d_pos, g->d_ca, g->d_box_start, g->d_box_cells, g->d_tubes,
                                  m->ntubes > 0 ? g->d_tube_start : NULL, g->d_tube_boxes,
                                  g->bufs, g->d_box_count, g->d_flags, g->d_pairs),
                 "interact_kernel");
    return 0;
}

/* After the cells' step: divisions and removals (host.c's ag_sim_life), in one block for a small
 * population, else after CUB's scan of the flags. */
static int life_cycle(ag_gpu *g, const ag_launch *s)
{
    const ag_model *m = g->m;
    cudaStream_t st = g->env->streams[0];
    int p = s->parity;
    if (s->bound <= AG_LIFE_CELLS) {
        SB_LAUNCH_OK(sb_launch_kernel(life_kernel, dim3(1), AG_LIFE_THREADS, 0, chained(g, s), st,
                                      g->grid, m->seed, m->side, m->max_cells, &g->d_pop[p],
                                      g->bufs, g->d_flags, g->d_box_count, &g->d_pop[1 - p],
                                      g->d_faults, s->loop, s->loop_stop),
                     "life_kernel");
        return 0;
    }
    SB_CUDA(cub::DeviceScan::ExclusiveSum(g->d_scratch, g->scratch_bytes, g->d_flags, g->d_ranks,
                                          s->bound + 1, st));
    SB_LAUNCH_OK(sb_launch_kernel(settle_kernel, dim3(wave_of(g, s->bound)), AG_BLOCK, 0,
                                  chained(g, s), st, g->grid, m->seed, m->side, m->max_cells,
                                  &g->d_pop[p], g->bufs, g->d_flags, g->d_ranks, g->d_box_count,
                                  &g->d_pop[1 - p], g->d_faults, s->loop, s->loop_stop),
                 "settle_kernel");
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

/* One step. With events (the first run), the interaction kernel's parts are launched apart, the
 * tube and cell-step parts a thread a cell, so that each phase is timed; without, as one kernel. */
static int step(ag_gpu *g, const ag_launch *s)
{
    int rc;
    if ((rc = mark(g, s, 0)) || (rc = cell_lists(g, s)) || (rc = mark(g, s, 1)))
        return rc;
    if (s->set < 0) {
        if ((rc = interact<AG_ALL>(g, s, g->team_log2, g->all_blocks)) ||
            (rc = life_cycle(g, s)))
            return rc;
        return 0;
    }
    if ((rc = interact<AG_CELLS>(g, s, g->team_log2, g->cells_blocks)) ||
        (rc = mark(g, s, 2)) ||
        (rc = g->m->ntubes > 0 ? interact<AG_TUBES>(g, s, 0, g->all_blocks) : 0) ||
        (rc = mark(g, s, 3)) || (rc = interact<AG_STEP>(g, s, 0, g->all_blocks)) ||
        (rc = life_cycle(g, s)) || (rc = mark(g, s, AG_NPHASES)))
        return rc;
    g->pending[s->set] = 1;
    return 0;
}

/* The steps the graph of the runs after the first runs: whole turns of its loop. */
static long long looped_steps(const ag_model *m)
{
    return m->steps - m->steps % AG_BODY_STEPS;
}

/* That graph: a while-loop whose body is AG_BODY_STEPS steps at full bound (an even number, so
 * that it ends at the population's parity it starts from); its last step decides the next turn. */
static int capture_loop(ag_gpu *g)
{
    const ag_model *m = g->m;
    cudaStream_t st = g->env->streams[0];
    /* relaxed: CUB's scans query the device while they are captured */
    if (sb_graph_loop_begin(&g->loop_graph, st, cudaStreamCaptureModeRelaxed) != 0)
        return -1;
    int rc = 0;
    for (int j = 0; j < AG_BODY_STEPS && rc == 0; j++) {
        int last = j == AG_BODY_STEPS - 1;
        ag_launch s = {j & 1, m->max_cells, -1, last ? g->loop_graph.handle : 0,
                       last ? looped_steps(m) : 0, 0};
        rc = step(g, &s);
    }
    return sb_graph_loop_end(&g->loop_graph, st, rc);
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
    if (sb_copy(&env->xfer, g->bufs.cells[0], g->d_init, (size_t)m->ncells * sizeof(ag_cell),
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
            ag_launch s = {(int)(k & 1), bound_at(m, k), (int)(k % AG_EVENT_SETS), 0, 0, k == 0};
            int rc = phases_collect(g, s.set);
            if (rc != 0 || (rc = step(g, &s)) != 0)
                return rc;
        }
    } else {
        long long looped = looped_steps(m);
        if (looped > 0 && ((!g->loop_graph.exec && capture_loop(g) != 0) || prepare(g) != 0 ||
                           sb_graph_loop_launch(&g->loop_graph, st) != 0))
            return -1;
        for (long long k = looped; k < m->steps; k++) {
            ag_launch s = {(int)(k & 1), bound_at(m, k), -1, 0, 0, k == 0};
            int rc = step(g, &s);
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
    if (sb_copy(&env->xfer, g->h_cells, g->bufs.cells[back->pop.buf & 1],
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
    int cells_per_sm, all_per_sm;
    SB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cells_per_sm,
                                                          interact_kernel<AG_CELLS>, AG_BLOCK, 0));
    SB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&all_per_sm, interact_kernel<AG_ALL>,
                                                          AG_BLOCK, 0));
    g->cells_blocks = (unsigned)(sms * (cells_per_sm > 0 ? cells_per_sm : 1));
    g->wave_blocks = (unsigned)(sms * (per_sm / AG_BLOCK > 0 ? per_sm / AG_BLOCK : 1));
    g->all_blocks = (unsigned)(sms * (all_per_sm > 0 ? all_per_sm : 1));
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
        (rc = dev_alloc(g, &g->bufs.cells[0], cap * sizeof(ag_cell), "cells")) ||
        (rc = dev_alloc(g, &g->bufs.cells[1], cap * sizeof(ag_cell), "cells")) ||
        (rc = dev_alloc(g, &g->bufs.stage[0], cap * sizeof(ag_staged), "staged inputs")) ||
        (rc = dev_alloc(g, &g->bufs.stage[1], cap * sizeof(ag_staged), "staged inputs")) ||
        (rc = dev_alloc(g, &g->d_tubes0, tubes * sizeof(ag_tube), "initial tubes")) ||
        (rc = dev_alloc(g, &g->d_tubes, tubes * sizeof(ag_tube), "tubes")) ||
        (rc = dev_alloc(g, &g->d_pop, 2 * sizeof(ag_pop), "population")) ||
        (rc = dev_alloc(g, &g->d_faults, sizeof(ag_faults), "faults")) ||
        (rc = dev_alloc(g, &g->d_box_count, boxes * sizeof(int), "box counts")) ||
        (rc = dev_alloc(g, &g->d_box_start, boxes * sizeof(int), "box starts")) ||
        (rc = dev_alloc(g, &g->d_box_cells, cap * sizeof(int), "cell lists")) ||
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
    /* the flags' scan covers max_cells: past the population it reads what earlier steps left,
     * which changes no rank at or below it, but is never undefined */
    SB_CUDA(cudaMemsetAsync(g->d_flags, 0, (cap + 1) * sizeof *g->d_flags, st));
    SB_CUDA(cudaStreamSynchronize(st));
    int major;
    SB_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, env->devices[0]));
    /* sorted only: on the tumour on an H200, chaining made sorted's run 0.97x and resident's
     * 1.02x (results/baselines/h200/angio-limits/tumour-step/) */
    g->chain = major >= 9 && sorted;
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
    sb_graph_loop_destroy(&g->loop_graph);
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
