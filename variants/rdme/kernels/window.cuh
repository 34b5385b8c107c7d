/* The window sweeps' shared parts (sweep-window.cu, sweep-quads.cu, sweep-xy.cu): a block's
 * window of a tile and its aprons, the lists of its occupied and changed sites, the moves drawn
 * from one list and the gathers and reactions of another. Device code only, all of it inline or
 * templates, as common.cuh's. */
#ifndef RD_KERNELS_WINDOW_CUH
#define RD_KERNELS_WINDOW_CUH

#include "common.cuh"

/* The gather of window site w (a thread's own), from the window's sites, types and masks;
 * site_of() gives its global index (for an overflow). */
template <class F, class SiteOf>
__device__ typename F::site_t gather_site(const rd_step &a, int axis, SiteOf site_of,
                                          const typename F::site_t *win, const uint8_t *wtype,
                                          const uint32_t *mask, int w, int wstride)
{
    gather<F> g;
    slots self = F::unpack(win[w]), before = F::unpack(win[w - wstride]),
          after = F::unpack(win[w + wstride]);
    uint32_t stay = ~(mask[w] | mask[w] >> 16) & 0xffffu;
    g.add_selected(a, axis, site_of, self, F::count(self), stay);
    g.add_selected(a, axis, site_of, before, F::count(before), mask[w - wstride] >> 16);
    g.add_selected(a, axis, site_of, after, F::count(after), mask[w + wstride] & 0xffffu);
    g.end_step(a);
    return F::pack(g.s, wtype[w]);
}

/* Window site w's column and row in tile T (an apron's: -1 or TW, TH along the swept axis). */
template <class T> __device__ __forceinline__ int tile_col(int w)
{
    return w % T::WW - T::X0;
}
template <class T> __device__ __forceinline__ int tile_row(int w)
{
    return w / T::WW - T::V0;
}

/* The global index of window position w of a lattice site (the apron wrapped when the edges are
 * periodic). The sweep maps its occupied positions again with this rather than keep the index
 * from the load: holding the indices in shared memory and registers cost 4 % of the step (H100,
 * dividing E. coli 8 nm). */
template <class T>
__device__ size_t window_site(const rd_step &a, int w, int x0, int v0, int plane_lo)
{
    const int AXIS = T::AXIS;
    int x = x0 + tile_col<T>(w), v = v0 + tile_row<T>(w);
    if (AXIS == 0)
        x = wrap(x, a.nx);
    else if (AXIS == 1)
        v = wrap(v, a.ny);
    else
        v = wrap(a.slab.z0 + v, a.nz);
    int y = AXIS == 2 ? (int)blockIdx.z : v, z = AXIS == 2 ? v : block_plane(a, plane_lo);
    return x + (size_t)a.nx * (y + (size_t)a.ny * z);
}

/* Appends to a block's list, for each bit k set in `sites`, window site w0 + k * stride (and for
 * bit K - 1 the site `last` instead, when last >= 0: an apron site), in one shared atomic per
 * warp, positions from one ballot per k. Every lane of the warp calls it. (An atomic per site,
 * K per thread, costs several times as much: the compiler wraps each in a warp aggregation of
 * its own.) With SPARE, no branch a k: a lane without site k stores into list[spare], a slot of
 * its own past the list's end (a branch a k, taken by a few lanes, cost more than the store). */
template <int K, bool SPARE = false>
__device__ __forceinline__ void append_sites(uint16_t *list, int *n, unsigned sites, int w0,
                                             int stride, int last = -1, int spare = 0)
{
    unsigned b[K];
    int before[K], total = 0;
#pragma unroll
    for (int k = 0; k < K; k++) {
        b[k] = __ballot_sync(0xffffffffu, sites >> k & 1);
        before[k] = total;
        total += __popc(b[k]);
    }
    if (total == 0)
        return;
    int lane = threadIdx.x & 31, base = 0;
    if (lane == 0)
        base = atomicAdd(n, total);
    base = __shfl_sync(0xffffffffu, base, 0);
    unsigned lower = (1u << lane) - 1;
#pragma unroll
    for (int k = 0; k < K; k++) {
        uint16_t site = (uint16_t)(k == K - 1 && last >= 0 ? last : w0 + k * stride);
        if (SPARE)
            list[sites >> k & 1 ? base + before[k] + __popc(b[k] & lower) : spare] = site;
        else if (sites >> k & 1)
            list[base + before[k] + __popc(b[k] & lower)] = site;
    }
}

