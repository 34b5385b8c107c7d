/* The reactions: react, in place (the stages' own pass: rd_react, rd_react_edges; the end of
 * gpu-fused's graph bodies whose x-sweeps react a step late: rd_react_last), and the sweeps that
 * fire them as they go: the fused z-sweep (rd_sweep_z_react) and the x-strips with the previous
 * step's reactions (rd_sweep_x_react_ahead).
 *
 * Every kernel that fires reactions is compiled here, in one unit: react and the reacting
 * instances of the sweeps (sweep<F, 2, true>, sweep_quads<2, true>, sweep_strips_x<true>). They
 * all call the slow path of IEEE double division (det_log, rd_choose_reaction), a subroutine that
 * ptxas compiles once a unit, within the register limits of its callers there. Compiled apart
 * from the fused z-sweeps (32 registers), react and sweep_strips_x<true> got a subroutine of their
 * own and other code (react's as long, sweep_strips_x<true> 8 instructions longer), so they stay
 * with them, as they were in kernels.cu before issue 51 split it. */
#include "launch.h"
#include "strips.cuh"
#include "sweep-quads.cuh"
#include "sweep-window.cuh"

/* Up to two runs of buffer sites: the first `blocks0` blocks do run 0, the others run 1. */
typedef struct site_runs {
    size_t first[2], n[2];
    unsigned blocks0;
} site_runs;

/* Reactions, in place, in the sites of `runs`: each thread loads F::REACT_SITES sites, with
 * QUADS (packed32 planes of whole quads, a 16-byte aligned lattice) a quad of 4 at a time; the
 * sites that can react (occupied, or any site when a reaction has no reactant) go to a list the
 * block then works through, a thread per site, with their words (F::REACT_KEEPS) or reading
 * them again from the lattice.
 *
 * LAST: the end of a graph body whose x-sweeps after the first do the previous step's reactions
 * (sweep_strips_x<true>): the reactions of the body's last step that ran, *a.runs - 1, and the
 * count of those the x-sweeps of the steps that ran fired (ahead[k]: step k's), added to fired. */
template <class F, bool QUADS = false, bool LAST = false>
__global__ void __launch_bounds__(BLOCK, 6)
    react(typename F::site_t *lattice, site_runs runs,
          const __grid_constant__ reactions_arg<LAST> reactions, rd_step a,
          unsigned long long *fired, unsigned long long *ahead)
{
    const rd_reaction_table *__restrict__ t = table_of(reactions);
    const int SITES = F::REACT_SITES, PER_LOAD = QUADS ? 4 : 1, LOADS = SITES / PER_LOAD;
    typedef typename std::conditional<QUADS, uint4, typename F::site_t>::type load_t;
    /* the list, and past its end a spare slot a thread (the list by ballots, below) */
    __shared__ uint16_t active[BLOCK * SITES + BLOCK];
    __shared__ typename F::site_t words[F::REACT_KEEPS ? BLOCK * SITES + BLOCK : 1];
    __shared__ int nactive;
    sb_await_previous_kernel();
    sb_launch_next_kernel();
    if constexpr (LAST) {
        a.body_step = *a.runs - 1;
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            /* the x-sweep of step body_step + 1, where it stopped the body, counted part of
             * body_step's: this kernel counts them all again */
            unsigned long long sum = 0;
            for (int k = 0; k < a.body_step; k++)
                sum += ahead[k];
            for (int k = 0; k <= a.body_step; k++)
                ahead[k] = 0;
            if (sum)
                atomicAdd(fired, sum);
        }
    }
    /* selects, not an index: a parameter indexed at run time would go to local memory */
    bool second = blockIdx.x >= runs.blocks0;
    unsigned block = second ? blockIdx.x - runs.blocks0 : blockIdx.x;
    size_t first = second ? runs.first[1] : runs.first[0];
    size_t base = first + (size_t)block * BLOCK * SITES,
           end = first + (second ? runs.n[1] : runs.n[0]);
    /* the block's sites, base .. base + here - 1 (with QUADS whole quads): bounds in 32 bits,
     * not 64, for each load */
    int here = (int)min((size_t)BLOCK * SITES, end - base);
    int all = t->has_order0;
    load_t v[LOADS];
