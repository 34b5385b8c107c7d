/* The MPD-RDME kernels, as Lattice Microbes runs them: an x-sweep, a y-sweep and a z-sweep, each
 * reading one lattice and writing the other through a shared-memory window (a tile plus one apron
 * site each side along the swept axis), then reactions in place.
 *
 * Each sweep first decides, once per occupied window site, where each of its particles goes (a
 * bit per particle and direction, in shared memory); then every thread gathers its sites: the
 * stayers, the + movers of the site before, the - movers of the site after, in that order. No
 * atomics on the lattice, and the same content as the CPU reference, bit for bit.
 *
 * Most sites are empty (the paper's 0.08 particles per site), so the costly work (Philox draws,
 * propensities) is done from a list of the occupied sites of a tile, not by the thread that
 * loaded the site: a warp then draws for 32 occupied sites at once instead of idling 31 lanes
 * beside the one that has particles. Tiles: x-sweep 64 x 16 sites (x by y), y- and z-sweeps
 * 32 x 32 (x by the swept axis), 256 threads; the paper's were a 1-D x block and 32 x 8 tiles,
 * whose two apron rows cost 25 % more reads than the 6 % of 32 rows. The lists are appended to
 * a warp at a time (append_sites); where every lattice row is whole 16-byte quads of packed32
 * sites, the sweeps load, test and store a quad a thread (sweep_quads), and where those rows are
 * at least 128 sites wide the sweeps without reactions go by warp strips, a warp a strip with no
 * block barrier (sweep_strips, sweep_strips_x).
 *
 * A buffer is the whole lattice or a z-slab with halo planes (kernels.h); x- and y-sweeps of a
 * slab's halo planes redo what the neighbour does to them, with the same draws, so a z-sweep
 * finds there exactly what the neighbour's own planes hold.
 *
 * The site formats are C++ traits over one representation of a site's slots (128 bits: lo, hi),
 * so the kernels are written once for the packed 32-bit word and the 16-byte site. */
#include <stdlib.h>

#include <type_traits>

#include "../../cuda/chain.cuh"
#include "../../cuda/check.h"
#include "../../harness/stats.h"
#include "kernels.h"

#define BLOCK 256            /* threads of every kernel here */

/* A kernel of a chained step (rd_step.chained) is launched as a programmatic dependent of the
 * stream's kernel before it (cuda/chain.cuh): the Min system's gpu-fused step went from 26.7 to
 * 25.0 us on an H200. Every kernel a step may chain (the sweeps, react, step_done) awaits the
 * previous one before its first global read, then lets the next one launch. */

/* Whether this step is skipped: the loop ended on an earlier step of the graph body
 * (rd_step.runs). Every thread of a block reads it, before the block's first barrier. */
static __device__ inline bool step_skipped(const rd_step &a)
{
    return a.runs && a.body_step >= *a.runs;
}

/* The reactions as a kernel's own argument (reactions_arg<true>: by value, __grid_constant__, so
 * that rd_choose_reaction's loads are the constant cache's) or as a pointer to device memory.
 * Through the pointer, each load of the table is a global load that the reaction waits for in
 * turn: in the x-strips with the reactions (few warps an SM) those loads stalled the most. */
template <bool BY_VALUE>
using reactions_arg =
    typename std::conditional<BY_VALUE, rd_reaction_table, const rd_reaction_table *>::type;
__device__ __forceinline__ const rd_reaction_table *table_of(const rd_reaction_table *t)
{
    return t;
}
__device__ __forceinline__ const rd_reaction_table *table_of(const rd_reaction_table &t)
{
    return &t;
}

/* Tile of a sweep: TW sites along x by TH along the other in-plane axis (y for the x-sweep, the
 * swept axis for the others; a whole plane in sweep_xy), and its window: the tile and an apron
 * site each side along the swept axis, WW x WH, the tile's first site at column X0 of row V0. An
 * x-sweep's window has its first site at column 1, or at 4 where its rows are stored in 16-byte
 * quads (QUADS). */
template <int A, bool QUADS = false, int TW_ = A == 0 ? 64 : 32, int TH_ = A == 0 ? 16 : 32,
          int THREADS_ = BLOCK>
struct tile {
    static const int AXIS = A;
    static const int TW = TW_, TH = TH_;
    static const int THREADS = THREADS_; /* of the block that sweeps it */
    static const int X0 = AXIS == 0 ? (QUADS ? 4 : 1) : 0, V0 = AXIS != 0;
    static const int WW = TW + 2 * X0, WH = TH + 2 * V0;
    static const int N = WW * WH;
    static const int STEP = AXIS == 0 ? 1 : WW; /* window index of the + neighbour */
    /* the aprons' places along the swept axis (column for x, row otherwise) */
    static const int FIRST = AXIS == 0 ? X0 - 1 : 0, LAST = AXIS == 0 ? X0 + TW : WH - 1;
};
static_assert(tile<2>::TH == RD_SWEEP_TILE_Z, "slab boundaries follow the z-sweep's tile");

typedef struct slots {
    uint64_t lo, hi;
} slots;

/* The paper's word: 7 slots of 4 bits, the site type in the top 4 bits. */
struct packed32 {
    typedef uint32_t site_t;
    static const int BITS = 4, CAP = 7;
    static const int SWEEP_BLOCKS_PER_SM = 8; /* 32 registers: full occupancy, no spills */
    static const int FUSED_BLOCKS_PER_SM = 8; /* as many: the reactions spill a little */
    static const bool QUADS = true;           /* sweep_quads serves its sweeps */
    static const bool WARP_LISTS = true;      /* sweep<> appends to its lists a warp at once */
    /* react: sites a thread, and the listed sites' words kept in shared memory, not read again
     * from the lattice; 16 and kept: react 0.83 to 0.74 ms on the red blood cell at 8 nm, H200
     * (docs/limits.md, "The reactions' kernel") */
    static const int REACT_SITES = 16;
    static const bool REACT_KEEPS = true;
    static __device__ slots unpack(site_t w) { return {w & 0x0fffffffu, 0}; }
    static __device__ int type(site_t w, const uint8_t *, size_t) { return (int)(w >> 28); }
    static __device__ site_t pack(slots s, int type) { return (uint32_t)s.lo | (uint32_t)type << 28; }
    static __device__ site_t empty() { return 0; }
    static __device__ bool occupied(site_t w) { return (w & 0x0fffffffu) != 0; }
    static __device__ int count(slots s)
    {
        uint64_t t = s.lo | s.lo >> 1 | s.lo >> 2 | s.lo >> 3;
        return __popcll(t & 0x1111111ull);
    }
};

/* 16 slots of a byte; the type in its own array. */
struct byte16 {
    typedef uint4 site_t;
    static const int BITS = 8, CAP = 16;
    static const int SWEEP_BLOCKS_PER_SM = 6; /* 8 would spill the 16-byte sites */
    static const int FUSED_BLOCKS_PER_SM = 5; /* one block fewer: the reactions' registers */
    static const bool QUADS = false;
    static const bool WARP_LISTS = false; /* a site at once: the warp's form would spill */
    static const int REACT_SITES = 8;     /* 16 spill the 16-byte sites */
    static const bool REACT_KEEPS = false; /* 32 KB of shared memory a block */
    static __device__ slots unpack(site_t w)
    {
        return {w.x | (uint64_t)w.y << 32, w.z | (uint64_t)w.w << 32};
    }
    static __device__ int type(site_t, const uint8_t *types, size_t i) { return types[i]; }
    static __device__ site_t pack(slots s, int)
    {
        return make_uint4((uint32_t)s.lo, (uint32_t)(s.lo >> 32), (uint32_t)s.hi,
                          (uint32_t)(s.hi >> 32));
    }
    static __device__ site_t empty() { return make_uint4(0, 0, 0, 0); }
    static __device__ bool occupied(site_t w) { return (w.x | w.y | w.z | w.w) != 0; }
    static __device__ int count(slots s)
    {
        uint64_t a = s.lo | s.lo >> 4, b = s.hi | s.hi >> 4;
        a |= a >> 2, b |= b >> 2;
        a |= a >> 1, b |= b >> 1;
        return __popcll(a & 0x0101010101010101ull) + __popcll(b & 0x0101010101010101ull);
    }
};

template <int BITS> __device__ int slot_species(slots s, int k)
{
    int bit = k * BITS;
    return (int)((bit < 64 ? s.lo >> bit : s.hi >> (bit - 64)) & ((1u << BITS) - 1));
}

template <int BITS> __device__ void slot_set(slots *s, int k, int sp)
{
    int bit = k * BITS;
    if (bit < 64)
        s->lo |= (uint64_t)sp << bit;
    else
        s->hi |= (uint64_t)sp << (bit - 64);
}

/* Slot k removed, the slots above it moved down one. */
template <int BITS> __device__ slots slot_remove(slots s, int k)
{
    int bit = k * BITS;
    slots down = {s.lo >> BITS | s.hi << (64 - BITS), s.hi >> BITS};
    uint64_t keep_lo = bit >= 64 ? ~0ull : bit == 0 ? 0 : (1ull << bit) - 1;
    uint64_t keep_hi = bit <= 64 ? 0 : (1ull << (bit - 64)) - 1;
    return {(s.lo & keep_lo) | (down.lo & ~keep_lo), (s.hi & keep_hi) | (down.hi & ~keep_hi)};
}

__device__ uint32_t draw_word(sb_rng_block r, int k)
{
    switch (k & 3) {
    case 0: return r.v[0];
    case 1: return r.v[1];
    case 2: return r.v[2];
    default: return r.v[3];
    }
}

/* Appends a particle that did not fit in `site` (global index), unless the site is a halo site:
 * its owner pushes the same entry. */
__device__ void overflow_push(const rd_step &a, int pass, size_t site, int rank, int sp)
{
    if (site < a.sink.first || site >= a.sink.end)
        return;
    unsigned int i = atomicAdd(a.sink.count, 1u);
    if (i < a.sink.capacity)
        a.sink.entries[i] = RD_OVF_ENTRY(pass, site, rank, sp);
}

/* A site's new content, built slot by slot; what does not fit overflows. `site_of()` gives the
 * site's global index, which only an overflow needs. */