/* The parts of a sweep after its window and lists are built, the same for sweep<> and
 * sweep_quads; `site_at(w)` is where the new content of owned window site w goes (the lattice,
 * or the block's staging in shared memory). */

/* No list of the sites a sweep changes: decide_moves only decides. */
struct no_changes {
    static const bool ON = false;
    __device__ unsigned fresh(int, int, int, uint32_t) const { return 0; }
    __device__ void append(unsigned, int) const {}
};

/* The words of changes<>'s marks for tile T: a bit a window site. */
template <class T> __host__ __device__ constexpr int mark_words() { return (T::N + 31) / 32; }

/* The list of the owned window sites whose content a sweep changes: a site whose particles
 * move, and the neighbour each way that particles move into. The other sites keep their word,
 * so the gathers need only these (a site with particles that all stay, and none coming in, is
 * its own gather): on the red blood cell at 8 nm the sweeps ran 12-14 % fewer instructions than
 * with every site in or next to particles (docs/limits.md, "The gathers' list"). `marked`
 * (mark_words<T>(), zeroed before) keeps a site from being listed twice; `owned(w)` says
 * whether window site w is the block's to write. `sites` holds T::TW * T::TH entries and then
 * a spare slot a thread (append_sites). */
template <class T, class Owned> struct changes {
    static const bool ON = true;
    uint16_t *sites;
    int *n;
    uint32_t *marked;
    Owned owned;
    /* bit 0: the site before w, bit 1: w, bit 2: the site after, where each is new to the list;
     * col and row: w's place in the tile (tile_col, tile_row), its neighbours' one apart along
     * the swept axis (from w's, not from their own indices: each division by the window's width
     * cost the draws' loop instructions) */
    __device__ unsigned fresh(int w, int col, int row, uint32_t moves) const
    {
        const int DC = T::AXIS == 0, DR = T::AXIS != 0;
        unsigned out = 0;
        if (moves & 0xffffu)
            out |= first(w - T::STEP, col - DC, row - DR) ? 1u : 0u;
        if (moves)
            out |= first(w, col, row) ? 2u : 0u;
        if (moves >> 16)
            out |= first(w + T::STEP, col + DC, row + DR) ? 4u : 0u;
        return out;
    }
    __device__ bool first(int w, int col, int row) const
    {
        uint32_t bit = 1u << (w & 31);
        return owned(col, row) && !(atomicOr(&marked[w >> 5], bit) & bit);
    }
    /* every lane of the warp calls it */
    __device__ void append(unsigned fresh, int w) const
    {
        append_sites<3, true>(sites, n, fresh, w - T::STEP, T::STEP, -1,
                              T::TW * T::TH + threadIdx.x);
    }
};

/* The owned-site test of changes<> for tile T at (x0, v0) of a lattice nx by vlen sites (x by
 * the tile's second axis), given a window site's place in the tile: a site of the tile, not an
 * apron, inside the lattice (not a wrapped copy past a row's end). */
template <class T> __device__ __forceinline__ auto owned_sites(int x0, int v0, int nx, int vlen)
{
    return [=](int col, int row) {
        return (unsigned)col < (unsigned)T::TW && (unsigned)row < (unsigned)T::TH &&
               x0 + col < nx && v0 + row < vlen;
    };
}

/* The moves of the listed occupied window sites (mask), a site a thread; with a change list
 * (C::ON), the sites they change appended to it. A warp's lanes loop together: the appends
 * are the warp's. */
