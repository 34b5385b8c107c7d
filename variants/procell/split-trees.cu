/* Stage 8, beyond the thesis: subtree-dfs's depth-first walks, with the long tail split. At a
 * few tens of thousands of roots, subtree-dfs keeps a fraction of the GPU's threads busy and its
 * time is the largest trees' walks, one thread each (a few roots of the Python ProCell's inputs
 * spawn many times the mean tree). Here every thread the GPU holds at once takes roots
 * while there are any, then waits for work; a walking thread that sees an idle one hands it the
 * bottom of its stack (the pending daughter nearest the root, so the largest subtree left)
 * through a bounded lock-free queue in global memory. A cell carries all its walk needs (time,
 * generation, path: the keyed random numbers depend on nothing else), so whichever thread walks
 * it, the histogram's counts are the same: bitwise equal to cpu-reference. One launch a run, no
 * host in the loop. */
#include <stdlib.h>

#include "../../cuda/check.h"
#include "../../cuda/base/error.h"
#include "subtree.h"
#include "table.h"

#ifndef SB_NO_INDEPENDENT_THREADS

/* Cells the queue holds at once (32 MiB of cells and 8 MiB of tickets). A full queue only means
 * the walker keeps its cell. */
#define SPLIT_QUEUE_CELLS (1u << 20)
/* A walker looks for idle threads every `look_every` divisions (split_look_every). The look is
 * a load of the one L2 line every walker reads (tens of thousands of walkers, a division every
 * few microseconds each): looking often would queue them all on that line. An idle warp waits
 * between looks at the queue, doubling from SPLIT_WAIT_FIRST_NS to `wait_ns` (split_wait_ns),
 * which bounds how long a handed-over cell waits, and how often thousands of idle warps read the
 * queue's lines. Both are parameters, to be tuned on the GPU without a rebuild. */
#define SPLIT_WAIT_FIRST_NS 256
/* An idle thread that has seen the queue stand still for this many cycles (about a second)
 * while work was said to be held gives up and says so in the tally: a bug, never a hang. */
#define SPLIT_GIVE_UP_CYCLES (1ll << 31)

/* Dmitry Vyukov's bounded multi-producer multi-consumer queue: slot i's ticket says whose turn
 * it is (a producer's when it equals the position, a consumer's at position + 1). */
struct pc_split_queue {
    unsigned long long next_root;  /* roots handed out */
    unsigned long long busy;       /* threads holding work; the others wait for it */
    unsigned long long head, tail; /* positions: next to take, next to fill */
    unsigned long long ticket[SPLIT_QUEUE_CELLS];
    pc_cell cell[SPLIT_QUEUE_CELLS];
};

static_assert(sizeof(pc_cell) == 4 * sizeof(unsigned long long), "a cell moves as 4 words");

static __device__ unsigned long long load_l2(const unsigned long long *p)
{
    return *(const volatile unsigned long long *)p;
}

/* A cell through L2: another SM wrote it, and this SM's L1 may hold the slot's old cell. */
static __device__ void put_cell(pc_cell *slot, const pc_cell *c)
{
    const unsigned long long *from = (const unsigned long long *)c;
    unsigned long long *to = (unsigned long long *)slot;
    for (int i = 0; i < 4; i++)
        __stcg(to + i, from[i]);
}

static __device__ pc_cell get_cell(const pc_cell *slot)
{
    pc_cell c;
    unsigned long long *to = (unsigned long long *)&c;
    const unsigned long long *from = (const unsigned long long *)slot;
    for (int i = 0; i < 4; i++)
        to[i] = __ldcg(from + i);
    return c;
}