template <class F> struct gather {
    slots s;
    int n, rank;
    __device__ gather() : s{0, 0}, n(0), rank(0) {}
    template <class SiteOf> __device__ void add(const rd_step &a, int pass, SiteOf site_of, int sp)
    {
        if (n < F::CAP)
            slot_set<F::BITS>(&s, n++, sp);
        else
            overflow_push(a, pass, site_of(), rank++, sp);
    }
    /* After the site's last add: where particles overflowed, the steps of the graph body after
     * this one do nothing (rd_step.runs; every such site stores the same). Here, once a site,
     * not in overflow_push: a store in each of its inlined copies cost the sweeps instructions
     * on every site (docs/limits.md, "Undone"). */
    __device__ void end_step(const rd_step &a)
    {
        if (rank && a.runs)
            *a.runs = a.body_step + 1;
    }
    /* the particles of s whose bit is set in moves (bit k: slot k) */
    template <class SiteOf>
    __device__ void add_selected(const rd_step &a, int pass, SiteOf site_of, slots from,
                                 int nfrom, uint32_t moves)
    {
        /* only the selected slots, lowest first (ffs): a loop as long as the particles moved */
        for (uint32_t sel = moves & ((1u << nfrom) - 1); sel; sel &= sel - 1)
            add(a, pass, site_of, slot_species<F::BITS>(from, __ffs(sel) - 1));
    }
};

/* The step the kernels draw for: from device memory under a graph. Read where it is used, not at
 * the kernel's start: a value live through the loads costs the sweep its spill-free 32
 * registers (as do the block's plane and index offset, computed late for the same reason). */
__device__ __forceinline__ long long step_of(const rd_step &a)
{
    return a.step_at ? *a.step_at + a.body_step : a.step;
}

/* Moves of the particles of one site: bit k = slot k moves -, bit 16 + k = moves +. */
template <class F>
__device__ uint32_t move_mask(const rd_step &a, int axis, size_t site, slots s, int n, int type,
                              int type_minus, int type_plus)
{
    uint32_t mask = 0;
    sb_rng_block r;
    for (int k = 0; k < n; k++) {
        if ((k & 3) == 0)
            r = rd_draw(a.seed, step_of(a), site, (uint32_t)axis, (uint32_t)(k >> 2));
        int sp = slot_species<F::BITS>(s, k);
        int d = rd_move(draw_word(r, k), __ldg(&a.threshold[RD_THRESHOLD_INDEX(sp, type, type_minus)]),
                        __ldg(&a.threshold[RD_THRESHOLD_INDEX(sp, type, type_plus)]));
        mask |= d < 0 ? 1u << k : d > 0 ? 1u << (16 + k) : 0u;
    }
    return mask;
}

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

/* The reaction of one site (at most one fires), given its global index and type: true when one
 * fired, *w then holding the site's new content. AHEAD: the previous step's reaction, done by
 * this step's x-sweep as it loads the site (sweep_strips_x<true>); where its products would not
 * fit, nothing is changed and this step stops there (*a.runs: the steps before it ran, the last
 * of them without its reactions, which react<..., true> then does with their overflow). */
template <class F, bool AHEAD = false>
__device__ bool react_site(const rd_step &a, const rd_reaction_table *t, size_t global, int type,
                           typename F::site_t *w)
{
    slots s = F::unpack(*w);
    int n = F::count(s);
    sb_rng_block draw =
        rd_draw(a.seed, step_of(a) - (AHEAD ? 1 : 0), global, RD_PURPOSE_REACTION, 0);
    /* AHEAD (the table a kernel argument): most sites end at the bound's test */
    if (AHEAD && det_sub(1.0, sb_uniform_open0(draw.v[0], draw.v[1])) >= t->no_fire[type][n])
        return false;
    rd_counts count = {{0, 0}};
    for (int k = 0; k < n; k++)
        rd_count_add(&count, slot_species<F::BITS>(s, k));
    int r = rd_choose_reaction(t, &count, type, draw);
    if (r < 0)
        return false;
    if constexpr (AHEAD) {
        if (n - t->order[r] + t->nproducts[r] > F::CAP) {
            atomicMin(a.runs, a.body_step);
            return false;
        }
    }
    for (int q = 0; q < t->order[r]; q++) {
        int sp = q == 0 ? t->a[r] : t->b[r];
        for (int k = n - 1; k >= 0; k--)
            if (slot_species<F::BITS>(s, k) == sp) {
                s = slot_remove<F::BITS>(s, k);
                n--;
                break;
            }
    }
    gather<F> g;
    g.s = s;
    g.n = n;
    for (int q = 0; q < t->nproducts[r]; q++)
        g.add(a, RD_PURPOSE_REACTION, [=] { return global; }, t->product[r][q]);
    g.end_step(a);
    *w = F::pack(g.s, type);
    return true;
}

/* c moved back into 0 .. len - 1 when it is one site outside (periodic edges). */
__device__ __forceinline__ int wrap(int c, int len)
{
    return c < 0 ? c + len : c >= len ? c - len : c;
}

