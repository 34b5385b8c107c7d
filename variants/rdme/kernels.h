/* The MPD-RDME kernels (kernels/, a file a family) as every GPU engine launches them: the one-GPU
 * stages on the whole lattice, the multi-GPU stages on a z-slab of it. Whatever a buffer holds,
 * draws and overflow entries use global site indices, so any decomposition gives the same lattice. */
#ifndef RD_KERNELS_H
#define RD_KERNELS_H

#include <stdint.h>
#include <cuda_runtime_api.h>

#include "../../cuda/graphloop.h"
#include "../../harness/variant.h"
#include "model.h"
#include "rules.h"

/* Where kernels append the particles that did not fit: an atomic count in device memory, the
 * entries wherever the stage puts them (device memory, or host memory mapped into the device).
 * Entries of sites outside first .. end - 1 (global indices) are dropped: a slab's halo sites
 * are its neighbours' to report. */
typedef struct rd_overflow_sink {
    unsigned int *count;
    uint64_t *entries;
    unsigned int capacity;
    size_t first, end;
} rd_overflow_sink;

/* What a device buffer holds. The planes z0 .. z0 + planes - 1 are its own. With halo = 1 it also
 * holds the plane before and the plane after (copies of the neighbours' planes, wrapped around
 * when the lattice is periodic): buffer plane p is lattice plane z0 - 1 + p. With halo = 0 it is
 * the whole lattice (z0 = 0, planes = nz), and the z-sweep wraps by itself. */
typedef struct rd_slab {
    int z0, planes, halo;
} rd_slab;

/* What every kernel needs to know of a step. types: byte16 only, laid out like the buffer.
 * step_at: when set, the kernels read the step from there (device memory) instead of `step`, so
 * that one captured CUDA graph serves every step. */
typedef struct rd_step {
    uint32_t seed;
    long long step;
    int nx, ny, nz, periodic;
    rd_slab slab;
    const uint32_t *threshold;
    const uint8_t *types;
    rd_overflow_sink sink;
    const long long *step_at;
    /* the step's kernels launched as programmatic dependents (the graph loop's body, where
     * rd_chain_if_one_wave says so): each may be resident before the one before it ends, and
     * waits for it before its first read (sb_await_previous_kernel, cuda/chain.cuh) */
    int chained;
    /* a graph body of several steps (rd_graph_step_done): its kernels draw for step
     * *step_at + body_step, and do nothing unless body_step < *runs, the steps of the body that
     * run: those before the loop's stop (rd_loop_bounds), fewer when particles overflow in
     * step k (each site where they do sets *runs to k + 1; the steps after do nothing, so no
     * other step can). NULL: one step a body. rd_step stays 128 bytes: at 136, the sweeps ran
     * more instructions a site (docs/limits.md). */
    int body_step;
    int *runs;
} rd_step;

/* The one-GPU graph loop's bounds in device memory. The host sets both before each launch: the
 * step the loop stops at, and the steps of the first body that run (rd_step.runs);
 * rd_graph_step_done sets runs for each body after. */
typedef struct rd_loop_bounds {
    long long stop;
    int runs;
} rd_loop_bounds;