#pragma unroll
    for (int k = 0; k < LOADS; k++) {
        int o = k * BLOCK + threadIdx.x;
        v[k] = o * PER_LOAD < here ? ((const load_t *)(lattice + base))[o] : load_t{};
    }
    if (step_skipped(a))
        return;
    if (threadIdx.x == 0)
        nactive = 0;
    __syncthreads();
    /* the list, a warp at once: one shared atomic a warp, in place of a shared atomic a site
     * (which the compiler aggregates over the warp, one site at a time) */
    if constexpr (QUADS) {
        /* a lane's places from a prefix sum over the warp, a store a listed site: a quad's test
         * and a site's store in place of two ballots and two stores a site (the kernel 0.635 to
         * 0.567 ms on the red blood cell, H100). A loop a quad, not warp_list's one loop over
         * all the bits: that would index v at run time, in local memory. */
        unsigned reacting = 0; /* bit 4k + s: site s of quad k can react */
#pragma unroll
        for (int k = 0; k < LOADS; k++) {
            bool in = (k * BLOCK + (int)threadIdx.x) * 4 < here; /* whole quads */
            reacting |= (quad_occupied(v[k]) | (all && in ? 0xfu : 0u)) << 4 * k;
        }
        int total, at = warp_prefix(__popc(reacting), &total), warp_at = 0;
        if ((threadIdx.x & 31) == 0 && total)
            warp_at = atomicAdd(&nactive, total);
        at += __shfl_sync(0xffffffffu, warp_at, 0);
#pragma unroll
        for (int k = 0; k < LOADS; k++)
            for (unsigned b = reacting >> 4 * k & 0xfu; b; b &= b - 1) {
                int site = __ffs(b) - 1;
                active[at] = (uint16_t)((k * BLOCK + threadIdx.x) * 4 + site);
                if (F::REACT_KEEPS)
                    words[at] = site == 0   ? v[k].x
                                : site == 1 ? v[k].y
                                : site == 2 ? v[k].z
                                            : v[k].w;
                at++;
            }
    } else {
        /* the warp's count from a ballot a site, then each lane's places from the same ballots,
         * and stores without a branch (a spare slot): the kernel 702 to 635 us, 15 % fewer
         * instructions (H100, docs/limits.md, "The reactions: counts, the firing test and the
         * list") */
        const unsigned lane = threadIdx.x & 31, lower = (1u << lane) - 1;
        unsigned reacting = 0; /* bit k: site k can react */
        int total = 0;
#pragma unroll
        for (int k = 0; k < SITES; k++) {
            /* a site past the block's end is empty, so only `all` needs the bound */
            bool can = F::occupied(v[k]) || (all && k * BLOCK + (int)threadIdx.x < here);
            reacting |= (unsigned)can << k;
            total += __popc(__ballot_sync(0xffffffffu, can));
        }
        int at = 0;
        if (lane == 0 && total)
            at = atomicAdd(&nactive, total);
        at = __shfl_sync(0xffffffffu, at, 0);
#pragma unroll
        for (int k = 0; k < SITES; k++) {
            bool listed = reacting >> k & 1;
            unsigned b = __ballot_sync(0xffffffffu, listed);
            /* no branch a site: a lane without one stores into its spare slot */
            int j = listed ? at + __popc(b & lower) : BLOCK * SITES + threadIdx.x;
            active[j] = (uint16_t)(k * BLOCK + threadIdx.x);
            if (F::REACT_KEEPS)
                words[j] = v[k];
            at += __popc(b);
        }
    }
    __syncthreads();
    /* the reactions fired, added by each thread that fired one: rare, and no barrier to wait on
     * the block's slowest warp */
    int fired_here = 0;
    for (int j = threadIdx.x; j < nactive; j += BLOCK) {
        /* the global index: the buffer's, less its halo plane, plus the slab's first plane */
        size_t i = base + active[j],
               global = i + (size_t)((long long)a.nx * a.ny * (a.slab.z0 - a.slab.halo));
        typename F::site_t w = F::REACT_KEEPS ? words[j] : lattice[i];
        if (!react_site<F>(a, t, global, F::type(w, a.types, i), &w))
            continue;
        lattice[i] = w;
        fired_here++;
    }
    if (fired_here)
        atomicAdd(fired, (unsigned long long)fired_here);
}

template <class F, bool LAST = false>
static int launch_react(void *lattice, const rd_step *a, const int *lo, const int *hi,
                        const reactions_arg<LAST> &t, unsigned long long *fired, cudaStream_t st,
                        unsigned long long *ahead = NULL)
{
    size_t plane = (size_t)a->nx * a->ny, per_block = (size_t)BLOCK * F::REACT_SITES;
    site_runs runs;
    unsigned blocks[2];
    for (int r = 0; r < 2; r++) {
        runs.first[r] = (size_t)lo[r] * plane;
        runs.n[r] = hi[r] > lo[r] ? (size_t)(hi[r] - lo[r]) * plane : 0;
        blocks[r] = (unsigned)((runs.n[r] + per_block - 1) / per_block);
    }
    runs.blocks0 = blocks[0];
    if (blocks[0] + blocks[1] == 0)
        return 0;
    /* quads where every plane is whole quads and the lattice 16-byte aligned */
    bool quads = F::QUADS && plane % 4 == 0 && (uintptr_t)lattice % 16 == 0;
    cudaError_t e = sb_launch_kernel(quads ? react<F, F::QUADS, LAST> : react<F, false, LAST>,
                                     dim3(blocks[0] + blocks[1]), BLOCK, 0, a->chained, st,
                                     (typename F::site_t *)lattice, runs, t, *a, fired, ahead);
    SB_LAUNCH_OK(e, "react");
    return 0;
}