/* The lattice plane of an x- or y-sweep block: buffer plane plane_lo + blockIdx.z. */
__device__ __forceinline__ int block_plane(const rd_step &a, int plane_lo)
{
    return wrap(a.slab.z0 - a.slab.halo + (int)blockIdx.z + plane_lo, a.nz);
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

/* The sites of a quad of packed32 words that hold particles, a bit each. */
__device__ __forceinline__ unsigned quad_occupied(uint4 q)
{
    return (q.x & 0x0fffffffu ? 1u : 0u) | (q.y & 0x0fffffffu ? 2u : 0u) |
           (q.z & 0x0fffffffu ? 4u : 0u) | (q.w & 0x0fffffffu ? 8u : 0u);
}

/* The types of a quad of packed32 words, a byte each: RD_OUTSIDE for the sites whose bit in
 * `lanes` is clear (not loaded: outside the lattice). */
__device__ __forceinline__ uint32_t quad_types(uint4 q, unsigned lanes)
{
    return (lanes & 1 ? q.x >> 28 : RD_OUTSIDE) | (lanes & 2 ? q.y >> 28 : RD_OUTSIDE) << 8 |
           (lanes & 4 ? q.z >> 28 : RD_OUTSIDE) << 16 | (lanes & 8 ? q.w >> 28 : RD_OUTSIDE) << 24;
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

/* One sweep along AXIS: load the window, decide the moves of its occupied sites, gather.
 * A thread owns one column u of the tile (x) and ROWS sites down it, 4 apart; the aprons (the
 * sites just before and after the tile along the swept axis) are loaded by the first threads.
 * x- and y-sweep blocks each do one buffer plane (plane_lo + blockIdx.z); z-sweep blocks one row
 * y (blockIdx.z) of the slab's own planes. */
template <class F, int AXIS, bool REACT = false>
__global__ void __launch_bounds__(BLOCK, REACT ? F::FUSED_BLOCKS_PER_SM : F::SWEEP_BLOCKS_PER_SM)
    sweep(const typename F::site_t *__restrict__ in, typename F::site_t *__restrict__ out,
          rd_step a, int plane_lo, const rd_reaction_table *__restrict__ reactions,
          unsigned long long *fired)
{
    typedef tile<AXIS> T;
    const int VSTEP = BLOCK / T::TW, ROWS = T::TH / VSTEP;
    sb_await_previous_kernel();
    sb_launch_next_kernel();
    const int APRON = AXIS == 0 ? T::TH : T::TW; /* sites per apron */
    __shared__ typename F::site_t win[T::N];
    __shared__ uint8_t wtype[T::N];
    __shared__ uint32_t mask[T::N];
    __shared__ uint16_t occupied[T::N];
    __shared__ uint16_t busy[T::TW * T::TH];
    __shared__ int noccupied, nbusy, nreacting, nfired;
    const uint8_t *__restrict__ types = a.types;
    int len = AXIS == 0 ? a.nx : AXIS == 1 ? a.ny : a.slab.planes; /* along the swept axis */
    /* the tile's second in-plane axis v: y for the x-sweep, the swept axis otherwise */
    int vlen = AXIS == 0 ? a.ny : len;
    size_t plane = (size_t)a.nx * a.ny, vstride = AXIS == 2 ? plane : (size_t)a.nx;
    /* buffer index of the block's first site (x- and y-sweeps: buffer plane plane_lo +
     * blockIdx.z; z-sweep: row blockIdx.z, own planes after the halo) */
    size_t third = AXIS == 2 ? (size_t)a.nx * blockIdx.z + plane * a.slab.halo
                             : plane * (blockIdx.z + plane_lo);
    /* the z-sweep of a slab reads its halo planes where a whole lattice wraps around */
    bool zhalo = AXIS == 2 && a.slab.halo;
    int x0 = blockIdx.x * T::TW, v0 = blockIdx.y * T::TH;
    int tu = threadIdx.x % T::TW, tv = threadIdx.x / T::TW, x = x0 + tu;

    /* every load of the thread issued before any is used: memory-level parallelism */
    typename F::site_t v[ROWS + 1];
    size_t site[ROWS + 1];
    bool inside[ROWS + 1];
#pragma unroll
    for (int k = 0; k < ROWS; k++) {
        int c = v0 + tv + VSTEP * k, cx = x;
        bool ok = cx < a.nx && c < vlen;
        if (AXIS == 0 && a.periodic && cx == a.nx) {
            cx = 0; /* the + neighbour of the last site, wrapped */
            ok = c < vlen;
        } else if (AXIS != 0 && c == len && cx < a.nx) {
            if (zhalo) /* the halo plane after: there when the lattice goes on or wraps */
                ok = a.periodic || a.slab.z0 + len < a.nz;
            else if (a.periodic) {
                c = 0;
                ok = true;
            }
        }
        inside[k] = ok;
        site[k] = cx + third + (size_t)c * vstride;
        v[k] = ok ? in[site[k]] : F::empty();
    }
    int apron_w = -1;
    if (threadIdx.x < 2 * APRON) {
        int side = threadIdx.x / APRON, along = threadIdx.x % APRON;
        int c = AXIS == 0 ? (side ? x0 + T::TW : x0 - 1) : (side ? v0 + T::TH : v0 - 1);
        int cx = AXIS == 0 ? c : x0 + along, cv = AXIS == 0 ? v0 + along : c;
        int ok = AXIS == 0 ? cv < a.ny : cx < a.nx;
        if (c < 0 || c >= len) {
            if (zhalo)
                ok = ok && c <= len &&
                     (a.periodic || (c < 0 ? a.slab.z0 > 0 : a.slab.z0 + len < a.nz));
            else {
                ok = ok && a.periodic && c <= len;
                c = c < 0 ? len - 1 : 0;
                (AXIS == 0 ? cx : cv) = c;
            }
        }
        inside[ROWS] = ok;
        site[ROWS] = cx + third + (size_t)cv * vstride; /* unsigned wrap-around for cv = -1 */
        v[ROWS] = ok ? in[site[ROWS]] : F::empty();
        apron_w = AXIS == 0 ? along * T::WW + (side ? T::WW - 1 : 0)
                            : (side ? T::WH - 1 : 0) * T::WW + along;
    }
    if (step_skipped(a))
        return;
    if (threadIdx.x == 0)
        noccupied = nbusy = nreacting = nfired = 0;
    __syncthreads();
    /* the thread's window sites: rows w0, w0 + wstride, ..., then its apron site. byte16
     * recomputes each where used: kept live, they would cost its sweeps registers (spills) */
    const int wstride = VSTEP * T::WW;
    const int w0 = AXIS == 0 ? tv * T::WW + tu + 1 : (tv + 1) * T::WW + tu;
    unsigned held = 0; /* bit k: site k holds particles */
#pragma unroll
    for (int k = 0; k <= ROWS; k++) {
        int r = tv + VSTEP * k;
        int w = k == ROWS                ? apron_w
                : F::WARP_LISTS          ? w0 + k * wstride
                : AXIS == 0              ? r * T::WW + tu + 1
                                         : (r + 1) * T::WW + tu;
        if (w < 0)
            continue;
        win[w] = v[k];
        wtype[w] = (uint8_t)(inside[k] ? F::type(v[k], types, site[k]) : RD_OUTSIDE);
        mask[w] = 0;
        if (inside[k] && F::occupied(v[k])) {
            if (F::WARP_LISTS)
                held |= 1u << k;
            else
                occupied[atomicAdd(&noccupied, 1)] = (uint16_t)w;
        }
    }
    if (F::WARP_LISTS)
        append_sites<ROWS + 1>(occupied, &noccupied, held, w0, wstride, apron_w);
    __syncthreads();
    /* sites with nothing in or next to them are written at once (unless a reaction without
     * reactants may fire in them); the others go to a list the block gathers from densely, 32
     * such sites to a warp */
    bool every_site = REACT && reactions->has_order0;
    unsigned gathered = 0; /* bit k: row k goes to the list */
#pragma unroll
    for (int k = 0; k < ROWS; k++) {
        int r = tv + VSTEP * k;
        int w = F::WARP_LISTS ? w0 + k * wstride
                : AXIS == 0   ? r * T::WW + tu + 1
                              : (r + 1) * T::WW + tu;
        if (x >= a.nx || v0 + r >= vlen)
            continue;
        if (!every_site && !F::occupied(win[w]) && !F::occupied(win[w - T::STEP]) &&
            !F::occupied(win[w + T::STEP]))
            out[x + third + (size_t)(v0 + r) * vstride] = F::pack(slots{0, 0}, wtype[w]);
        else if (F::WARP_LISTS)
            gathered |= 1u << k;
        else
            busy[atomicAdd(&nbusy, 1)] = (uint16_t)w;
    }
    if (F::WARP_LISTS)
        append_sites<ROWS>(busy, &nbusy, gathered, w0, wstride);
    decide_moves<F, T>(a, occupied, noccupied, win, wtype, mask, x0, v0, plane_lo);
    __syncthreads();
    /* an owned site: inside the lattice, never wrapped */
    auto site_at = [&](int w) {
        int r = AXIS == 0 ? w / T::WW : w / T::WW - 1, u = AXIS == 0 ? w % T::WW - 1 : w % T::WW;
        return out + x0 + u + third + (size_t)(v0 + r) * vstride;
    };
    gather_listed<F, T, REACT, !REACT>(a, busy, nbusy, win, wtype, mask, x0, v0, plane_lo,
                                       every_site, occupied, &nreacting, site_at);
    if (!REACT)
        return;
    __syncthreads(); /* the z-sweep's reactions, from the sites just written (L1) */
    react_listed<F, T>(a, reactions, occupied, nreacting, wtype, x0, v0, plane_lo, &nfired, fired,
                       site_at);
}

/* A sweep of sweep<packed32, AXIS, REACT> (the same tiles, lists, draws and gathers, so the same
 * lattice bit for bit) where every row of the lattice is whole quads of 4 sites (nx % 4 == 0): a
 * thread loads, tests and stores a quad at once, and the block assembles its result in shared
 * memory to write it in quads, so what every site pays (index arithmetic, window stores) is paid
 * once a quad. Without reactions each quad is staged as it was, and only the sites the moves
 * change are gathered (changes<>); with them (the fused z-sweep) every site with particles in or
 * next to it is, as sweep<> does, since the reactions need every occupied site listed again.
 * A thread owns one quad of one tile row. The aprons: in the y- and z-sweeps two rows of quads,
 * loaded by the first threads; in the x-sweep a site each side of every row, loaded by warp 0,
 * the window's rows padded so that its quads are 16-byte aligned (tile<0, true>). mask is written
 * for the occupied sites only: a gather reads an empty site's mask under a slot count of 0, which
 * selects nothing. */
template <int AXIS, bool REACT = false>
__global__ void __launch_bounds__(BLOCK, REACT ? packed32::FUSED_BLOCKS_PER_SM
                                               : packed32::SWEEP_BLOCKS_PER_SM)
    sweep_quads(const uint4 *__restrict__ in, uint4 *__restrict__ out, rd_step a, int plane_lo,
                const rd_reaction_table *__restrict__ reactions, unsigned long long *fired)
{
    typedef tile<AXIS, true> T;
    static_assert(T::WW % 4 == 0 && T::X0 % 4 == 0 && T::TW * T::TH == 4 * BLOCK, "a quad a thread");
    const int QW = T::TW / 4, WQ = T::WW / 4; /* quads per tile row, per window row */
    __shared__ uint4 win4[T::N / 4], outs4[T::TW * T::TH / 4];
    __shared__ uint32_t wtype4[T::N / 4];
    __shared__ uint32_t mask[T::N];
    /* the lists, and without reactions a spare slot a thread past their ends (append_sites) */
    const int SPARES = REACT ? 0 : BLOCK;
    __shared__ uint16_t occupied[T::N + SPARES];
    __shared__ uint16_t busy[T::TW * T::TH + SPARES];
    __shared__ int noccupied, nbusy, nreacting, nfired;
    /* without reactions, busy lists the sites the moves change (changes<>), each marked here */
    __shared__ uint32_t marked[REACT ? 1 : mark_words<T>()];
    uint32_t *win = (uint32_t *)win4;
    uint8_t *wtype = (uint8_t *)wtype4;
    uint32_t *outs = (uint32_t *)outs4;
    sb_await_previous_kernel();
    sb_launch_next_kernel();
    /* along the swept axis, and along the tile's second in-plane axis v */
    int len = AXIS == 0 ? a.nx : AXIS == 1 ? a.ny : a.slab.planes, vlen = AXIS == 0 ? a.ny : len;
    size_t plane = (size_t)a.nx * a.ny, vstride = AXIS == 2 ? plane : (size_t)a.nx;
    size_t third = AXIS == 2 ? (size_t)a.nx * blockIdx.z + plane * a.slab.halo
                             : plane * (blockIdx.z + plane_lo);
    bool zhalo = AXIS == 2 && a.slab.halo;
    int x0 = blockIdx.x * T::TW, v0 = blockIdx.y * T::TH;
    int qu = threadIdx.x % QW, r = threadIdx.x / QW, x = x0 + 4 * qu;

    /* the own quad (bit k of `lanes`: its site k is loaded), as sweep<> loads its sites */
    int c = v0 + r, cx = x;
    unsigned lanes = x < a.nx && c < vlen ? 0xfu : 0u;
    if (AXIS == 0 && a.periodic && x == a.nx && c < vlen) {
        cx = 0; /* the + neighbour of the row's last site, wrapped: its first site only */
        lanes = 1u;
    } else if (AXIS != 0 && c == len && x < a.nx) {
        if (zhalo)
            lanes = a.periodic || a.slab.z0 + len < a.nz ? 0xfu : 0u;
        else if (a.periodic) {
            c = 0;
            lanes = 0xfu;
        }
    }
    uint4 v = lanes ? in[(cx + third + (size_t)c * vstride) / 4] : make_uint4(0, 0, 0, 0);
    if (AXIS == 0 && lanes == 1u)
        v.y = v.z = v.w = 0;
    /* the aprons: y and z a quad each (threads 0 .. 2 QW - 1), x a site each (warp 0) */
    bool apron_ok = false;
    uint4 av = make_uint4(0, 0, 0, 0);
    int apron_w = -1;
    if (threadIdx.x < 2 * (AXIS == 0 ? T::TH : QW)) {
        int side = AXIS == 0 ? threadIdx.x / T::TH : threadIdx.x / QW;
        int along = AXIS == 0 ? threadIdx.x % T::TH : threadIdx.x % QW;
        int ac = AXIS == 0 ? (side ? x0 + T::TW : x0 - 1) : (side ? v0 + T::TH : v0 - 1);
        int ax = AXIS == 0 ? ac : x0 + 4 * along, av_ = AXIS == 0 ? v0 + along : ac;
        apron_ok = AXIS == 0 ? av_ < vlen : ax < a.nx;
        if (ac < 0 || ac >= len) {
            if (zhalo)
                apron_ok = apron_ok && ac <= len &&
                           (a.periodic || (ac < 0 ? a.slab.z0 > 0 : a.slab.z0 + len < a.nz));
            else {
                apron_ok = apron_ok && a.periodic && ac <= len;
                ac = ac < 0 ? len - 1 : 0;
                (AXIS == 0 ? ax : av_) = ac;
            }
        }
        /* unsigned wrap-around for av_ = -1 (the halo plane before) */
        size_t at = ax + third + (size_t)av_ * vstride;
        if (AXIS == 0)
            av.x = apron_ok ? ((const uint32_t *)in)[at] : 0u;
        else
            av = apron_ok ? in[at / 4] : make_uint4(0, 0, 0, 0);
        apron_w = AXIS == 0 ? along * T::WW + (side ? T::LAST : T::FIRST)
                            : (side ? T::WH - 1 : 0) * T::WW + 4 * along;
    }
    if (step_skipped(a))
        return;
    if (threadIdx.x == 0)
        noccupied = nbusy = nreacting = nfired = 0;
    if (!REACT && threadIdx.x < mark_words<T>())
        marked[threadIdx.x] = 0;
    __syncthreads();
    int w0 = (r + T::V0) * T::WW + T::X0 + 4 * qu; /* the own quad's first window site */
    win4[w0 / 4] = v;
    wtype4[w0 / 4] = quad_types(v, lanes);
    outs4[r * QW + qu] = v; /* what a site keeps unless a gather writes it */
    append_sites<4, !REACT>(occupied, &noccupied, quad_occupied(v), w0, 1, -1,
                            T::N + threadIdx.x);
    if (threadIdx.x < 32) { /* warp 0: the aprons */
        if (apron_w >= 0 && AXIS == 0) {
            win[apron_w] = av.x;
            wtype[apron_w] = apron_ok ? av.x >> 28 : RD_OUTSIDE;
        } else if (apron_w >= 0) {
            win4[apron_w / 4] = av;
            wtype4[apron_w / 4] = quad_types(av, apron_ok ? 0xfu : 0u);
        }
        append_sites<4>(occupied, &noccupied, quad_occupied(av), apron_w, 1);
    }
    __syncthreads();
    bool own = x < a.nx && v0 + r < vlen, every_site = REACT && reactions->has_order0;
    if (REACT) {
        /* a site with nothing in or next to it keeps its word (it holds only its type) unless
         * a reaction without reactants may fire there; the others go to the gathers' list */
        uint4 near;
        if (AXIS == 0) {
            uint32_t before = win[w0 - 1], after = win[w0 + 4];
            near = make_uint4(before | v.x | v.y, v.x | v.y | v.z, v.y | v.z | v.w,
                              v.z | v.w | after);
        } else {
            uint4 before = win4[w0 / 4 - WQ], after = win4[w0 / 4 + WQ];
            near = make_uint4(v.x | before.x | after.x, v.y | before.y | after.y,
                              v.z | before.z | after.z, v.w | before.w | after.w);
        }
        append_sites<4>(busy, &nbusy, own ? (every_site ? 0xfu : quad_occupied(near)) : 0u, w0,
                        1);
        decide_moves<packed32, T>(a, occupied, noccupied, win, wtype, mask, x0, v0, plane_lo);
    } else {
        /* the gathers' list: the sites the moves change */
        auto owned = owned_sites<T>(x0, v0, a.nx, vlen);
        decide_moves<packed32, T>(a, occupied, noccupied, win, wtype, mask, x0, v0, plane_lo,
                                  changes<T, decltype(owned)>{busy, &nbusy, marked, owned});
    }
    __syncthreads();
    /* window site w's place in the staged tile (y, z: the row before, as the window is as wide) */
    auto site_at = [&](int w) {
        return outs + (AXIS == 0 ? w / T::WW * T::TW + w % T::WW - T::X0 : w - T::WW);
    };
    gather_listed<packed32, T, REACT, !REACT>(a, busy, nbusy, win, wtype, mask, x0, v0,
                                              plane_lo, every_site, occupied, &nreacting,
                                              site_at);
    __syncthreads();
    if (REACT)
        react_listed<packed32, T>(a, reactions, occupied, nreacting, wtype, x0, v0, plane_lo,
                                  &nfired, fired, site_at);
    if (own)
        out[(x + third + (size_t)(v0 + r) * vstride) / 4] = outs4[r * QW + qu];
}

/* The y- and z-sweeps of packed32 lattices whose rows are whole quads, at least STRIP_MIN_NX
 * sites wide (the red blood cell): each warp sweeps a strip of its own, 128 sites along x (a quad
 * a lane) by STRIP_ROWS rows along the swept axis, with __syncwarp and no block barrier. It walks
 * the strip STRIP_BATCH rows at a time through a ring of STRIP_RING rows in shared memory (the
 * batch, the row before it and the two after): loads the new rows, draws the moves of the
 * occupied sites of the rows it has not drawn (a warp-wide list: 32 sites a pass), writes every
 * site as it was, lists the sites the moves change and gathers those a lane each over what it
 * wrote. The same
 * draws and gathers as sweep_quads, so the same lattice bit for bit; what it saves is every
 * site's share of a block's window, lists and barriers (sweep_quads: about 130 thread
 * instructions a site on the red blood cell at 8 nm, H200). Row j of the strip is lattice row
 * v0 + j along the swept axis; rows -1 and STRIP_ROWS are its aprons. */
#define STRIP_WARPS 4
#define STRIP_ROWS 32
#define STRIP_BATCH 5
#define STRIP_RING 8 /* >= STRIP_BATCH + 3, a power of two */
#define STRIP_MIN_NX 128
#define STRIP_LIST ((STRIP_BATCH + 2) * 128) /* the first batch draws rows -1 .. STRIP_BATCH */
static_assert(STRIP_BATCH + 3 <= STRIP_RING && (STRIP_RING & (STRIP_RING - 1)) == 0,
              "the ring holds a batch, the row before and the two after");

/* The strip kernels address a warp's part of the block's shared memory by 32-bit offsets from a
 * base the warp holds in a register (smem_base) and these accessors. Through C++ arrays ptxas
 * rebuilt an array's address in the CTA's shared window (five uniform instructions) at almost
 * every access; it does not recompute a shuffle's result. The strips ran 8-11 % fewer
 * instructions and took 3-8 % less (H100; docs/limits.md, "The strips' shared memory through a
 * register"). */
__device__ __forceinline__ uint32_t smem_base(const void *p)
{
    return __shfl_sync(0xffffffffu, (uint32_t)__cvta_generic_to_shared(p), 0);
}
__device__ __forceinline__ uint32_t lds16(uint32_t at)
{
    uint16_t v;
    asm volatile("ld.shared.u16 %0, [%1];" : "=h"(v) : "r"(at) : "memory");
    return v;
}
__device__ __forceinline__ uint32_t lds32(uint32_t at)
{
    uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(at) : "memory");
    return v;
}
__device__ __forceinline__ uint2 lds64(uint32_t at)
{
    uint2 v;
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "r"(at) : "memory");
    return v;
}
__device__ __forceinline__ uint4 lds128(uint32_t at)
{
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(at)
                 : "memory");
    return v;
}
__device__ __forceinline__ void sts16(uint32_t at, uint32_t v)
{
    asm volatile("st.shared.u16 [%0], %1;" ::"r"(at), "h"((uint16_t)v) : "memory");
}
__device__ __forceinline__ void sts32(uint32_t at, uint32_t v)
{
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(at), "r"(v) : "memory");
}
__device__ __forceinline__ void sts64(uint32_t at, uint2 v)
{
    asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(at), "r"(v.x), "r"(v.y) : "memory");
}
__device__ __forceinline__ void sts128(uint32_t at, uint4 v)
{
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(at), "r"(v.x), "r"(v.y),
                 "r"(v.z), "r"(v.w)
                 : "memory");
}