template <class F, class T, class C = no_changes>
__device__ __forceinline__ void decide_moves(const rd_step &a, const uint16_t *occupied, int n,
                                             const typename F::site_t *win, const uint8_t *wtype,
                                             uint32_t *mask, int x0, int v0, int plane_lo,
                                             C changed = C())
{
    const int lane = C::ON ? threadIdx.x & 31 : 0;
    for (int j0 = threadIdx.x - lane; j0 < n; j0 += T::THREADS) {
        int j = j0 + lane, w = 0;
        unsigned fresh = 0;
        if (j < n) {
            w = occupied[j];
            int col = tile_col<T>(w), row = tile_row<T>(w);
            int along = T::AXIS == 0 ? col + T::X0 : row + T::V0;
            slots sl = F::unpack(win[w]);
            uint32_t m = move_mask<F>(a, T::AXIS, window_site<T>(a, w, x0, v0, plane_lo), sl,
                                      F::count(sl), wtype[w],
                                      along > T::FIRST ? wtype[w - T::STEP] : RD_OUTSIDE,
                                      along < T::LAST ? wtype[w + T::STEP] : RD_OUTSIDE);
            mask[w] = m;
            fresh = changed.fresh(w, col, row, m);
        }
        if (C::ON)
            changed.append(fresh, w);
    }
}

/* The gathers of the listed busy sites, a site a thread; with REACT, the sites that can react
 * listed again in `reacting` (the occupied list is done with). With LAZY_SITE a site's global
 * index is computed where a particle overflows, and only there; otherwise the compiler hoists
 * its arithmetic out of that rare branch onto every gather. Lazy in the sweeps bound by
 * instruction issue: on the red blood cell at 8 nm (H200) they ran 5.6-8.0 % fewer
 * instructions. sweep_xy and the fused z-sweep (the Min system's gpu-fused step) keep the
 * hoisted form: lazy there too, that step measured 1 % slower (docs/limits.md, "The gathers'
 * global index"). */
template <class F, class T, bool REACT, bool LAZY_SITE, class SiteAt>
__device__ __forceinline__ void gather_listed(const rd_step &a, const uint16_t *busy, int n,
                                              const typename F::site_t *win, const uint8_t *wtype,
                                              const uint32_t *mask, int x0, int v0, int plane_lo,
                                              bool every_site, uint16_t *reacting, int *nreacting,
                                              SiteAt site_at)
{
    for (int j = threadIdx.x; j < n; j += T::THREADS) {
        int w = busy[j];
        /* lazy: w made opaque (an empty asm), so that the compiler cannot move the arithmetic
         * that depends on it out of the overflow branch */
        size_t site = LAZY_SITE ? 0 : window_site<T>(a, w, x0, v0, plane_lo);
        auto site_of = [&] {
            if (!LAZY_SITE)
                return site;
            int wo = w;
            asm volatile("" : "+r"(wo));
            return window_site<T>(a, wo, x0, v0, plane_lo);
        };
        typename F::site_t site_new =
            gather_site<F>(a, T::AXIS, site_of, win, wtype, mask, w, T::STEP);
        *site_at(w) = site_new;
        if (REACT && (every_site || F::occupied(site_new)))
            reacting[atomicAdd(nreacting, 1)] = (uint16_t)w;
    }
}

/* The reactions of the listed sites, a pass over the lattice less: from the list, so a warp works
 * on 32 reacting sites, not on the few of its gathered sites that react; each site read back from
 * where the block just wrote it. Adds the reactions fired to *fired. Every thread calls it. */
template <class F, class T, class SiteAt>
__device__ __forceinline__ void react_listed(const rd_step &a, const rd_reaction_table *reactions,
                                             const uint16_t *reacting, int n, const uint8_t *wtype,
                                             int x0, int v0, int plane_lo, int *nfired,
                                             unsigned long long *fired, SiteAt site_at)
{
    int fired_here = 0;
    for (int j = threadIdx.x; j < n; j += T::THREADS) {
        int w = reacting[j];
        typename F::site_t *at = site_at(w), site = *at;
        if (react_site<F>(a, reactions, window_site<T>(a, w, x0, v0, plane_lo), wtype[w],
                          &site)) {
            *at = site;
            fired_here++;
        }
    }
    if (fired_here)
        atomicAdd(nfired, fired_here);
    __syncthreads();
    if (threadIdx.x == 0 && *nfired)
        atomicAdd(fired, (unsigned long long)*nfired);
}

#endif