/* 1 when c went into the queue, 0 when it is full. */
static __device__ int split_put(pc_split_queue *q, const pc_cell *c)
{
    unsigned long long pos = load_l2(&q->tail);
    for (;;) {
        unsigned slot = (unsigned)(pos % SPLIT_QUEUE_CELLS);
        unsigned long long ticket = load_l2(&q->ticket[slot]);
        if (ticket == pos) {
            unsigned long long seen = atomicCAS(&q->tail, pos, pos + 1);
            if (seen == pos) {
                put_cell(&q->cell[slot], c);
                __threadfence(); /* the cell before the ticket that hands it over */
                atomicExch(&q->ticket[slot], pos + 1);
                return 1;
            }
            pos = seen;
        } else if (ticket < pos) {
            return 0; /* the slot's last cell is not taken yet: full */
        } else {
            pos = load_l2(&q->tail);
        }
    }
}

/* 1 with a cell in *c, 0 when the queue is empty. */
static __device__ int split_take(pc_split_queue *q, pc_cell *c)
{
    unsigned long long pos = load_l2(&q->head);
    for (;;) {
        unsigned slot = (unsigned)(pos % SPLIT_QUEUE_CELLS);
        unsigned long long ticket = load_l2(&q->ticket[slot]);
        if (ticket == pos + 1) {
            unsigned long long seen = atomicCAS(&q->head, pos, pos + 1);
            if (seen == pos) {
                __threadfence(); /* the ticket before the cell it hands over */
                *c = get_cell(&q->cell[slot]);
                __threadfence(); /* the cell read before the slot is given back */
                atomicExch(&q->ticket[slot], pos + SPLIT_QUEUE_CELLS);
                return 1;
            }
            pos = seen;
        } else if (ticket < pos + 1) {
            return 0;
        } else {
            pos = load_l2(&q->head);
        }
    }
}

/* The queue empty: every slot's ticket at its first position. A run that ends leaves it so (all
 * taken, head == tail, each ticket a lap on), so this runs once, and again only after a run
 * that did not end (gave_up). */
__global__ void split_reset_kernel(pc_split_queue *q)
{
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i < SPLIT_QUEUE_CELLS; i += (unsigned long long)gridDim.x * blockDim.x)
        q->ticket[i] = i;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        q->head = q->tail = 0;
}

/* An idle lane's wait for a cell. The idle lanes of a warp wait together: their first lane looks
 * at the queue for all of them and takes a cell for each it can, broadcast to its lane (a look
 * reads the few lines every idle warp reads, so one look a warp, not one a lane). 1 with *c; 0
 * when all work is done, or when the queue stood still for a second (counted in *gave_up). */
static __device__ int wait_for_cell(pc_split_queue *q, int lane, unsigned wait_ns, pc_cell *c,
                                    unsigned long long *gave_up)
{
    unsigned wait = SPLIT_WAIT_FIRST_NS;
    long long since = clock64();
    unsigned long long seen_tail = ~0ull;
    for (;;) {
        unsigned mask = __activemask();
        int leader = __ffs(mask) - 1, n = __popc(mask);
        int rank = __popc(mask & ((1u << lane) - 1)), got = 0, k = 0;
        for (; k < n; k++) {
            pc_cell x = {};
            int ok = 0;
            if (lane == leader)
                ok = split_take(q, &x);
            if (!__shfl_sync(mask, ok, leader))
                break;
            unsigned long long *w = (unsigned long long *)&x, v[4];
            for (int i = 0; i < 4; i++)
                v[i] = __shfl_sync(mask, w[i], leader);
            if (rank == k) {
                for (int i = 0; i < 4; i++)
                    ((unsigned long long *)c)[i] = v[i];
                got = 1;
            }
        }
        /* Taken, then counted busy: in between, another idle warp may find the queue empty and
         * nobody busy, and end early. That costs helpers, not cells: a thread ends only on an
         * empty queue, and a taker drains what it hands over itself if nobody is left. */
        if (k > 0 && lane == leader)
            atomicAdd(&q->busy, (unsigned long long)k);
        if (got)
            return 1;
        if (k > 0)
            continue; /* the lanes still idle look again at once, without those served */
        int end = 0;  /* 1 done, 2 given up */
        if (lane == leader) {
            unsigned long long tail = load_l2(&q->tail);
            if (load_l2(&q->busy) == 0 && load_l2(&q->head) == tail)
                end = 1; /* nobody holds work that could still be handed over */
            else if (tail != seen_tail)
                seen_tail = tail, since = clock64();
            else if (clock64() - since > SPLIT_GIVE_UP_CYCLES)
                end = 2;
        }
        end = __shfl_sync(mask, end, leader);
        if (end) {
            *gave_up += end == 2;
            return 0;
        }
        __nanosleep(wait);
        wait = wait < wait_ns ? wait * 2 : wait;
    }
}