/* A lane's exclusive prefix sum of v over the warp; *total: the warp's sum. */
__device__ __forceinline__ int warp_prefix(int v, int *total)
{
    int lane = threadIdx.x & 31, sum = v;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        int t = __shfl_up_sync(0xffffffffu, sum, d);
        if (lane >= d)
            sum += t;
    }
    *total = __shfl_sync(0xffffffffu, sum, 31);
    return sum - v;
}

/* Appends to a warp's list of 16-bit entries (in shared memory at list_at) an entry for each bit
 * b set in `bits` (nibble n: a row, bit k of it: the lane's site k), as entry(n, k); returns the
 * list's length. Every lane of the warp calls it. */
template <class Entry>
__device__ __forceinline__ int warp_list(uint32_t list_at, uint32_t bits, Entry entry)
{
    int total, at = warp_prefix(__popc(bits), &total);
    for (; bits; bits &= bits - 1) {
        int b = __ffs(bits) - 1;
        sts16(list_at + 2 * at++, entry(b >> 2, b & 3));
    }
    return total;
}

/* gather<packed32> of one site in 32-bit words: its stayers, then the + movers of the site
 * before and the - movers of the site after, each in slot order (one loop over the 21 selected
 * slots, where the generic form runs three over 64-bit slots); the same word and overflow
 * entries. moves: bits 0-6 the slots that move -, 8-14 those that move +. */
template <bool ABORT = false, class SiteOf>
__device__ __forceinline__ uint32_t gather_packed(const rd_step &a, int pass, SiteOf site_of,
                                                  uint32_t self, uint32_t before, uint32_t after,
                                                  uint32_t m_self, uint32_t m_before,
                                                  uint32_t m_after)
{
    auto held = [](uint32_t w) { /* (1 << the site's particles) - 1 */
        uint32_t t = w | w >> 1 | w >> 2 | w >> 3;
        return (1u << __popc(t & 0x1111111u)) - 1;
    };
    uint32_t sel = (~(m_self | m_self >> 8) & held(self)) | (m_before >> 8 & held(before)) << 7 |
                   (m_after & held(after)) << 14;
    uint32_t word = 0;
    int n = 0, rank = 0;
    for (; sel; sel &= sel - 1) {
        int b = __ffs(sel) - 1;
        uint32_t from = b >= 14 ? after : b >= 7 ? before : self;
        int k = b >= 14 ? b - 14 : b >= 7 ? b - 7 : b;
        uint32_t sp = from >> 4 * k & 0xfu;
        if (n < packed32::CAP)
            word |= sp << 4 * n++;
        else if constexpr (ABORT)
            rank++;
        else
            overflow_push(a, pass, site_of(), rank++, (int)sp);
    }
    if (rank && a.runs) {
        if constexpr (ABORT) /* the step stops before this sweep, which the next body redoes */
            atomicMin(a.runs, a.body_step);
        else
            *a.runs = a.body_step + 1;
    }
    return word | (self & 0xf0000000u);
}

/* A y- or z-strip warp's shared memory: its ring (ring row s's sites: words and moves, a site's
 * moves in 16 bits: bits 0-6 its slots that move -, bits 8-14 those that move +) and its list. */
struct strip_smem {
    uint4 words[STRIP_RING * 32];
    uint2 moves[STRIP_RING * 32];
    uint16_t list[STRIP_LIST];
};