#ifdef __cplusplus
extern "C" {
#endif

#define RD_SWEEP_TILE_Z 32 /* planes of a z-sweep tile: slab boundaries fall on its multiples */

/* Both GPU engines' steady figures: the median of the step loop's seconds over the timed runs
 * (every run after the first, when there are some; the array is sorted in place), and the bytes
 * of `passes` passes over the lattice a step. */
void rd_report_steady(const rd_model *m, double passes, double *loop_seconds, int runs,
                      sb_steady *steady);

/* Entries an overflow list holds: more in one step is an error naming the density. */
unsigned int rd_overflow_capacity(const rd_model *m);

/* Loads a format's kernels now: lazy module loading would bill the first timed run. */
int rd_kernels_load(rd_site_format f);

/* The x- (axis 0) or y-sweep (axis 1) of buffer planes lo .. hi - 1, from in to out. Overflow
 * entries are pushed for the slab's own sites only: a halo site's belong to its owner. */
int rd_sweep_planes(rd_site_format f, int axis, const void *in, void *out, const rd_step *a,
                    int lo, int hi, cudaStream_t st);
/* The x- and then the y-sweep of buffer planes lo .. hi - 1, from in to out: in one kernel where
 * a block holds a whole plane (packed32, planes of at most 64 x 64 sites in rows of whole quads,
 * 16-byte aligned buffers, and the shared memory on the current device: stage gpu-fused on the
 * Min system), elsewhere as rd_sweep_planes x from in to mid, then y from mid to out. */
int rd_sweep_xy(rd_site_format f, const void *in, void *mid, void *out, const rd_step *a, int lo,
                int hi, cudaStream_t st);
/* Whether rd_sweep_xy sweeps these buffers in one kernel: 1, 0, or -1 with sb_error(). */
int rd_sweep_xy_one_kernel(rd_site_format f, const void *in, const void *out, const rd_step *a);
/* The z-sweep of the slab's own planes (reading the halos). */
int rd_sweep_z(rd_site_format f, const void *in, void *out, const rd_step *a, cudaStream_t st);
/* The z-sweep and then, as each site is written, its reactions (stage gpu-fused): the result of
 * rd_sweep_z and rd_react on every own plane, with one pass over the lattice instead of two. */
int rd_sweep_z_react(rd_site_format f, const void *in, void *out, const rd_step *a,
                     const rd_reaction_table *table, unsigned long long *fired, cudaStream_t st);
/* Stage gpu-fused's reactions a step late, where the x-sweep goes by strips: whether they apply
 * (packed32 rows of whole quads at least 128 sites wide, 16-byte aligned buffers, no reaction
 * without reactants, which every empty site would have to draw for). Then in a graph body of
 * several steps (rd_step.runs set), each step after the first is rd_sweep_x_react_ahead, the
 * previous step's reactions and this step's x-sweep in one pass (its reactions fired counted in
 * ahead[body_step - 1]), and the body ends with rd_react_last after its last z-sweep. */
int rd_react_ahead_applies(rd_site_format f, const rd_step *a, const void *in, const void *out,
                           int has_order0);
int rd_sweep_x_react_ahead(const void *in, void *out, const rd_step *a, int lo, int hi,
                           const rd_reaction_table *host_table, unsigned long long *ahead,
                           cudaStream_t st);
/* The reactions of the body's last step that ran (*a->runs - 1) in buffer planes lo .. hi - 1,
 * and the x-sweeps' counts of the steps before it added to fired (ahead zeroed again). Both take
 * the table from the host, as their kernels' argument. */
int rd_react_last(void *lattice, const rd_step *a, int lo, int hi,
                  const rd_reaction_table *host_table, unsigned long long *fired,
                  unsigned long long *ahead, cudaStream_t st);
/* A whole step in one kernel (stage one-pass): the three sweeps and the reactions of the whole
 * lattice of one GPU (a->slab without halo), from in to out, each block redoing the sweeps of the
 * sites around its tile; fired counts the reactions. */
int rd_one_pass(rd_site_format f, const void *in, void *out, const rd_step *a,
                const rd_reaction_table *table, unsigned long long *fired, cudaStream_t st);
/* Reactions, in place, in buffer planes lo .. hi - 1 (own planes); fired counts them. */
int rd_react(rd_site_format f, void *lattice, const rd_step *a, int lo, int hi,
             const rd_reaction_table *table, unsigned long long *fired, cudaStream_t st);
/* Reactions of the slab's first and last own planes, in one launch (what the neighbours need
 * first). */
int rd_react_edges(rd_site_format f, void *lattice, const rd_step *a,
                   const rd_reaction_table *table, unsigned long long *fired, cudaStream_t st);
/* Sets a->chained (launches as programmatic dependents) where it pays: kernels built for sm_90 or
 * later, and every sweep of the step one wave of blocks on device dev, so that its launch and its
 * tail are much of its time (the Min system: 1,024 blocks a sweep). On a lattice of many waves
 * there is little to hide: chained, the red blood cell's gpu-graph step was 1 % slower on an
 * H200. 0, or -1 with sb_error(). */
int rd_chain_if_one_wave(rd_site_format f, rd_step *a, int dev);
/* CUDA graphs (stage gpu-graph). Ends the body of a graph's while-loop, of `steps` steps:
 * advances the step count in device memory by the steps that ran (bounds->runs), keeps looping
 * while nothing overflowed and the count is below bounds->stop, and sets bounds->runs for the
 * next body. */
int rd_graph_step_done(cudaGraphConditionalHandle loop, long long *step, rd_loop_bounds *bounds,
                       const unsigned int *overflow_count, int steps, int chained,
                       cudaStream_t st);
/* Ends a step of a graph launched once per step: advances the step count. */
int rd_graph_step_advance(long long *step, cudaStream_t st);
/* Adds the species counts of the slab's own planes to rows z0 .. of planes (nz x (nspecies+1)). */
int rd_count_planes(rd_site_format f, const void *lattice, const rd_step *a, int nspecies,
                    uint32_t *planes, cudaStream_t st);

#ifdef __cplusplus
}
#endif

#endif