/* Adds `sign` to the busy count once for the lanes here together (an atomic a warp, not a lane).
 * A thread counts itself busy when it starts, so a block that is not resident yet holds up
 * nobody's end: it will find the roots gone and the queue empty. */
static __device__ void count_busy(pc_split_queue *q, long long sign)
{
    __threadfence(); /* what the lanes did to the roots and the queue is seen first */
    unsigned mask = __activemask();
    int lane = threadIdx.x % 32, leader = __ffs(mask) - 1;
    if (lane == leader)
        atomicAdd(&q->busy, (unsigned long long)(sign * __popc(mask)));
}

/* Four blocks an SM (64 registers, a few spilled): threads are the helpers, and 72 registers
 * would leave room for three. */
__global__ void __launch_bounds__(PC_BLOCK, 4)
    split_kernel(pc_rules rules, pc_tables tab, uint64_t nroots, pc_split_queue *q,
                 unsigned long long threads, unsigned look_every, unsigned wait_ns,
                 unsigned long long *counts, int nomega, int shared_histogram,
                 pc_device_tally *tally)
{
    extern __shared__ unsigned long long block_counts[];
    __shared__ unsigned long long block_tally[5];
    unsigned long long *hist = shared_histogram ? block_counts : counts;
    pc_block_start(block_counts, nomega, shared_histogram, block_tally);

    pc_tally t = {0, 0, 0, 0};
    unsigned long long gave_up = 0;
    int lane = threadIdx.x % 32;
    /* Pending second daughters, bottom (oldest) to top: a ring, since cells leave from both
     * ends; at most one a generation, so it never holds more than PC_MAX_GEN + 1. */
    pc_cell stack[PC_MAX_GEN + 1];
    unsigned bot = 0, top = 0, looks = 0;
    int busy = 1;
    count_busy(q, 1);
    __threadfence(); /* counted busy before it takes a root */
    uint32_t row_root = 0xffffffffu; /* the root whose Omega row is in hand */
    const uint32_t *omega_of_generation = NULL;
    for (;;) {
        if (top == bot) { /* nothing in hand: a root, else a handed-over cell, else done */
            unsigned long long root = nroots;
            if (load_l2(&q->next_root) < nroots) {
                unsigned mask = __activemask();
                int leader = __ffs(mask) - 1;
                unsigned long long first = 0;
                if (lane == leader)
                    first = atomicAdd(&q->next_root, (unsigned long long)__popc(mask));
                root = __shfl_sync(mask, first, leader) + __popc(mask & ((1u << lane) - 1));
            }
            if (root < nroots) {
                int row = pc_row_of_root(tab.root_start, tab.nrows, root);
                row_root = (uint32_t)root;
                omega_of_generation = tab.omega_index + (size_t)row * tab.gen_stride;
                stack[top++ % (PC_MAX_GEN + 1)] =
                    pc_root_cell(&rules, (uint32_t)root, tab.phi[row]);
            } else {
                if (busy)
                    count_busy(q, -1), busy = 0;
                pc_cell c;
                if (!wait_for_cell(q, lane, wait_ns, &c, &gave_up))
                    break;
                busy = 1;
                stack[top++ % (PC_MAX_GEN + 1)] = c;
            }
        }
        /* Walk what is in hand, handing the bottom over while some thread waits. */
        pc_cell c = stack[--top % (PC_MAX_GEN + 1)];
        if (c.root != row_root) /* a handed-over cell of another tree */
            row_root = c.root, omega_of_generation = pc_omega_row(&tab, c.root);
        double t_division;
        while (pc_visit(&rules, &c, omega_of_generation, hist, &t, &t_division)) {
            stack[top++ % (PC_MAX_GEN + 1)] = pc_daughter(&c, t_division, 1);
            c = pc_daughter(&c, t_division, 0);
            if (++looks % look_every == 0 && top - bot >= 1 &&
                load_l2(&q->busy) < threads && split_put(q, &stack[bot % (PC_MAX_GEN + 1)]))
                bot++;
        }
    }
    pc_block_finish(&t, gave_up, block_tally, block_counts, shared_histogram, counts, nomega,
                    tally);
}