template <int AXIS>
__global__ void __launch_bounds__(32 * STRIP_WARPS, 7)
    sweep_strips(const uint4 *__restrict__ in, uint4 *__restrict__ out, rd_step a, int plane_lo)
{
    static_assert(AXIS == 1 || AXIS == 2, "strips sweep along y or z");
    __shared__ strip_smem warps_smem[STRIP_WARPS];
    sb_await_previous_kernel();
    sb_launch_next_kernel();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int len = AXIS == 1 ? a.ny : a.slab.planes; /* along the swept axis */
    const int v0 = (blockIdx.y * STRIP_WARPS + warp) * STRIP_ROWS;
    if (v0 >= len || step_skipped(a))
        return;
    /* shared addresses: ring row s's site p and its moves, the lane's quad of row s and its
     * moves, the list */
    const uint32_t base = smem_base(&warps_smem[warp]);
    auto word_at = [=](int s, int p) { return base + 4 * (s * 128 + p); };
    auto move_at = [=](int s, int p) {
        return base + (uint32_t)offsetof(strip_smem, moves) + 2 * (s * 128 + p);
    };
    auto quad_at = [=](int s) { return base + 16 * (s * 32 + lane); };
    auto quad_moves_at = [=](int s) {
        return base + (uint32_t)offsetof(strip_smem, moves) + 8 * (s * 32 + lane);
    };
    const uint32_t list_at = base + (uint32_t)offsetof(strip_smem, list);
    const size_t plane = (size_t)a.nx * a.ny, vstride = AXIS == 2 ? plane : (size_t)a.nx;
    const size_t third = AXIS == 2 ? (size_t)a.nx * blockIdx.z + plane * a.slab.halo
                                   : plane * (blockIdx.z + plane_lo);
    const bool zhalo = AXIS == 2 && a.slab.halo;
    const int x0 = blockIdx.x * 128, x = x0 + 4 * lane;
    const bool lane_in = x < a.nx;
    const int rows = min(STRIP_ROWS, len - v0); /* the strip's own rows */
    /* buffer index of the strip's row 0, column 0; own row j is j * vstride on */
    const size_t strip0 = x0 + third + (size_t)v0 * vstride;
    auto slot = [](int j) { return (j + 1) & (STRIP_RING - 1); };
    /* buffer index of strip row j's (-1 .. rows) column 0, *ok: whether the row is loaded (an
     * apron outside a reflecting lattice, or past a slab with no halo there, is not) */
    auto buffer_row = [&](int j, bool *ok) {
        int c = v0 + j;
        *ok = true;
        if (c < 0 || c >= len) {
            if (zhalo)
                *ok = a.periodic || (c < 0 ? a.slab.z0 > 0 : a.slab.z0 + len < a.nz);
            else {
                *ok = a.periodic;
                c = c < 0 ? len - 1 : 0;
            }
        }
        return third + (size_t)c * vstride; /* unsigned wrap-around for c = -1 */
    };
    /* the global index of strip row j's site at column x0 + p */
    auto global_site = [&](int j, int p) {
        int c = v0 + j;
        size_t base = AXIS == 1 ? plane * block_plane(a, plane_lo) : (size_t)a.nx * blockIdx.z;
        size_t along = AXIS == 1 ? (size_t)wrap(c, a.ny) * a.nx : wrap(a.slab.z0 + c, a.nz) * plane;
        return base + along + (size_t)(x0 + p);
    };

    uint32_t occupied = 0; /* nibble slot(j): the lane's sites of ring row j that hold particles */
    unsigned loaded_ok = 0; /* bit slot(j): ring row j was loaded */
    auto fetch = [&](int j, uint4 *v, bool *ok) {
        size_t at = buffer_row(j, ok);
        *v = *ok && lane_in ? in[(x + at) / 4] : make_uint4(0, 0, 0, 0);
    };
    auto keep = [&](int j, uint4 v, bool ok) {
        int s = slot(j);
        sts128(quad_at(s), v);
        sts64(quad_moves_at(s), make_uint2(0, 0));
        occupied = (occupied & ~(0xfu << 4 * s)) | quad_occupied(v) << 4 * s;
        loaded_ok = (loaded_ok & ~(1u << s)) | (unsigned)ok << s;
    };
    /* the first batch's rows, -1 .. its last and the row after, every load issued first */
    int loaded = min(min(STRIP_BATCH, rows) + 1, rows), drawn = -2;
    {
        uint4 q[STRIP_RING];
        bool ok[STRIP_RING];
#pragma unroll
        for (int r = 0; r < STRIP_RING; r++)
            if (r - 1 <= loaded)
                fetch(r - 1, &q[r], &ok[r]);
#pragma unroll
        for (int r = 0; r < STRIP_RING; r++)
            if (r - 1 <= loaded)
                keep(r - 1, q[r], ok[r]);
    }
    /* each later batch's new rows, loaded while the batch before works */
    uint4 next[STRIP_BATCH];
    bool next_ok[STRIP_BATCH];
    int fetched = loaded;
    for (int t0 = 0; t0 < rows; t0 += STRIP_BATCH) {
        const int hi = min(t0 + STRIP_BATCH, rows); /* gathers rows t0 .. hi - 1 */
#pragma unroll
        for (int r = 0; r < STRIP_BATCH; r++)
            if (loaded + 1 + r <= fetched)
                keep(loaded + 1 + r, next[r], next_ok[r]);
        loaded = fetched;
        fetched = min(min(hi + STRIP_BATCH, rows) + 1, rows);
#pragma unroll
        for (int r = 0; r < STRIP_BATCH; r++)
            if (loaded + 1 + r <= fetched)
                fetch(loaded + 1 + r, &next[r], &next_ok[r]);
        /* the moves of rows drawn + 1 .. hi: the rows on both sides of each are in the ring */
        uint32_t rows_to_draw = 0;
        for (int j = drawn + 1; j <= hi; j++)
            rows_to_draw |= 0xfu << 4 * slot(j);
        const int first = drawn + 1;
        int n = warp_list(list_at, occupied & rows_to_draw, [&](int s, int k) {
            int j = first + ((s - slot(first)) & (STRIP_RING - 1));
            return (uint16_t)((j + 1) << 7 | (4 * lane + k));
        });
        drawn = hi;
        __syncwarp();
        for (int i0 = 0; i0 < n; i0 += 32) {
            if (i0 + lane >= n)
                break;
            int e = (int)lds16(list_at + 2 * (i0 + lane)), j = (e >> 7) - 1, p = e & 127;
            uint32_t w = lds32(word_at(slot(j), p));
            int before = j > -1 && (loaded_ok >> slot(j - 1) & 1)
                             ? (int)(lds32(word_at(slot(j - 1), p)) >> 28)
                             : RD_OUTSIDE;
            int after = j < loaded && (loaded_ok >> slot(j + 1) & 1)
                            ? (int)(lds32(word_at(slot(j + 1), p)) >> 28)
                            : RD_OUTSIDE;
            slots sl = packed32::unpack(w);
            uint32_t m = move_mask<packed32>(a, AXIS, global_site(j, p), sl, packed32::count(sl),
                                             (int)(w >> 28), before, after);
            sts16(move_at(slot(j), p), (m & 0x7fu) | (m >> 8 & 0x7f00u));
        }
        __syncwarp();
        /* the sites the moves change; every site written as it was */
        uint32_t changed = 0; /* nibble j - t0 */
        uint2 m_before = lds64(quad_moves_at(slot(t0 - 1)));
        uint2 m_self = lds64(quad_moves_at(slot(t0)));
        for (int j = t0; j < hi; j++) {
            uint2 m_after = lds64(quad_moves_at(slot(j + 1)));
            uint2 in_or_out = make_uint2(m_self.x | (m_before.x >> 8 & 0x00ff00ffu) |
                                             (m_after.x & 0x00ff00ffu),
                                         m_self.y | (m_before.y >> 8 & 0x00ff00ffu) |
                                             (m_after.y & 0x00ff00ffu));
            unsigned c = (in_or_out.x & 0xffffu ? 1u : 0u) | (in_or_out.x >> 16 ? 2u : 0u) |
                         (in_or_out.y & 0xffffu ? 4u : 0u) | (in_or_out.y >> 16 ? 8u : 0u);
            if (lane_in) { /* the gathers overwrite the sites that change, after a __syncwarp */
                out[strip0 / 4 + lane + (size_t)j * (vstride / 4)] = lds128(quad_at(slot(j)));
                changed |= c << 4 * (j - t0);
            }
            m_before = m_self;
            m_self = m_after;
        }
        __syncwarp();
        n = warp_list(list_at, changed, [&](int r, int k) {
            return (uint16_t)((t0 + r + 1) << 7 | (4 * lane + k));
        });
        __syncwarp();
        for (int i0 = 0; i0 < n; i0 += 32) {
            if (i0 + lane >= n)
                break;
            int e = (int)lds16(list_at + 2 * (i0 + lane)), j = (e >> 7) - 1, p = e & 127;
            int sb = slot(j - 1), ss = slot(j), sa = slot(j + 1);
            auto site_of = [&] {
                int jo = j;
                asm volatile("" : "+r"(jo));
                return global_site(jo, p);
            };
            ((uint32_t *)out)[strip0 + p + (size_t)(unsigned)j * vstride] = gather_packed(
                a, AXIS, site_of, lds32(word_at(ss, p)), lds32(word_at(sb, p)),
                lds32(word_at(sa, p)), lds16(move_at(ss, p)), lds16(move_at(sb, p)),
                lds16(move_at(sa, p)));
        }
        __syncwarp();
    }
}

/* The x-sweep in the same way, where sweep_strips serves the y- and z-sweeps: each warp a strip of
 * 128 sites along x by STRIP_ROWS rows along y, STRIP_X_BATCH rows at a time. Its rows are
 * independent, so a batch holds just its rows, each with an apron site at either end (lane r
 * loads row r's before, lane 16 + r the one after); where a row ends inside the strip on a periodic
 * lattice, the quad past its end holds the wrapped first site alone, as in sweep_quads. Batch row
 * r's site p (-1 .. 128, the aprons included) is at r * X_ROW + X_AT + p.
 *
 * REACT (stage gpu-fused, graph body steps after the first): the previous step's reactions too,
 * each occupied site's (the aprons' as well, with the same draws) applied in shared memory before
 * its moves are drawn, so that the reactions' own pass over the lattice goes. The step's input
 * stays as it was: where a reaction's products or the sweep's particles do not fit, the kernel
 * stops the body at this step (*a.runs) and pushes nothing, and the body's react<..., true> does
 * the previous step's reactions (docs/rdme.md). Reactions fired go to ahead[body_step - 1]:
 * counted once react<..., true> knows which steps ran. */
#define STRIP_X_BATCH 6
#define X_AT 4
#define X_ROW 136 /* X_AT + 128 sites + the apron after, in whole quads */
#ifndef STRIP_X_REACT_BLOCKS
#define STRIP_X_REACT_BLOCKS 5
#endif
#ifndef STRIP_X_REACT_BATCH
#define STRIP_X_REACT_BATCH 6
#endif

/* An x-strip warp's shared memory: its batch (words and moves, as strip_smem's) and its list. */
template <int BATCH> struct strip_x_smem {
    uint4 words[BATCH * X_ROW / 4];
    uint2 moves[BATCH * X_ROW / 4];
    uint16_t list[BATCH * 130];
};