int rd_react(rd_site_format f, void *lattice, const rd_step *a, int lo, int hi,
             const rd_reaction_table *table, unsigned long long *fired, cudaStream_t st)
{
    int los[2] = {lo, 0}, his[2] = {hi, 0};
    return f == RD_PACKED32 ? launch_react<packed32>(lattice, a, los, his, table, fired, st)
                            : launch_react<byte16>(lattice, a, los, his, table, fired, st);
}

int rd_react_last(void *lattice, const rd_step *a, int lo, int hi,
                  const rd_reaction_table *host_table, unsigned long long *fired,
                  unsigned long long *ahead, cudaStream_t st)
{
    int los[2] = {lo, 0}, his[2] = {hi, 0};
    return launch_react<packed32, true>(lattice, a, los, his, *host_table, fired, st, ahead);
}

int rd_react_edges(rd_site_format f, void *lattice, const rd_step *a,
                   const rd_reaction_table *table, unsigned long long *fired, cudaStream_t st)
{
    int first = a->slab.halo, last = a->slab.halo + a->slab.planes - 1;
    int los[2] = {first, last}, his[2] = {first + 1, last > first ? last + 1 : last};
    return f == RD_PACKED32 ? launch_react<packed32>(lattice, a, los, his, table, fired, st)
                            : launch_react<byte16>(lattice, a, los, his, table, fired, st);
}

/* The z-sweep and its reactions in one kernel: sweep_quads<2, true> where packed32 rows are whole
 * 16-byte quads, else sweep<F, 2, true> (the strips have no reacting z-sweep: the reactions need
 * a block's lists). */
template <class F>
static cudaError_t launch_z_react(dim3 grid, const void *in, void *out, const rd_step *a,
                                  const rd_reaction_table *t, unsigned long long *fired,
                                  cudaStream_t st)
{
    if (F::QUADS && rows_of_quads(a, in, out))
        return sb_launch_kernel(sweep_quads<2, true>, grid, BLOCK, 0, a->chained, st,
                                (const uint4 *)in, (uint4 *)out, *a, 0, t, fired);
    return sb_launch_kernel(sweep<F, 2, true>, grid, BLOCK, 0, a->chained, st,
                            (const typename F::site_t *)in, (typename F::site_t *)out, *a, 0, t,
                            fired);
}

int rd_sweep_z_react(rd_site_format f, const void *in, void *out, const rd_step *a,
                     const rd_reaction_table *table, unsigned long long *fired, cudaStream_t st)
{
    if (a->ny <= 0)
        return 0;
    dim3 grid = sweep_grid<2>(a, a->slab.planes, a->ny);
    SB_LAUNCH_OK(f == RD_PACKED32 ? launch_z_react<packed32>(grid, in, out, a, table, fired, st)
                                  : launch_z_react<byte16>(grid, in, out, a, table, fired, st),
                 "sweep<z>+react");
    return 0;
}

int rd_react_ahead_applies(rd_site_format f, const rd_step *a, const void *in, const void *out,
                           int has_order0)
{
    return f == RD_PACKED32 && rows_of_quads(a, in, out) && a->nx >= STRIP_MIN_NX && !has_order0;
}

int rd_sweep_x_react_ahead(const void *in, void *out, const rd_step *a, int lo, int hi,
                           const rd_reaction_table *host_table, unsigned long long *ahead,
                           cudaStream_t st)
{
    if (hi <= lo)
        return 0;
    SB_LAUNCH_OK(sb_launch_kernel(sweep_strips_x<true>, strip_grid(a, a->ny, hi - lo),
                                  32 * STRIP_WARPS, 0, a->chained, st, (const uint4 *)in,
                                  (uint4 *)out, *a, lo, *host_table, ahead),
                 "sweep<x>+reactions before");
    return 0;
}

template <class F> static int load(void)
{
    cudaFuncAttributes attr;
    SB_CUDA(cudaFuncGetAttributes(&attr, react<F>));
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep<F, 2, true>));
    if constexpr (F::QUADS) {
        SB_CUDA(cudaFuncGetAttributes(&attr, react<F, F::QUADS>));
        SB_CUDA(cudaFuncGetAttributes(&attr, react<F, F::QUADS, true>));
        SB_CUDA(cudaFuncGetAttributes(&attr, react<F, false, true>));
        SB_CUDA(cudaFuncGetAttributes(&attr, sweep_quads<2, true>));
        SB_CUDA(cudaFuncGetAttributes(&attr, sweep_strips_x<true>));
    }
    return 0;
}

int rd_load_react(rd_site_format f)
{
    return f == RD_PACKED32 ? load<packed32>() : load<byte16>();
}
