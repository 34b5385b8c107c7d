/* The device side of a lattice site that every RDME kernel file shares (kernels.cu,
 * kernels-columns.cu): the site formats as C++ traits over one representation of a site's slots
 * (128 bits: lo, hi), slot access, the gather of a site's new content with its overflow, the
 * step a graph's kernels draw for, and one site's reaction. Included by .cu files only. */
#ifndef RD_KERNELS_SITE_CUH
#define RD_KERNELS_SITE_CUH

#include <stdint.h>

#include "kernels.h"

typedef struct slots {
    uint64_t lo, hi;
} slots;

/* The paper's word: 7 slots of 4 bits, the site type in the top 4 bits. */
struct packed32 {
    typedef uint32_t site_t;
    static const int BITS = 4, CAP = 7;
    static const int SWEEP_BLOCKS_PER_SM = 8; /* 32 registers: full occupancy, no spills */
    static const int FUSED_BLOCKS_PER_SM = 8; /* as many: the reactions spill a little */
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
    static const int FUSED_BLOCKS_PER_SM = 5;
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

/* A site's new content, built slot by slot; what does not fit overflows. */
template <class F> struct gather {
    slots s;
    int n, rank;
    __device__ gather() : s{0, 0}, n(0), rank(0) {}
    __device__ void add(const rd_step &a, int pass, size_t site, int sp)
    {
        if (n < F::CAP)
            slot_set<F::BITS>(&s, n++, sp);
        else
            overflow_push(a, pass, site, rank++, sp);
    }
    /* the particles of s whose bit is set in moves (bit k: slot k) */
    __device__ void add_selected(const rd_step &a, int pass, size_t site, slots from, int nfrom,
                                 uint32_t moves)
    {
        /* only the selected slots, lowest first (ffs): a loop as long as the particles moved */
        for (uint32_t sel = moves & ((1u << nfrom) - 1); sel; sel &= sel - 1)
            add(a, pass, site, slot_species<F::BITS>(from, __ffs(sel) - 1));
    }
};

/* The step the kernels draw for: from device memory under a graph. Read where it is used, not at
 * the kernel's start: a value live through the loads costs the sweep its spill-free 32
 * registers (as do the block's plane and index offset, computed late for the same reason). */
__device__ __forceinline__ long long step_of(const rd_step &a)
{
    return a.step_at ? *a.step_at : a.step;
}

/* The reaction of one site (at most one fires), given its global index and type: true when one
 * fired, *w then holding the site's new content. */
template <class F>
__device__ bool react_site(const rd_step &a, const rd_reaction_table *t, size_t global, int type,
                           typename F::site_t *w)
{
    slots s = F::unpack(*w);
    int n = F::count(s), count[RD_MAX_SPECIES + 1] = {0};
    for (int k = 0; k < n; k++)
        count[slot_species<F::BITS>(s, k)]++;
    int r = rd_choose_reaction(t, count, type,
                               rd_draw(a.seed, step_of(a), global, RD_PURPOSE_REACTION, 0));
    if (r < 0)
        return false;
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
        g.add(a, RD_PURPOSE_REACTION, global, t->product[r][q]);
    *w = F::pack(g.s, type);
    return true;
}

#endif