template <bool REACT, int BATCH = REACT ? STRIP_X_REACT_BATCH : STRIP_X_BATCH>
__global__ void __launch_bounds__(32 * STRIP_WARPS, REACT ? STRIP_X_REACT_BLOCKS : 7)
    sweep_strips_x(const uint4 *__restrict__ in, uint4 *__restrict__ out, rd_step a, int plane_lo,
                   const __grid_constant__ reactions_arg<REACT> reactions,
                   unsigned long long *ahead)
{
    static_assert(BATCH <= 16, "lane r loads row r's apron before, lane 16 + r the one after");
    __shared__ strip_x_smem<BATCH> warps_smem[STRIP_WARPS];
    sb_await_previous_kernel();
    sb_launch_next_kernel();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int v0 = (blockIdx.y * STRIP_WARPS + warp) * STRIP_ROWS;
    if (v0 >= a.ny || step_skipped(a))
        return;
    /* shared addresses of batch site e (r * X_ROW + X_AT + p): its word, its moves */
    const uint32_t base = smem_base(&warps_smem[warp]);
    auto word_at = [=](int e) { return base + 4 * e; };
    auto move_at = [=](int e) {
        return base + (uint32_t)offsetof(strip_x_smem<BATCH>, moves) + 2 * e;
    };
    const uint32_t list_at = base + (uint32_t)offsetof(strip_x_smem<BATCH>, list);
    const int nx = a.nx, x0 = blockIdx.x * 128, x = x0 + 4 * lane;
    int fired = 0; /* REACT: the reactions of the lattice's own sites that fired here */
    const size_t third = (size_t)nx * a.ny * (blockIdx.z + plane_lo);
    const int rows = min(STRIP_ROWS, a.ny - v0);
    const size_t row0 = third + (size_t)v0 * nx; /* the strip's row 0 */
    const size_t strip0 = x0 + row0;             /* its column 0; row r is r * nx on */
    const bool lane_in = x < nx;
    /* the lane's quad: the row's sites, or past the row's end on a periodic lattice the wrapped
     * first site alone */
    const bool wrapped = a.periodic && x == nx;
    /* The aprons, a lane a batch row's: lane r (< BATCH) the site before row r, lane 16 + r the
     * site after, so that a batch's aprons are one load and one store. Loaded where the site is
     * in the lattice (or wraps round a periodic one), else 0: the gathers read it. */
    const int apron_row = lane & 15;
    int apron_x = lane < 16 ? x0 - 1 : x0 + 128;
    bool apron_ok = apron_row < BATCH;
    if (apron_x < 0 || apron_x >= nx) {
        apron_ok = apron_ok && a.periodic && apron_x <= nx;
        apron_x = apron_x < 0 ? nx - 1 : 0;
    }
    const int apron_at = apron_row * X_ROW + (lane < 16 ? X_AT - 1 : X_AT + 128);
    /* whether strip column p (-1 .. 128) is a lattice site here (a wrapped one included) */
    auto inside = [&](int p) {
        int col = x0 + p;
        return (unsigned)col < (unsigned)nx || (a.periodic && (col == -1 || col == nx));
    };
    /* the global index of strip row `row`'s site at column p */
    auto global_site = [&](int row, int p) {
        return (size_t)wrap(x0 + p, nx) +
               (size_t)nx * (v0 + row + (size_t)a.ny * block_plane(a, plane_lo));
    };
    /* Row 0's quad and apron, the next batch's loaded from them by an offset: the edge tests
     * once, not in every row's load (ptxas recomputed them there, about 45 instructions a row). */
    const uint4 *quad0 = in + ((wrapped ? 0 : x) + row0) / 4;
    const uint32_t *apron0 = (const uint32_t *)in + apron_x + row0 + (size_t)apron_row * nx;
    const bool quad_ok = lane_in || wrapped;
    /* nothing here uses the loaded data (a wrapped quad's other sites are zeroed where the batch
     * is stored): a use would wait for each load in turn, not while the batch before works */
    uint4 next[BATCH];
    uint32_t next_apron;
    auto fetch = [&](int t) { /* rows t .. t + BATCH - 1 */
#pragma unroll
        for (int r = 0; r < BATCH; r++)
            next[r] = quad_ok && t + r < rows ? quad0[(size_t)(t + r) * (nx / 4)]
                                              : make_uint4(0, 0, 0, 0);
        next_apron = apron_ok && t + apron_row < rows ? apron0[(size_t)t * nx] : 0u;
    };
    fetch(0);
    for (int t0 = 0; t0 < rows; t0 += BATCH) {
        const int n_rows = min(BATCH, rows - t0);
        uint32_t occupied = 0; /* nibble r: batch row r's */
#pragma unroll
        for (int r = 0; r < BATCH; r++) {
            if (r >= n_rows)
                break;
            uint4 q = next[r];
            if (wrapped)
                q.y = q.z = q.w = 0;
            sts128(word_at(r * X_ROW + X_AT + 4 * lane), q);
            sts64(move_at(r * X_ROW + X_AT + 4 * lane), make_uint2(0, 0));
            occupied |= quad_occupied(q) << 4 * r;
        }
        if (apron_row < BATCH) { /* 0 where not loaded, and past the strip's last row */
            sts32(word_at(apron_at), next_apron);
            sts16(move_at(apron_at), 0);
        }
        const unsigned apron_held = apron_row < n_rows && (next_apron & 0x0fffffffu) ? 1u : 0u;
        /* the next batch's rows, loaded while this one works */
        if (t0 + BATCH < rows)
            fetch(t0 + BATCH);
        /* the moves of every occupied site of the batch, the aprons' too */
        int n = warp_list(list_at, occupied, [&](int r, int k) {
            return (uint16_t)(r * X_ROW + X_AT + 4 * lane + k);
        });
        n += warp_list(list_at + 2 * n, apron_held, [&](int, int) { return (uint16_t)apron_at; });
        __syncwarp();
        for (int i0 = 0; i0 < n; i0 += 32) {
            bool listed = i0 + lane < n;
            if (!REACT && !listed)
                break;
            int e = 0, r = 0, p = 0;
            uint32_t w = 0;
            bool reacted = false;
            if (listed) {
                e = (int)lds16(list_at + 2 * (i0 + lane));
                r = e / X_ROW;
                p = e - r * X_ROW - X_AT;
                w = lds32(word_at(e));
                size_t site = global_site(t0 + r, p);
                if constexpr (REACT) {
                    reacted = react_site<packed32, true>(a, table_of(reactions), site,
                                                         (int)(w >> 28), &w);
                    /* the lattice's own sites count, not an apron or a wrapped copy */
                    fired += reacted && p >= 0 && p < 128 && x0 + p < nx;
                }
                /* the neighbours' types: a reaction keeps a site's type */
                int before =
                    p > -1 && inside(p - 1) ? (int)(lds32(word_at(e - 1)) >> 28) : RD_OUTSIDE;
                int after =
                    p < 128 && inside(p + 1) ? (int)(lds32(word_at(e + 1)) >> 28) : RD_OUTSIDE;
                slots sl = packed32::unpack(w);
                uint32_t m = move_mask<packed32>(a, 0, site, sl, packed32::count(sl),
                                                 (int)(w >> 28), before, after);
                sts16(move_at(e), (m & 0x7fu) | (m >> 8 & 0x7f00u));
            }
            if constexpr (REACT) {
                /* the new word once no lane reads the old one, and read by the next pass's
                 * lanes (a neighbour's type) only after it is written: racecheck reported the
                 * read of the next pass otherwise */
                __syncwarp();
                if (reacted)
                    sts32(word_at(e), w);
                __syncwarp();
            }
        }
        __syncwarp();
        /* the sites the moves change; every site written as it was */
        uint32_t changed = 0; /* nibble r */
        uint4 *row_out = out + strip0 / 4 + lane + (size_t)t0 * (nx / 4);
        for (int r = 0; r < n_rows; r++, row_out += nx / 4) {
            int at = r * X_ROW + X_AT + 4 * lane;
            uint2 m = lds64(move_at(at));
            uint32_t mb = lds16(move_at(at - 1)), ma = lds16(move_at(at + 4));
            /* site k changes where its own particles move, the + movers of k - 1 or the - movers
             * of k + 1 come in */
            uint32_t m0 = m.x & 0xffffu, m1 = m.x >> 16, m2 = m.y & 0xffffu, m3 = m.y >> 16;
            unsigned c = (m0 | (mb >> 8) | (m1 & 0xffu) ? 1u : 0u) |
                         (m1 | (m0 >> 8) | (m2 & 0xffu) ? 2u : 0u) |
                         (m2 | (m1 >> 8) | (m3 & 0xffu) ? 4u : 0u) |
                         (m3 | (m2 >> 8) | (ma & 0xffu) ? 8u : 0u);
            if (lane_in) { /* the gathers overwrite the sites that change, after a __syncwarp */
                *row_out = lds128(word_at(at));
                changed |= c << 4 * r;
            }
        }
        __syncwarp();
        n = warp_list(list_at, changed, [&](int r, int k) {
            return (uint16_t)(r * X_ROW + X_AT + 4 * lane + k);
        });
        __syncwarp();
        for (int i0 = 0; i0 < n; i0 += 32) {
            if (i0 + lane >= n)
                break;
            int e = (int)lds16(list_at + 2 * (i0 + lane)), r = e / X_ROW, p = e - r * X_ROW - X_AT;
            auto site_of = [&] {
                int ro = r;
                asm volatile("" : "+r"(ro));
                return global_site(t0 + ro, p);
            };
            ((uint32_t *)out)[strip0 + p + (size_t)(unsigned)(t0 + r) * nx] = gather_packed<REACT>(
                a, 0, site_of, lds32(word_at(e)), lds32(word_at(e - 1)), lds32(word_at(e + 1)),
                lds16(move_at(e)), lds16(move_at(e - 1)), lds16(move_at(e + 1)));
        }
        __syncwarp();
    }
    if (REACT && fired)
        atomicAdd(&ahead[a.body_step - 1], (unsigned long long)fired);
}

/* The x- and then the y-sweep of whole planes of packed32 sites, one block of XY_THREADS per plane
 * (stage gpu-fused, where a plane is at most XY_SIDE x XY_SIDE sites in rows of whole quads: the
 * Min system's 64 x 64). Each phase is sweep_quads on a tile of the whole plane (the same
 * windows, lists, draws and gathers: the same lattice bit for bit), but the x-sweep's result
 * stays in shared memory as the y-sweep's window: a step's two in-plane sweeps are one kernel,
 * one load and one store of the lattice. On a small lattice each sweep is one wave of blocks, and
 * a wave's launch, barriers and tail are most of its time. A thread owns one quad of the plane;
 * sites outside the lattice (x >= nx or y >= ny) are outside sites of both windows. */
#define XY_SIDE 64
#define XY_THREADS (XY_SIDE * XY_SIDE / 4)
typedef tile<0, true, XY_SIDE, XY_SIDE, XY_THREADS> xy_tile_x;
typedef tile<1, true, XY_SIDE, XY_SIDE, XY_THREADS> xy_tile_y;
/* dynamic shared memory: the two windows, the masks, the changed sites' marks, the types, the
 * two lists (each with a spare slot a thread: append_sites) */
static const int XY_MARK_WORDS = mark_words<xy_tile_x>();
static_assert(mark_words<xy_tile_y>() <= XY_MARK_WORDS, "the y-sweep's marks fit");
static const size_t XY_SHARED =
    4 * (xy_tile_x::N + xy_tile_y::N + xy_tile_x::N + XY_MARK_WORDS) + xy_tile_x::N +
    2 * (xy_tile_x::N + XY_SIDE * XY_SIDE + 2 * XY_THREADS);

