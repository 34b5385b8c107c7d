/* Stage 8, beyond the thesis: subtree-dfs's depth-first walks, with the long tail split. At a
 * few tens of thousands of roots, subtree-dfs keeps a fraction of the GPU's threads busy and its
 * time is the largest trees' walks, one thread each (a few roots of the Python ProCell's inputs
 * spawn many times the mean tree). Here every block the GPU holds at once owns an equal share of
 * the roots, which its threads take while there are any; then they wait for work from their own
 * block: a walking thread that sees a waiting one hands it the bottom of its stack (the pending
 * daughter nearest the root, so the largest subtree left) through the block's queue in shared
 * memory. A cell carries all its walk needs (time,
 * generation, path: the keyed random numbers depend on nothing else), so whichever thread walks
 * it, the histogram's counts are the same: bitwise equal to cpu-reference. One launch a run, no
 * host in the loop.
 *
 * The first form (3f9130b) shared cells between all the GPU's threads through one queue in global
 * memory and was about 80 times slower than subtree-dfs on the peer's inputs (docs/procell.md):
 * with most threads idle from the start, every look handed a cell over, and thousands of idle
 * warps raced for each with compare-and-swaps on the queue's head. A block's queue is touched by
 * its 256 threads only, under a lock in shared memory, and a walker hands over only while more
 * threads wait than cells are queued. Block b owns roots b, b + blocks, b + 2 blocks, ...: taken a
 * warp at a time from one counter for the grid, as before, they went to the first blocks 256 at a
 * time (40,000 roots fill 157 blocks of 256), and those blocks had no thread left to help. Every
 * blocks-th root, a block's share also takes in every row of the histogram alike: the rows of
 * high fluorescence hold the largest trees, and a block's helpers can only go round a few. */
#include <stdlib.h>

#include "../../cuda/check.h"
#include "../../cuda/base/error.h"
#include "subtree.h"
#include "table.h"

#ifndef SB_NO_INDEPENDENT_THREADS

/* Cells a block's queue holds at once (2 KiB of shared memory). A full queue only means the
 * walker keeps its cell. */
#define SPLIT_BLOCK_CELLS 64
/* A waiting thread looks at its block's queue again after a wait doubling from this to
 * `wait_ns` (split_wait_ns); a walker looks for waiting threads every `look_every` divisions
 * (split_look_every). Both looks are reads of shared memory. */
#define SPLIT_WAIT_FIRST_NS 64
/* A thread that has waited this many cycles (about a second) for a cell gives up and says so in
 * the tally: a bug, never a hang. */
#define SPLIT_GIVE_UP_CYCLES (1ll << 31)

static_assert(sizeof(pc_cell) == 4 * sizeof(unsigned long long), "a cell moves as 4 words");

/* A block's handed-over cells, changed only under the lock, and its count of waiting threads
 * (nothing in hand, the block's roots all taken), changed by atomics: one joins the count
 * without the lock, and leaves it only under the lock, with a cell. "Every thread waits and the
 * queue is empty", seen under the lock, is then exact (no thread can leave the count), and the
 * block's work is done. Read outside the lock only as hints. */
struct block_queue {
    unsigned long long cell[SPLIT_BLOCK_CELLS][4];
    unsigned head, tail; /* positions: next to take, next to fill */
    int waiting;
    int lock;
};

static __device__ void queue_lock(block_queue *q)
{
    /* a compare-and-swap only when the lock looks free: waiters read, not write, while held */
    while (((volatile block_queue *)q)->lock || atomicCAS(&q->lock, 0, 1) != 0)
        __nanosleep(32);
    __threadfence_block(); /* the last holder's writes are seen */
}

static __device__ void queue_unlock(block_queue *q)
{
    __threadfence_block(); /* this holder's writes before the lock is free */
    atomicExch(&q->lock, 0);
}

