/* What every RDME kernel family (the .cu files of kernels/) shares: the site formats, a step's
 * draws and moves, a site's gather and reactions, tile geometry, the lists' ballots. Each
 * family's .cu is a translation unit of its own, and a call into another unit's device code would
 * not be inlined: so every device function here is a template, inline (__forceinline__) or
 * static, compiled into each kernel that calls it, as it was when the families were one file
 * (kernels.cu, split by issue 51 with the same machine code a kernel).
 *
 * The MPD-RDME kernels, as Lattice Microbes runs them: an x-sweep, a y-sweep and a z-sweep, each
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
 * The families, a file each with the launches of its kernels (launch.h), their kernels there or,
 * where two files instantiate them, in a header of the family's:
 *   sweep-window.cu  sweep<>: the generic tile sweeps, either format (sweep-window.cuh,
 *                    window.cuh)
 *   sweep-quads.cu   sweep_quads: packed32 rows of whole quads, a quad a thread
 *                    (sweep-quads.cuh, window.cuh)
 *   sweep-strips.cu  sweep_strips, sweep_strips_x: warp strips (strips.cuh)
 *   sweep-xy.cu      sweep_xy: the x- and y-sweeps of a whole small plane in one block
 *                    (window.cuh)
 *   react.cu         react, the reactions in place, and every sweep that fires reactions: the
 *                    fused z-sweeps (sweep<F, 2, true>, sweep_quads<2, true>) and the x-strips
 *                    with the previous step's reactions (sweep_strips_x<true>), one unit for
 *                    the subroutine they share (react.cu says why)
 *   count-planes.cu  count_planes: the species counts of the samples
 *   step-graph.cu    step_done, step_advance: the ends of a graph's step; chaining
 *   launch.cu        which family sweeps without reactions (rd_sweep_planes, rd_sweep_z), the
 *                    loading of every family's kernels (rd_kernels_load)
 *
 * A buffer is the whole lattice or a z-slab with halo planes (kernels.h); x- and y-sweeps of a
 * slab's halo planes redo what the neighbour does to them, with the same draws, so a z-sweep
 * finds there exactly what the neighbour's own planes hold.
 *
 * The site formats are C++ traits over one representation of a site's slots (128 bits: lo, hi),
 * so the kernels are written once for the packed 32-bit word and the 16-byte site. */
#ifndef RD_KERNELS_COMMON_CUH
#define RD_KERNELS_COMMON_CUH

#include <stdlib.h>

#include <type_traits>

#include "../../../cuda/chain.cuh"
#include "../../../cuda/check.h"
#include "../kernels.h"

#define BLOCK 256 /* threads of a block of sweep<>, sweep_quads and react */

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

static __device__ uint32_t draw_word(sb_rng_block r, int k)
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
static __device__ void overflow_push(const rd_step &a, int pass, size_t site, int rank, int sp)
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

/* A sweep's grid: tiles over x and the tile's second axis, then `third` block rows. */
template <int AXIS> static inline dim3 sweep_grid(const rd_step *a, int second, int third)
{
    typedef tile<AXIS> T;
    return dim3((a->nx + T::TW - 1) / T::TW, (second + T::TH - 1) / T::TH, third);
}

#endif