__global__ void __launch_bounds__(XY_THREADS, 2)
    sweep_xy(const uint4 *__restrict__ in, uint4 *__restrict__ out, rd_step a, int plane_lo)
{
    typedef xy_tile_x TX;
    typedef xy_tile_y TY;
    const int QW = XY_SIDE / 4; /* quads per plane row */
    static_assert(2 * QW == 32, "warp 0 loads the y-sweep's two apron rows");
    extern __shared__ uint4 xy_shared[];
    /* xwin: the x-sweep's window, then the y-sweep's staged result; ywin: the x-sweep's staged
     * result, which is the y-sweep's window (rows 1 .. ny; its aprons are rows 0 and ny + 1) */
    uint4 *xwin4 = xy_shared, *ywin4 = xwin4 + TX::N / 4;
    uint32_t *xwin = (uint32_t *)xwin4, *ywin = (uint32_t *)ywin4;
    uint32_t *mask = ywin + TY::N;
    uint32_t *marked = mask + TX::N;
    uint32_t *wtype4 = marked + XY_MARK_WORDS;
    uint8_t *wtype = (uint8_t *)wtype4;
    const int OCCUPIED = TX::N + XY_THREADS; /* occupied's entries and spare slots */
    uint16_t *occupied = (uint16_t *)(wtype + TX::N), *busy = occupied + OCCUPIED;
    __shared__ int noccupied, nbusy, ynoccupied, ynbusy;
    sb_await_previous_kernel();
    sb_launch_next_kernel();
    int nx = a.nx, ny = a.ny;
    size_t third = (size_t)nx * ny * (blockIdx.z + plane_lo);
    int qu = threadIdx.x % QW, r = threadIdx.x / QW, x = 4 * qu;
    bool own = x < nx && r < ny;

    /* the x-sweep: sweep_quads<0>'s loads (the own quad; a site each side of every row) */
    unsigned lanes = own ? 0xfu : 0u;
    int cx = x;
    if (a.periodic && x == nx && r < ny) {
        cx = 0; /* the + neighbour of the row's last site, wrapped: its first site only */
        lanes = 1u;
    }
    uint4 v = lanes ? in[(cx + third + (size_t)r * nx) / 4] : make_uint4(0, 0, 0, 0);
    if (lanes == 1u)
        v.y = v.z = v.w = 0;
    bool apron_ok = false;
    uint32_t av = 0;
    int apron_w = -1;
    if (threadIdx.x < 2 * TX::TH) {
        int side = threadIdx.x / TX::TH, row = threadIdx.x % TX::TH;
        int ac = side ? TX::TW : -1;
        apron_ok = row < ny;
        if (ac < 0 || ac >= nx) {
            apron_ok = apron_ok && a.periodic && ac <= nx;
            ac = ac < 0 ? nx - 1 : 0;
        }
        av = apron_ok ? ((const uint32_t *)in)[ac + third + (size_t)row * nx] : 0u;
        apron_w = row * TX::WW + (side ? TX::LAST : TX::FIRST);
    }
    if (step_skipped(a))
        return;
    if (threadIdx.x == 0)
        noccupied = nbusy = ynoccupied = ynbusy = 0;
    if (threadIdx.x < XY_MARK_WORDS)
        marked[threadIdx.x] = 0;
    __syncthreads();
    int w0 = r * TX::WW + TX::X0 + 4 * qu;
    xwin4[w0 / 4] = v;
    wtype4[w0 / 4] = quad_types(v, lanes);
    ywin4[(r + 1) * QW + qu] = v; /* what a site keeps unless a gather writes it */
    append_sites<4, true>(occupied, &noccupied, quad_occupied(v), w0, 1, -1, TX::N + threadIdx.x);
    if (threadIdx.x < 2 * TX::TH) { /* whole warps: the aprons */
        xwin[apron_w] = av;
        wtype[apron_w] = apron_ok ? av >> 28 : RD_OUTSIDE;
        append_sites<1>(occupied, &noccupied, (av & 0x0fffffffu) != 0, apron_w, 1);
    }
    __syncthreads();
    auto xowned = owned_sites<TX>(0, 0, nx, ny);
    decide_moves<packed32, TX>(a, occupied, noccupied, xwin, wtype, mask, 0, 0, plane_lo,
                               changes<TX, decltype(xowned)>{busy, &nbusy, marked, xowned});
    __syncthreads();
    gather_listed<packed32, TX, false, false>(
        a, busy, nbusy, xwin, wtype, mask, 0, 0, plane_lo, false, nullptr, nullptr,
        [&](int w) { return ywin + (w / TX::WW + 1) * TY::WW + w % TX::WW - TX::X0; });
    __syncthreads();

    /* the y-sweep: its window is ywin, whose outside sites and aprons are set here as
     * sweep_quads<1> loads them (row ny + 1 and the aprons wrapped from rows 1 and ny when the
     * edges are periodic). Each position written here is read by no other thread before the
     * barrier. */
    bool wrapped = a.periodic && r == ny && x < nx; /* the row after the last: row 0's copy */
    unsigned ylanes = own || wrapped ? 0xfu : 0u;
    uint4 q = own ? ywin4[(r + 1) * QW + qu] : wrapped ? ywin4[QW + qu] : make_uint4(0, 0, 0, 0);
    int yw0 = (r + 1) * TY::WW + 4 * qu;
    ywin4[yw0 / 4] = q;
    wtype4[yw0 / 4] = quad_types(q, ylanes);
    xwin4[r * QW + qu] = q; /* what a site keeps unless a gather writes it */
    if (threadIdx.x < XY_MARK_WORDS) /* the x-sweep's marks are done with */
        marked[threadIdx.x] = 0;
    append_sites<4, true>(occupied, &ynoccupied, quad_occupied(q), yw0, 1, -1,
                          TX::N + threadIdx.x);
    if (threadIdx.x < 32) { /* warp 0: the apron rows 0 and XY_SIDE + 1, a quad a thread */
        int side = threadIdx.x / QW, ac = side ? TY::TH : -1;
        bool ok = x < nx;
        if (ac < 0 || ac >= ny) {
            ok = ok && a.periodic && ac <= ny;
            ac = ac < 0 ? ny - 1 : 0;
        }
        uint4 aq = ok ? ywin4[(ac + 1) * QW + qu] : make_uint4(0, 0, 0, 0);
        int aw = (side ? TY::WH - 1 : 0) * TY::WW + 4 * qu;
        ywin4[aw / 4] = aq;
        wtype4[aw / 4] = quad_types(aq, ok ? 0xfu : 0u);
        append_sites<4>(occupied, &ynoccupied, quad_occupied(aq), aw, 1);
    }
    __syncthreads();
    auto yowned = owned_sites<TY>(0, 0, nx, ny);
    decide_moves<packed32, TY>(a, occupied, ynoccupied, ywin, wtype, mask, 0, 0, plane_lo,
                               changes<TY, decltype(yowned)>{busy, &ynbusy, marked, yowned});
    __syncthreads();
    gather_listed<packed32, TY, false, false>(a, busy, ynbusy, ywin, wtype, mask, 0, 0, plane_lo,
                                              false, nullptr, nullptr,
                                              [&](int w) { return xwin + w - TY::WW; });
    __syncthreads();
    if (own)
        out[(x + third + (size_t)r * nx) / 4] = xwin4[r * QW + qu];
}

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

/* Counts per species of the slab's own planes: a block row per plane, added to the rows of their
 * lattice planes. */
template <class F>
__global__ void count_planes(const typename F::site_t *__restrict__ lattice, rd_step a,
                             int nspecies, uint32_t *planes)
{
    __shared__ unsigned int tally[RD_MAX_SPECIES + 1];
    for (int sp = threadIdx.x; sp <= nspecies; sp += blockDim.x)
        tally[sp] = 0;
    __syncthreads();
    size_t plane = (size_t)a.nx * a.ny, first = (a.slab.halo + (size_t)blockIdx.y) * plane;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < plane;
         i += (size_t)gridDim.x * blockDim.x) {
        slots s = F::unpack(lattice[first + i]);
        int n = F::count(s);
        for (int k = 0; k < n; k++)
            atomicAdd(&tally[slot_species<F::BITS>(s, k)], 1u);
        if (n)
            atomicAdd(&tally[0], (unsigned int)n);
    }
    __syncthreads();
    uint32_t *row = planes + (size_t)(a.slab.z0 + blockIdx.y) * (nspecies + 1);
    for (int sp = threadIdx.x; sp <= nspecies; sp += blockDim.x)
        if (tally[sp])
            atomicAdd(&row[sp], tally[sp]);
}

/* The end of a graph body of `steps` steps, of which bounds->runs ran (step_skipped). */
__global__ void step_done(cudaGraphConditionalHandle loop, long long *step, rd_loop_bounds *bounds,
                          const unsigned int *overflow_count, int steps)
{
    sb_await_previous_kernel();
    sb_launch_next_kernel();
    long long now = *step + bounds->runs, left = bounds->stop - now;
    *step = now;
    bounds->runs = left < steps ? (int)left : steps;
    sb_graph_loop_continue(loop, *overflow_count == 0 && left > 0);
}

__global__ void step_advance(long long *step)
{
    *step += 1;
}

/* ---- launches ---- */

void rd_report_steady(const rd_model *m, double *loop_seconds, int runs, sb_steady *steady)
{
    steady->runs = sb_steady_median(loop_seconds, runs, &steady->seconds);
    if (steady->runs == 0)
        return;
    steady->items = (double)m->nsites * (double)m->steps;
    steady->bytes = rd_floor_bytes_per_step(m) * (double)m->steps;
    steady->simulated_seconds = (double)m->steps * m->tau;
}

/* A sweep's grid: tiles over x and the tile's second axis, then `third` block rows. */
template <int AXIS> static dim3 sweep_grid(const rd_step *a, int second, int third)
{
    typedef tile<AXIS> T;
    return dim3((a->nx + T::TW - 1) / T::TW, (second + T::TH - 1) / T::TH, third);
}

static long long blocks_of(dim3 grid)
{
    return (long long)grid.x * grid.y * grid.z;
}

int rd_chain_if_one_wave(rd_site_format f, rd_step *a, int dev)
{
    int sms;
    cudaFuncAttributes kernels;
    SB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    /* the kernels wait only where compiled for sm_90 or later: a build for an older architecture
     * that a Hopper runs from its PTX has no wait, and must not be chained */
    SB_CUDA(cudaFuncGetAttributes(&kernels, step_done));
    int per_sm = f == RD_PACKED32 ? packed32::SWEEP_BLOCKS_PER_SM : byte16::SWEEP_BLOCKS_PER_SM;
    long long wave = (long long)sms * per_sm;
    a->chained = kernels.ptxVersion >= 90 &&
                 blocks_of(sweep_grid<0>(a, a->ny, a->slab.planes)) <= wave &&
                 blocks_of(sweep_grid<1>(a, a->ny, a->slab.planes)) <= wave &&
                 blocks_of(sweep_grid<2>(a, a->slab.planes, a->ny)) <= wave;
    return 0;
}