int pc_split_prepare(sb_env *env, pc_subtree_device *d)
{
    int dev = env->devices[d->device_index], rc, per_sm = 0, sms = 0;
    if ((rc = sb_dev_alloc(&env->mem, dev, (void **)&d->queue, sizeof *d->queue,
                           "split-trees queue")))
        return rc;
    d->queue_dirty = 1; /* reset by the first launch */
    /* every thread the GPU holds at once: the idle ones are the helpers */
    SB_CUDA(cudaFuncSetAttribute(split_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)d->shared_bytes));
    SB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    SB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, split_kernel, PC_BLOCK,
                                                          d->shared_bytes));
    if (per_sm < 1)
        return sb_fail("split_kernel cannot run on device %d with %zu bytes of shared memory",
                       dev, d->shared_bytes);
    d->blocks = sms * per_sm;
    d->look_every = (int)sb_param_num(env->params, "split_look_every");
    d->wait_ns = (int)sb_param_num(env->params, "split_wait_ns");
    return 0;
}

int pc_split_launch(sb_env *env, const pc_model *m, pc_subtree_device *d)
{
    cudaStream_t st = env->streams[d->device_index];
    unsigned long long threads = (unsigned long long)d->blocks * PC_BLOCK;
    if (d->queue_dirty) {
        split_reset_kernel<<<256, 256, 0, st>>>(d->queue);
        SB_LAUNCHED("split_reset_kernel");
        d->queue_dirty = 0;
    }
    /* next_root and busy: a run's counters start at zero; the queue is empty already */
    SB_CUDA(cudaMemsetAsync(d->queue, 0, 2 * sizeof(unsigned long long), st));
    split_kernel<<<d->blocks, PC_BLOCK, d->shared_bytes, st>>>(
        m->rules, d->tab.view, m->nroots, d->queue, threads, (unsigned)d->look_every,
        (unsigned)d->wait_ns, d->counts, m->nomega, d->shared_bytes > 0, d->tally);
    SB_LAUNCHED("split_kernel");
    return 0;
}

#else
/* Architectures before 7.0 asked for (cmake's probe): the harness refuses the stage before its
 * set-up (SB_NEEDS_INDEPENDENT_THREADS), so these stand-ins only let the rest compile; were one
 * reached, it fails with the reason. */
int pc_split_prepare(sb_env *env, pc_subtree_device *d)
{
    (void)env, (void)d;
    return sb_fail("split-trees %s", sb_build_lacks(SB_NEEDS_INDEPENDENT_THREADS));
}

int pc_split_launch(sb_env *env, const pc_model *m, pc_subtree_device *d)
{
    (void)env, (void)m, (void)d;
    return sb_fail("split-trees %s", sb_build_lacks(SB_NEEDS_INDEPENDENT_THREADS));
}
#endif

static int setup(sb_env *env, const void *model, void **state)
{
    return pc_subtree_setup(env, model, state, 1);
}

const sb_variant_ops pc_split_trees_ops = {setup, pc_subtree_run, pc_subtree_output,
                                           pc_subtree_teardown, pc_subtree_report};