/* 1 when c went into the queue: only while more threads wait than cells are queued. */
static __device__ int block_put(block_queue *q, const pc_cell *c)
{
    volatile block_queue *v = q;
    int put = 0;
    queue_lock(q);
    unsigned queued = v->tail - v->head;
    if (queued < SPLIT_BLOCK_CELLS && (int)queued < v->waiting) {
        const unsigned long long *w = (const unsigned long long *)c;
        for (int i = 0; i < 4; i++)
            v->cell[v->tail % SPLIT_BLOCK_CELLS][i] = w[i];
        v->tail = v->tail + 1;
        put = 1;
    }
    queue_unlock(q);
    return put;
}

/* A thread with nothing in hand and no root left waits for a cell of its block: 1 with *c; 0
 * when every thread of the block waits and the queue is empty (the block's work is done), or
 * after a second with none (counted in *gave_up; the thread stays counted as waiting). */
static __device__ int block_wait(block_queue *q, unsigned wait_ns, pc_cell *c,
                                 unsigned long long *gave_up)
{
    volatile block_queue *v = q;
    unsigned wait = SPLIT_WAIT_FIRST_NS;
    atomicAdd(&q->waiting, 1);
    long long since = clock64();
    for (;;) {
        int got = 0, done = 0;
        if (v->tail != v->head || v->waiting == (int)blockDim.x) { /* a hint; decided locked */
            queue_lock(q);
            if (v->tail != v->head) {
                unsigned long long *w = (unsigned long long *)c;
                for (int i = 0; i < 4; i++)
                    w[i] = v->cell[v->head % SPLIT_BLOCK_CELLS][i];
                v->head = v->head + 1;
                atomicSub(&q->waiting, 1);
                got = 1;
            } else if (v->waiting == (int)blockDim.x) {
                done = 1;
            }
            queue_unlock(q);
        }
        if (got)
            return 1;
        if (done)
            return 0;
        if (clock64() - since > SPLIT_GIVE_UP_CYCLES) {
            (*gave_up)++;
            return 0;
        }
        __nanosleep(wait);
        wait = wait < wait_ns ? wait * 2 : wait;
    }
}

/* Four blocks an SM (at most 64 registers: 64 on sm_90, none spilled): threads are the helpers,
 * and 72 registers would leave room for three. */