int rd_graph_step_done(cudaGraphConditionalHandle loop, long long *step, rd_loop_bounds *bounds,
                       const unsigned int *overflow_count, int steps, int chained,
                       cudaStream_t st)
{
    SB_LAUNCH_OK(sb_launch_kernel(step_done, dim3(1), 1, 0, chained, st, loop, step, bounds,
                                  overflow_count, steps),
                 "step_done");
    return 0;
}

int rd_graph_step_advance(long long *step, cudaStream_t st)
{
    step_advance<<<1, 1, 0, st>>>(step);
    SB_LAUNCHED("step_advance");
    return 0;
}

/* Room for one particle per site (more than one step overflows in practice: a site gains at
 * most what its two neighbours hold, and overflow makes room), up to 2^24 entries (128 MiB). */
unsigned int rd_overflow_capacity(const rd_model *m)
{
    size_t cap = m->nsites + 4096;
    return cap > (1u << 24) ? 1u << 24 : (unsigned int)cap;
}


/* Whether packed32 buffers in and out go by quads: rows of whole quads, 16-byte aligned. */
static bool rows_of_quads(const rd_step *a, const void *in, const void *out)
{
    return a->nx % 4 == 0 && ((uintptr_t)in | (uintptr_t)out) % 16 == 0;
}

/* The grid of the strip kernels: 128 sites along x, a block's STRIP_WARPS strips of STRIP_ROWS
 * rows along the swept axis (len sites), `third` planes. */
static dim3 strip_grid(const rd_step *a, int len, unsigned third)
{
    int per_block = STRIP_WARPS * STRIP_ROWS;
    return dim3((a->nx + 127) / 128, (len + per_block - 1) / per_block, third);
}

/* sweep_quads in sweep<>'s place where it applies: packed32, rows of whole quads and 16-byte
 * aligned buffers; false elsewhere. */
template <class F, int AXIS, bool REACT, bool APPLIES = F::QUADS> struct quad_sweep {
    static bool launch(dim3, const void *, void *, const rd_step *, int, cudaStream_t,
                       const rd_reaction_table *, unsigned long long *, cudaError_t *)
    {
        return false;
    }
    static int load(void) { return 0; }
};
template <class F, int AXIS, bool REACT> struct quad_sweep<F, AXIS, REACT, true> {
    static bool launch(dim3 grid, const void *in, void *out, const rd_step *a, int plane_lo,
                       cudaStream_t st, const rd_reaction_table *t, unsigned long long *fired,
                       cudaError_t *e)
    {
        if (!rows_of_quads(a, in, out))
            return false;
        if (!REACT && a->nx >= STRIP_MIN_NX) {
            dim3 strips = strip_grid(a, AXIS == 2 ? a->slab.planes : a->ny, grid.z);
            if (AXIS == 0)
                *e = sb_launch_kernel(sweep_strips_x<false>, strips, 32 * STRIP_WARPS, 0,
                                      a->chained, st, (const uint4 *)in, (uint4 *)out, *a,
                                      plane_lo, (reactions_arg<false>)NULL,
                                      (unsigned long long *)NULL);
            else
                *e = sb_launch_kernel(AXIS == 1 ? sweep_strips<1> : sweep_strips<2>, strips,
                                      32 * STRIP_WARPS, 0, a->chained, st, (const uint4 *)in,
                                      (uint4 *)out, *a, plane_lo);
            return true;
        }
        *e = sb_launch_kernel(sweep_quads<AXIS, REACT>, grid, BLOCK, 0, a->chained, st,
                              (const uint4 *)in, (uint4 *)out, *a, plane_lo, t, fired);
        return true;
    }
    static int load(void)
    {
        cudaFuncAttributes attr;
        SB_CUDA(cudaFuncGetAttributes(&attr, sweep_quads<AXIS, REACT>));
        if (!REACT && AXIS == 0) {
            SB_CUDA(cudaFuncGetAttributes(&attr, sweep_strips_x<false>));
            SB_CUDA(cudaFuncGetAttributes(&attr, sweep_strips_x<true>));
        } else if (!REACT)
            SB_CUDA(cudaFuncGetAttributes(&attr, AXIS == 1 ? sweep_strips<1> : sweep_strips<2>));
        return 0;
    }
};

/* Whether the current device gives a block sweep_xy's shared memory: 1, 0, or -1 with
 * sb_error(). */
static int xy_fits(void)
{
    int dev, optin;
    cudaFuncAttributes attr;
    SB_CUDA(cudaGetDevice(&dev));
    SB_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep_xy));
    return attr.sharedSizeBytes + XY_SHARED <= (size_t)optin;
}

/* Loads sweep_xy and lets it have its shared memory, where the device has that much. */
static int xy_load(void)
{
    int fits = xy_fits();
    if (fits > 0)
        SB_CUDA(cudaFuncSetAttribute(sweep_xy, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)XY_SHARED));
    return fits < 0 ? -1 : 0;
}

template <class F> static int load(void)
{
    cudaFuncAttributes attr;
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep<F, 0>));
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep<F, 1>));
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep<F, 2>));
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep<F, 2, true>));
    SB_CUDA(cudaFuncGetAttributes(&attr, react<F>));
    if constexpr (F::QUADS) {
        SB_CUDA(cudaFuncGetAttributes(&attr, react<F, F::QUADS>));
        SB_CUDA(cudaFuncGetAttributes(&attr, react<F, F::QUADS, true>));
        SB_CUDA(cudaFuncGetAttributes(&attr, react<F, false, true>));
    }
    if (quad_sweep<F, 0, false>::load() || quad_sweep<F, 1, false>::load() ||
        quad_sweep<F, 2, false>::load() || quad_sweep<F, 2, true>::load())
        return -1;
    if (F::QUADS && xy_load() != 0)
        return -1;
    SB_CUDA(cudaFuncGetAttributes(&attr, count_planes<F>));
    SB_CUDA(cudaFuncGetAttributes(&attr, step_done));
    SB_CUDA(cudaFuncGetAttributes(&attr, step_advance));
    return 0;
}

int rd_kernels_load(rd_site_format f)
{
    return f == RD_PACKED32 ? load<packed32>() : load<byte16>();
}

template <class F, int AXIS, bool REACT = false>
static int launch_sweep(const void *in, void *out, const rd_step *a, int second, int third,
                        int plane_lo, cudaStream_t st, const rd_reaction_table *t = NULL,
                        unsigned long long *fired = NULL)
{
    if (third <= 0)
        return 0;
    dim3 grid = sweep_grid<AXIS>(a, second, third);
    cudaError_t e;
    if (!quad_sweep<F, AXIS, REACT>::launch(grid, in, out, a, plane_lo, st, t, fired, &e))
        e = sb_launch_kernel(sweep<F, AXIS, REACT>, grid, BLOCK, 0, a->chained, st,
                             (const typename F::site_t *)in, (typename F::site_t *)out, *a,
                             plane_lo, t, fired);
    SB_LAUNCH_OK(e, REACT       ? "sweep<z>+react"
                    : AXIS == 0 ? "sweep<x>"
                    : AXIS == 1 ? "sweep<y>"
                                : "sweep<z>");
    return 0;
}

template <class F>
static int sweep_planes(int axis, const void *in, void *out, const rd_step *a, int lo, int hi,
                        cudaStream_t st)
{
    return axis == 0 ? launch_sweep<F, 0>(in, out, a, a->ny, hi - lo, lo, st)
                     : launch_sweep<F, 1>(in, out, a, a->ny, hi - lo, lo, st);
}

int rd_sweep_planes(rd_site_format f, int axis, const void *in, void *out, const rd_step *a,
                    int lo, int hi, cudaStream_t st)
{
    return f == RD_PACKED32 ? sweep_planes<packed32>(axis, in, out, a, lo, hi, st)
                            : sweep_planes<byte16>(axis, in, out, a, lo, hi, st);
}

int rd_sweep_xy(rd_site_format f, const void *in, void *mid, void *out, const rd_step *a, int lo,
                int hi, cudaStream_t st)
{
    int fits = 0;
    if (f == RD_PACKED32 && a->nx <= XY_SIDE && a->ny <= XY_SIDE && a->nx % 4 == 0 &&
        ((uintptr_t)in | (uintptr_t)out) % 16 == 0 && (fits = xy_fits()) < 0)
        return -1;
    if (!fits)
        return rd_sweep_planes(f, 0, in, mid, a, lo, hi, st) ||
               rd_sweep_planes(f, 1, mid, out, a, lo, hi, st);
    if (hi <= lo)
        return 0;
    SB_LAUNCH_OK(sb_launch_kernel(sweep_xy, dim3(1, 1, hi - lo), XY_THREADS, XY_SHARED,
                                  a->chained, st, (const uint4 *)in, (uint4 *)out, *a, lo),
                 "sweep<xy>");
    return 0;
}

int rd_sweep_z(rd_site_format f, const void *in, void *out, const rd_step *a, cudaStream_t st)
{
    return f == RD_PACKED32 ? launch_sweep<packed32, 2>(in, out, a, a->slab.planes, a->ny, 0, st)
                            : launch_sweep<byte16, 2>(in, out, a, a->slab.planes, a->ny, 0, st);
}

int rd_sweep_z_react(rd_site_format f, const void *in, void *out, const rd_step *a,
                     const rd_reaction_table *table, unsigned long long *fired, cudaStream_t st)
{
    return f == RD_PACKED32
               ? launch_sweep<packed32, 2, true>(in, out, a, a->slab.planes, a->ny, 0, st, table,
                                                 fired)
               : launch_sweep<byte16, 2, true>(in, out, a, a->slab.planes, a->ny, 0, st, table,
                                               fired);
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

template <class F>
static int launch_count(const void *lattice, const rd_step *a, int nspecies, uint32_t *planes,
                        cudaStream_t st)
{
    size_t plane = (size_t)a->nx * a->ny;
    unsigned blocks = (unsigned)((plane + 255) / 256);
    dim3 grid(blocks > 64 ? 64 : blocks, a->slab.planes);
    count_planes<F><<<grid, 256, 0, st>>>((const typename F::site_t *)lattice, *a, nspecies,
                                          planes);
    SB_LAUNCHED("count_planes");
    return 0;
}

int rd_count_planes(rd_site_format f, const void *lattice, const rd_step *a, int nspecies,
                    uint32_t *planes, cudaStream_t st)
{
    return f == RD_PACKED32 ? launch_count<packed32>(lattice, a, nspecies, planes, st)
                            : launch_count<byte16>(lattice, a, nspecies, planes, st);
}