__global__ void __launch_bounds__(PC_BLOCK, 4)
    split_kernel(pc_rules rules, pc_tables tab, uint64_t nroots, unsigned look_every,
                 unsigned wait_ns,
                 unsigned long long *counts, int nomega, int shared_histogram,
                 pc_device_tally *tally)
{
    extern __shared__ unsigned long long block_counts[];
    __shared__ unsigned long long block_tally[5];
    __shared__ block_queue queue;
    __shared__ unsigned next_own; /* the block's roots taken so far */
    unsigned long long *hist = shared_histogram ? block_counts : counts;
    /* the block's roots: blockIdx.x + j * gridDim.x for j < own (roots are 32-bit: model.c) */
    const unsigned own =
        blockIdx.x < nroots ? (unsigned)((nroots - blockIdx.x + gridDim.x - 1) / gridDim.x) : 0;
    if (threadIdx.x == 0)
        queue.head = queue.tail = 0, queue.waiting = 0, queue.lock = 0, next_own = 0;
    pc_block_start(block_counts, nomega, shared_histogram, block_tally); /* a barrier */

    pc_tally t = {0, 0, 0, 0};
    unsigned long long gave_up = 0;
    int lane = threadIdx.x % 32;
    volatile block_queue *hint = &queue;
    /* Pending second daughters, bottom (oldest) to top: a ring, since cells leave from both
     * ends; at most one a generation, so it never holds more than PC_MAX_GEN + 1. */
    pc_cell stack[PC_MAX_GEN + 1];
    unsigned bot = 0, top = 0, looks = 0;
    uint32_t row_root = 0xffffffffu; /* the root whose Omega row is in hand */
    const uint32_t *omega_of_generation = NULL;
    for (;;) {
        if (top == bot) { /* nothing in hand: a root, else a handed-over cell, else done */
            unsigned j = own;
            if (*(volatile unsigned *)&next_own < own) {
                unsigned mask = __activemask();
                int leader = __ffs(mask) - 1;
                unsigned first = 0;
                if (lane == leader)
                    first = atomicAdd(&next_own, (unsigned)__popc(mask));
                j = __shfl_sync(mask, first, leader) + __popc(mask & ((1u << lane) - 1));
            }
            if (j < own) {
                uint32_t root = blockIdx.x + j * gridDim.x;
                int row = pc_row_of_root(tab.root_start, tab.nrows, root);
                row_root = root;
                omega_of_generation = tab.omega_index + (size_t)row * tab.gen_stride;
                stack[top++ % (PC_MAX_GEN + 1)] =
                    pc_root_cell(&rules, root, tab.phi[row]);
            } else {
                pc_cell c;
                if (!block_wait(&queue, wait_ns, &c, &gave_up))
                    break;
                stack[top++ % (PC_MAX_GEN + 1)] = c;
            }
        }
        /* Walk what is in hand, handing the bottom over while a thread of the block waits. */
        pc_cell c = stack[--top % (PC_MAX_GEN + 1)];
        if (c.root != row_root) /* a handed-over cell of another tree */
            row_root = c.root, omega_of_generation = pc_omega_row(&tab, c.root);
        double t_division;
        while (pc_visit(&rules, &c, omega_of_generation, hist, &t, &t_division)) {
            stack[top++ % (PC_MAX_GEN + 1)] = pc_daughter(&c, t_division, 1);
            c = pc_daughter(&c, t_division, 0);
            if (++looks % look_every == 0 && top - bot >= 1 &&
                hint->waiting > (int)(hint->tail - hint->head) &&
                block_put(&queue, &stack[bot % (PC_MAX_GEN + 1)]))
                bot++;
        }
    }
    pc_block_finish(&t, gave_up, block_tally, block_counts, shared_histogram, counts, nomega,
                    tally);
}

int pc_split_prepare(sb_env *env, const pc_model *m, pc_subtree_device *d)
{
    int dev = env->devices[d->device_index], per_sm = 0, sms = 0;
    /* every thread the GPU holds at once: the waiting ones are the helpers */
    SB_CUDA(cudaFuncSetAttribute(split_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)d->shared_bytes));
    SB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    SB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, split_kernel, PC_BLOCK,
                                                          d->shared_bytes));
    if (per_sm < 1)
        return sb_fail("split_kernel cannot run on device %d with %zu bytes of shared memory",
                       dev, d->shared_bytes);
    d->blocks = sms * per_sm;
    d->split = 1;
    d->look_every = (int)sb_param_num(env->params, "split_look_every");
    d->wait_ns = (int)sb_param_num(env->params, "split_wait_ns");
    return 0;
}

int pc_split_launch(sb_env *env, const pc_model *m, pc_subtree_device *d)
{
    cudaStream_t st = env->streams[d->device_index];
    split_kernel<<<d->blocks, PC_BLOCK, d->shared_bytes, st>>>(
        m->rules, d->tab.view, m->nroots, (unsigned)d->look_every,
        (unsigned)d->wait_ns, d->counts, m->nomega, d->shared_bytes > 0, d->tally);
    SB_LAUNCHED("split_kernel");
    return 0;
}

#else
/* Architectures before 7.0 asked for (cmake's probe): the harness refuses the stage before its
 * set-up (SB_NEEDS_INDEPENDENT_THREADS), so these stand-ins only let the rest compile; were one
 * reached, it fails with the reason. */
int pc_split_prepare(sb_env *env, const pc_model *m, pc_subtree_device *d)
{
    (void)env, (void)m, (void)d;
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
