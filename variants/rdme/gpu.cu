/* Stage 1: MPD-RDME on one GPU, as Lattice Microbes does it. Per step: an x-sweep, a y-sweep and
 * a z-sweep, each reading one lattice and writing the other through a shared-memory window (a
 * tile plus one apron site each side along the swept axis); then a reaction kernel in place; then
 * the overflow count goes to the host, and when it is not zero the lattice comes to the host, the
 * particles are placed, and the lattice goes back.
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
 * whose two apron rows cost 25 % more reads than the 6 % of 32 rows.
 *
 * The site formats are C++ traits over one representation of a site's slots (128 bits: lo, hi),
 * so the kernels are written once for the packed 32-bit word and the 16-byte site. */
#include <stdlib.h>
#include <string.h>

#include "../../cuda/check.h"
#include "../../cuda/timing.h"
#include "../../harness/error.h"
#include "gpu.h"
#include "table.h"

#define BLOCK 256            /* threads of every kernel here */
#define REACT_SITES_PER_THREAD 8
#define RD_INSTRUMENTED_STEPS 1000 /* steps whose kernels the first run times one by one */

/* Tile of a sweep: TW sites along x by TH along the other in-plane axis (y for the x-sweep, the
 * swept axis for the others). */
template <int AXIS> struct tile {
    static const int TW = AXIS == 0 ? 64 : 32, TH = AXIS == 0 ? 16 : 32;
    static const int WW = AXIS == 0 ? TW + 2 : TW, WH = AXIS == 0 ? TH : TH + 2; /* window */
    static const int N = WW * WH;
    static const int STEP = AXIS == 0 ? 1 : WW; /* window index of the + neighbour */
};

typedef struct slots {
    uint64_t lo, hi;
} slots;

/* The paper's word: 7 slots of 4 bits, the site type in the top 4 bits. */
struct packed32 {
    typedef uint32_t site_t;
    static const int BITS = 4, CAP = 7;
    static const int SWEEP_BLOCKS_PER_SM = 8; /* 32 registers: full occupancy, no spills */
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

/* What every kernel needs to know of the step. */
struct step_args {
    uint32_t seed;
    long long step;
    int nx, ny, nz, periodic;
    const uint32_t *__restrict__ threshold;
    rd_overflow_sink sink;
};

__device__ void overflow_push(const step_args &a, int pass, size_t site, int rank, int sp)
{
    unsigned int i = atomicAdd(a.sink.count, 1u);
    if (i < a.sink.capacity)
        a.sink.entries[i] = RD_OVF_ENTRY(pass, site, rank, sp);
}

/* A site's new content, built slot by slot; what does not fit overflows. */
template <class F> struct gather {
    slots s;
    int n, rank;
    __device__ gather() : s{0, 0}, n(0), rank(0) {}
    __device__ void add(const step_args &a, int pass, size_t site, int sp)
    {
        if (n < F::CAP)
            slot_set<F::BITS>(&s, n++, sp);
        else
            overflow_push(a, pass, site, rank++, sp);
    }
    /* the particles of s whose bit is set in moves (bit k: slot k) */
    __device__ void add_selected(const step_args &a, int pass, size_t site, slots from, int nfrom,
                                 uint32_t moves)
    {
        /* only the selected slots, lowest first (ffs): a loop as long as the particles moved */
        for (uint32_t sel = moves & ((1u << nfrom) - 1); sel; sel &= sel - 1)
            add(a, pass, site, slot_species<F::BITS>(from, __ffs(sel) - 1));
    }
};

/* Moves of the particles of one site: bit k = slot k moves -, bit 16 + k = moves +. */
template <class F>
__device__ uint32_t move_mask(const step_args &a, int axis, size_t site, slots s, int n, int type,
                              int type_minus, int type_plus)
{
    uint32_t mask = 0;
    sb_rng_block r;
    for (int k = 0; k < n; k++) {
        if ((k & 3) == 0)
            r = rd_draw(a.seed, a.step, site, (uint32_t)axis, (uint32_t)(k >> 2));
        int sp = slot_species<F::BITS>(s, k);
        int d = rd_move(draw_word(r, k), __ldg(&a.threshold[RD_THRESHOLD_INDEX(sp, type, type_minus)]),
                        __ldg(&a.threshold[RD_THRESHOLD_INDEX(sp, type, type_plus)]));
        mask |= d < 0 ? 1u << k : d > 0 ? 1u << (16 + k) : 0u;
    }
    return mask;
}

/* The gather of window site w (a thread's own), from the window's sites, types and masks. */
template <class F>
__device__ typename F::site_t gather_site(const step_args &a, int axis, size_t site,
                                          const typename F::site_t *win, const uint8_t *wtype,
                                          const uint32_t *mask, int w, int wstride)
{
    gather<F> g;
    slots self = F::unpack(win[w]), before = F::unpack(win[w - wstride]),
          after = F::unpack(win[w + wstride]);
    uint32_t stay = ~(mask[w] | mask[w] >> 16) & 0xffffu;
    g.add_selected(a, axis, site, self, F::count(self), stay);
    g.add_selected(a, axis, site, before, F::count(before), mask[w - wstride] >> 16);
    g.add_selected(a, axis, site, after, F::count(after), mask[w + wstride] & 0xffffu);
    return F::pack(g.s, wtype[w]);
}

/* Where window position w of a tile lies in the lattice: 1 and its index when it is a lattice site
 * (the apron wrapped when the edges are periodic), 0 when it is outside. The sweep maps its
 * occupied positions again with this rather than keep the index from the load: holding the
 * indices in shared memory and registers cost 4 % of the step (H100, dividing E. coli 8 nm). */
template <int AXIS>
__device__ int window_site(const step_args &a, int w, int x0, int s0, size_t *site)
{
    typedef tile<AXIS> T;
    int wx = w % T::WW, wy = w / T::WW;
    int x = x0 + wx - (AXIS == 0), second = s0 + wy - (AXIS != 0), third = blockIdx.z;
    int len = AXIS == 0 ? a.nx : AXIS == 1 ? a.ny : a.nz;
    int c = AXIS == 0 ? x : second; /* along the swept axis */
    if (c < 0 || c >= len) {
        if (!a.periodic || c < -1 || c > len)
            return 0;
        c = (c + len) % len;
        if (AXIS == 0)
            x = c;
        else
            second = c;
    }
    if (x >= a.nx || (AXIS == 0 && second >= a.ny))
        return 0;
    int y = AXIS == 2 ? third : second, z = AXIS == 2 ? second : third;
    if (AXIS != 2 && y >= a.ny)
        return 0;
    *site = x + (size_t)a.nx * (y + (size_t)a.ny * z);
    return 1;
}

/* One sweep along AXIS: load the window, decide the moves of its occupied sites, gather.
 * A thread owns one column u of the tile (x) and ROWS sites down it, 4 apart; the aprons (the
 * sites just before and after the tile along the swept axis) are loaded by the first threads. */
template <class F, int AXIS>
__global__ void __launch_bounds__(BLOCK, F::SWEEP_BLOCKS_PER_SM)
    sweep(const typename F::site_t *__restrict__ in, typename F::site_t *__restrict__ out,
          const uint8_t *__restrict__ types, step_args a)
{
    typedef tile<AXIS> T;
    const int VSTEP = BLOCK / T::TW, ROWS = T::TH / VSTEP;
    const int APRON = AXIS == 0 ? T::TH : T::TW; /* sites per apron */
    __shared__ typename F::site_t win[T::N];
    __shared__ uint8_t wtype[T::N];
    __shared__ uint32_t mask[T::N];
    __shared__ uint16_t occupied[T::N];
    __shared__ uint16_t busy[T::TW * T::TH];
    __shared__ int noccupied, nbusy;
    int len = AXIS == 0 ? a.nx : AXIS == 1 ? a.ny : a.nz;
    /* the tile's second in-plane axis v: y for the x-sweep, the swept axis otherwise */
    int vlen = AXIS == 0 ? a.ny : len;
    size_t vstride = AXIS == 0 || AXIS == 1 ? (size_t)a.nx : (size_t)a.nx * a.ny;
    size_t third = AXIS == 2 ? (size_t)a.nx * blockIdx.z : (size_t)a.nx * a.ny * blockIdx.z;
    int x0 = blockIdx.x * T::TW, v0 = blockIdx.y * T::TH;
    int tu = threadIdx.x % T::TW, tv = threadIdx.x / T::TW, x = x0 + tu;

    /* every load of the thread issued before any is used: memory-level parallelism */
    typename F::site_t v[ROWS + 1];
    size_t site[ROWS + 1];
    bool inside[ROWS + 1];
#pragma unroll
    for (int k = 0; k < ROWS; k++) {
        int c = v0 + tv + VSTEP * k, cx = x;
        if (AXIS == 0 && a.periodic && cx == a.nx)
            cx = 0; /* the + neighbour of the last site, wrapped */
        else if (AXIS != 0 && a.periodic && c == len)
            c = 0;
        inside[k] = cx < a.nx && c < vlen;
        site[k] = cx + third + (size_t)c * vstride;
        v[k] = inside[k] ? in[site[k]] : F::empty();
    }
    int apron_w = -1;
    if (threadIdx.x < 2 * APRON) {
        int side = threadIdx.x / APRON, along = threadIdx.x % APRON;
        int c = AXIS == 0 ? (side ? x0 + T::TW : x0 - 1) : (side ? v0 + T::TH : v0 - 1);
        int cx = AXIS == 0 ? c : x0 + along, cv = AXIS == 0 ? v0 + along : c;
        int ok = AXIS == 0 ? cv < a.ny : cx < a.nx;
        if (c < 0 || c >= len) {
            ok = ok && a.periodic && c <= len;
            c = c < 0 ? len - 1 : 0;
            (AXIS == 0 ? cx : cv) = c;
        }
        inside[ROWS] = ok;
        site[ROWS] = cx + third + (size_t)cv * vstride;
        v[ROWS] = ok ? in[site[ROWS]] : F::empty();
        apron_w = AXIS == 0 ? along * T::WW + (side ? T::WW - 1 : 0)
                            : (side ? T::WH - 1 : 0) * T::WW + along;
    }
    if (threadIdx.x == 0)
        noccupied = nbusy = 0;
    __syncthreads();
#pragma unroll
    for (int k = 0; k <= ROWS; k++) {
        int r = tv + VSTEP * k;
        int w = k == ROWS ? apron_w : AXIS == 0 ? r * T::WW + tu + 1 : (r + 1) * T::WW + tu;
        if (w < 0)
            continue;
        win[w] = v[k];
        wtype[w] = (uint8_t)(inside[k] ? F::type(v[k], types, site[k]) : RD_OUTSIDE);
        mask[w] = 0;
        if (inside[k] && F::occupied(v[k]))
            occupied[atomicAdd(&noccupied, 1)] = (uint16_t)w;
    }
    __syncthreads();
    /* sites with nothing in or next to them are written at once; the others go to a list the
     * block gathers from densely, 32 such sites to a warp */
#pragma unroll
    for (int k = 0; k < ROWS; k++) {
        int r = tv + VSTEP * k;
        int w = AXIS == 0 ? r * T::WW + tu + 1 : (r + 1) * T::WW + tu;
        if (x >= a.nx || v0 + r >= vlen)
            continue;
        if (!F::occupied(win[w]) && !F::occupied(win[w - T::STEP]) &&
            !F::occupied(win[w + T::STEP]))
            out[x + third + (size_t)(v0 + r) * vstride] = F::pack(slots{0, 0}, wtype[w]);
        else
            busy[atomicAdd(&nbusy, 1)] = (uint16_t)w;
    }
    for (int j = threadIdx.x; j < noccupied; j += BLOCK) {
        int w = occupied[j];
        int along = AXIS == 0 ? w % T::WW : w / T::WW, last = AXIS == 0 ? T::WW - 1 : T::WH - 1;
        size_t at;
        window_site<AXIS>(a, w, x0, v0, &at);
        slots sl = F::unpack(win[w]);
        mask[w] = move_mask<F>(a, AXIS, at, sl, F::count(sl), wtype[w],
                               along > 0 ? wtype[w - T::STEP] : RD_OUTSIDE,
                               along < last ? wtype[w + T::STEP] : RD_OUTSIDE);
    }
    __syncthreads();
    for (int j = threadIdx.x; j < nbusy; j += BLOCK) {
        int w = busy[j];
        /* an owned site: inside the lattice, never wrapped */
        int r = AXIS == 0 ? w / T::WW : w / T::WW - 1, u = AXIS == 0 ? w % T::WW - 1 : w % T::WW;
        size_t at = x0 + u + third + (size_t)(v0 + r) * vstride;
        out[at] = gather_site<F>(a, AXIS, at, win, wtype, mask, w, T::STEP);
    }
}

/* Reactions, in place: each thread loads REACT_SITES_PER_THREAD sites; the sites that can react
 * (occupied, or any site when a reaction has no reactant) go to a list the block then works
 * through, a thread per site. */
template <class F>
__global__ void __launch_bounds__(BLOCK, 6)
    react(typename F::site_t *lattice, const uint8_t *__restrict__ types, size_t nsites,
          const rd_reaction_table *__restrict__ t, step_args a, unsigned long long *fired)
{
    __shared__ uint16_t active[BLOCK * REACT_SITES_PER_THREAD];
    __shared__ int nactive, nfired;
    size_t base = (size_t)blockIdx.x * BLOCK * REACT_SITES_PER_THREAD;
    int all = t->has_order0;
    typename F::site_t v[REACT_SITES_PER_THREAD];
#pragma unroll
    for (int k = 0; k < REACT_SITES_PER_THREAD; k++) {
        size_t i = base + k * BLOCK + threadIdx.x;
        v[k] = i < nsites ? lattice[i] : F::empty();
    }
    if (threadIdx.x == 0)
        nactive = nfired = 0;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < REACT_SITES_PER_THREAD; k++) {
        int o = k * BLOCK + threadIdx.x;
        if (base + o < nsites && (all || F::occupied(v[k])))
            active[atomicAdd(&nactive, 1)] = (uint16_t)o;
    }
    __syncthreads();
    for (int j = threadIdx.x; j < nactive; j += BLOCK) {
        size_t i = base + active[j];
        typename F::site_t w = lattice[i];
        slots s = F::unpack(w);
        int n = F::count(s), count[RD_MAX_SPECIES + 1] = {0};
        for (int k = 0; k < n; k++)
            count[slot_species<F::BITS>(s, k)]++;
        int type = F::type(w, types, i);
        int r = rd_choose_reaction(t, count, type,
                                   rd_draw(a.seed, a.step, i, RD_PURPOSE_REACTION, 0));
        if (r < 0)
            continue;
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
            g.add(a, RD_PURPOSE_REACTION, i, t->product[r][q]);
        lattice[i] = F::pack(g.s, type);
        atomicAdd(&nfired, 1);
    }
    __syncthreads();
    if (threadIdx.x == 0 && nfired)
        atomicAdd(fired, (unsigned long long)nfired);
}

/* Counts per z-plane and species of sample k: a block row per plane. */
template <class F>
__global__ void count_planes(const typename F::site_t *__restrict__ lattice, size_t plane,
                             int nspecies, uint32_t *planes)
{
    __shared__ unsigned int tally[RD_MAX_SPECIES + 1];
    for (int sp = threadIdx.x; sp <= nspecies; sp += blockDim.x)
        tally[sp] = 0;
    __syncthreads();
    size_t first = (size_t)blockIdx.y * plane;
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
    for (int sp = threadIdx.x; sp <= nspecies; sp += blockDim.x)
        if (tally[sp])
            atomicAdd(&planes[(size_t)blockIdx.y * (nspecies + 1) + sp], tally[sp]);
}

/* ---- the host side ---- */

enum { EV_LOOP_START, EV_LOOP_END, EV_A, EV_B, EV_COUNT };

static step_args step_args_of(const rd_gpu *g, long long step)
{
    const rd_model *m = g->m;
    step_args a = {m->seed, step, m->nx, m->ny, m->nz, m->periodic, g->d_threshold, g->sink};
    return a;
}

template <class F, int AXIS> static int launch_axis(rd_gpu *g, const void *in, void *out,
                                                   step_args a)
{
    typedef tile<AXIS> T;
    const rd_model *m = g->m;
    int second = AXIS == 2 ? m->nz : m->ny, third = AXIS == 2 ? m->ny : m->nz;
    dim3 grid((m->nx + T::TW - 1) / T::TW, (second + T::TH - 1) / T::TH, third);
    sweep<F, AXIS><<<grid, BLOCK, 0, g->env->streams[0]>>>(
        (const typename F::site_t *)in, (typename F::site_t *)out, g->d_types, a);
    SB_LAUNCHED(AXIS == 0 ? "sweep<x>" : AXIS == 1 ? "sweep<y>" : "sweep<z>");
    return 0;
}

template <class F> static int launch_sweep(rd_gpu *g, int axis, const void *in, void *out,
                                           step_args a)
{
    return axis == 0   ? launch_axis<F, 0>(g, in, out, a)
           : axis == 1 ? launch_axis<F, 1>(g, in, out, a)
                       : launch_axis<F, 2>(g, in, out, a);
}

template <class F> static int launch_react(rd_gpu *g, void *lattice, step_args a)
{
    size_t per_block = (size_t)BLOCK * REACT_SITES_PER_THREAD;
    size_t blocks = (g->m->nsites + per_block - 1) / per_block;
    react<F><<<(unsigned)blocks, BLOCK, 0, g->env->streams[0]>>>(
        (typename F::site_t *)lattice, g->d_types, g->m->nsites, g->d_reactions, a, g->d_fired);
    SB_LAUNCHED("react");
    return 0;
}

template <class F> static int launch_count(rd_gpu *g, const void *lattice, int sample)
{
    const rd_model *m = g->m;
    size_t plane = (size_t)m->nx * m->ny;
    int w = m->nspecies + 1;
    unsigned blocks = (unsigned)((plane + 255) / 256);
    dim3 grid(blocks > 64 ? 64 : blocks, m->nz);
    count_planes<F><<<grid, 256, 0, g->env->streams[0]>>>(
        (const typename F::site_t *)lattice, plane, m->nspecies,
        g->d_planes + (size_t)sample * m->nz * w);
    SB_LAUNCHED("count_planes");
    return 0;
}

/* A kernel phase: timed by events when the run is instrumented, its seconds times scale. */
#define TIMED(g, name, scale, call)                                                                \
    do {                                                                                           \
        if ((g)->instrument)                                                                       \
            SB_CUDA(cudaEventRecord((g)->ev[EV_A], (g)->env->streams[0]));                         \
        if ((call) != 0)                                                                           \
            return -1;                                                                             \
        if ((g)->instrument) {                                                                     \
            double sec_;                                                                           \
            SB_CUDA(cudaEventRecord((g)->ev[EV_B], (g)->env->streams[0]));                         \
            if (sb_event_seconds((g)->ev[EV_A], (g)->ev[EV_B], &sec_) != 0)                        \
                return -1;                                                                         \
            sb_phase_add(&(g)->phases, name, sec_ *(scale));                                       \
        }                                                                                          \
    } while (0)

/* After the kernels of a step: overflowed particles placed on the host, the lattice back. */
static int resolve_overflow(rd_gpu *g, void *d_lattice)
{
    sb_env *env = g->env;
    cudaStream_t st = env->streams[0];
    uint64_t *entries;
    unsigned int n;
    if (g->channel->collect(g, &entries, &n) != 0)
        return -1;
    if (n == 0)
        return 0;
    if (n > g->sink.capacity)
        return sb_fail("%u particles overflowed in one step, more than the list's %u: lower the "
                       "particle density",
                       n, g->sink.capacity);
    if (sb_copy(&env->xfer, g->h_lattice, d_lattice, g->lattice_bytes, cudaMemcpyDeviceToHost,
                st) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    if (rd_overflow_resolve(g->m, g->h_lattice, entries, n) != 0)
        return -1;
    g->overflow_particles += n;
    return sb_copy(&env->xfer, d_lattice, g->h_lattice, g->lattice_bytes, cudaMemcpyHostToDevice,
                   st);
}

template <class F> static int run_steps(rd_gpu *g)
{
    const rd_model *m = g->m;
    sb_env *env = g->env;
    cudaStream_t st = env->streams[0];
    int cur = 0, sample = 0, nsamples = rd_output_nsamples(m);
    double t0;
    SB_CUDA(cudaMemsetAsync(g->d_planes, 0, g->planes_bytes, st));
    SB_CUDA(cudaMemsetAsync(g->d_fired, 0, sizeof *g->d_fired, st));
    TIMED(g, "initial copy", 1.0,
          sb_copy(&env->xfer, g->d_lattice[0], g->d_init, g->lattice_bytes,
                  cudaMemcpyDeviceToDevice, st));
    SB_CUDA(cudaEventRecord(g->ev[EV_LOOP_START], st));
    /* the instrumented run times the kernels of its first steps only (an event pair and a wait
     * per kernel would double a long run); its phases are seconds per step */
    int instrumented_run = g->instrument;
    long long timed_steps = m->steps < RD_INSTRUMENTED_STEPS ? m->steps : RD_INSTRUMENTED_STEPS;
    double per_step = timed_steps > 0 ? 1.0 / (double)timed_steps : 0.0;
    TIMED(g, "samples per step", per_step, launch_count<F>(g, g->d_lattice[0], sample++));
    static const char *const sweep_names[3] = {"x-sweep per step", "y-sweep per step",
                                               "z-sweep per step"};
    for (long long step = 0; step < m->steps; step++) {
        step_args a = step_args_of(g, step);
        g->instrument = instrumented_run && step < timed_steps;
        for (int axis = 0; axis < 3; axis++) {
            TIMED(g, sweep_names[axis], per_step,
                  launch_sweep<F>(g, axis, g->d_lattice[cur], g->d_lattice[1 - cur], a));
            cur = 1 - cur;
        }
        TIMED(g, "reactions per step", per_step, launch_react<F>(g, g->d_lattice[cur], a));
        t0 = sb_now();
        if (resolve_overflow(g, g->d_lattice[cur]) != 0)
            return -1;
        if (g->instrument)
            sb_phase_add(&g->phases, "overflow per step", (sb_now() - t0) * per_step);
        if (sample < nsamples && rd_output_sample_step(m, sample) == step + 1)
            TIMED(g, "samples per step", per_step,
                  launch_count<F>(g, g->d_lattice[cur], sample++));
    }
    g->instrument = instrumented_run;
    SB_CUDA(cudaEventRecord(g->ev[EV_LOOP_END], st));
    TIMED(g, "download", 1.0,
          sb_copy(&env->xfer, g->h_lattice, g->d_lattice[cur], g->lattice_bytes,
                  cudaMemcpyDeviceToHost, st) ||
              sb_copy(&env->xfer, g->h_planes, g->d_planes, g->planes_bytes,
                      cudaMemcpyDeviceToHost, st));
    if (sb_copy(&env->xfer, g->host_fired, g->d_fired, sizeof *g->host_fired,
                cudaMemcpyDeviceToHost, st))
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    g->reactions_fired = *g->host_fired;
    double loop;
    if (sb_event_seconds(g->ev[EV_LOOP_START], g->ev[EV_LOOP_END], &loop) != 0)
        return -1;
    if (g->runs < RD_GPU_MAX_RUNS)
        g->loop_seconds[g->runs] = loop;
    return 0;
}

int rd_gpu_run(void *state)
{
    rd_gpu *g = (rd_gpu *)state;
    g->instrument = g->runs == 0;
    if (g->instrument)
        sb_phases_clear(&g->phases);
    g->overflow_particles = 0;
    int rc = g->m->format == RD_PACKED32 ? run_steps<packed32>(g) : run_steps<byte16>(g);
    g->runs++;
    return rc;
}

/* Loads the kernels of a format now (lazy module loading would otherwise bill the first run). */
template <class F> static int load_kernels(void)
{
    cudaFuncAttributes attr;
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep<F, 0>));
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep<F, 1>));
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep<F, 2>));
    SB_CUDA(cudaFuncGetAttributes(&attr, react<F>));
    SB_CUDA(cudaFuncGetAttributes(&attr, count_planes<F>));
    return 0;
}

int rd_gpu_setup(sb_env *env, const void *model, void **state, const rd_overflow_channel *ch)
{
    rd_gpu *g = (rd_gpu *)calloc(1, sizeof *g);
    if (!g)
        return sb_fail("out of host memory");
    *state = g;
    g->env = env;
    g->m = (const rd_model *)model;
    g->channel = ch;
    const rd_model *m = g->m;
    int dev = env->devices[0];
    cudaStream_t st = env->streams[0];
    g->lattice_bytes = m->nsites * rd_site_bytes(m->format);
    g->planes_bytes = (size_t)rd_output_nsamples(m) * m->nz * (m->nspecies + 1) * sizeof(uint32_t);
    size_t need = 3 * g->lattice_bytes + (m->format == RD_BYTE16 ? m->nsites : 0) +
                  g->planes_bytes;
    int rc;
    if ((rc = sb_dev_check_fits(dev, need, "the initial and two working lattices")) != 0)
        return rc;
    SB_CUDA(cudaSetDevice(dev));
    if ((m->format == RD_PACKED32 ? load_kernels<packed32>() : load_kernels<byte16>()) != 0)
        return -1;
    for (int i = 0; i < EV_COUNT; i++)
        SB_CUDA(cudaEventCreate(&g->ev[i]));
    SB_CUDA(cudaMallocHost(&g->h_lattice, g->lattice_bytes));
    SB_CUDA(cudaMallocHost((void **)&g->h_planes, g->planes_bytes));
    SB_CUDA(cudaMallocHost((void **)&g->host_count, sizeof *g->host_count));
    SB_CUDA(cudaMallocHost((void **)&g->host_fired, sizeof *g->host_fired));
    rd_reaction_table t;
    rd_reaction_table_of(m, &t);
    if ((rc = sb_dev_alloc(&env->mem, dev, &g->d_init, g->lattice_bytes, "initial lattice")) ||
        (rc = sb_dev_alloc(&env->mem, dev, &g->d_lattice[0], g->lattice_bytes, "lattice")) ||
        (rc = sb_dev_alloc(&env->mem, dev, &g->d_lattice[1], g->lattice_bytes, "lattice")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&g->d_threshold,
                           sizeof m->threshold, "thresholds")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&g->d_reactions, sizeof t, "reactions")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&g->d_planes, g->planes_bytes,
                           "plane counts")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&g->d_fired, sizeof *g->d_fired,
                           "reaction count")))
        return rc;
    if (m->format == RD_BYTE16 &&
        ((rc = sb_dev_alloc(&env->mem, dev, (void **)&g->d_types, m->nsites, "site types")) ||
         (rc = sb_copy(&env->xfer, g->d_types, m->types, m->nsites, cudaMemcpyHostToDevice, st))))
        return rc;
    if (sb_copy(&env->xfer, g->d_init, m->lattice0, g->lattice_bytes, cudaMemcpyHostToDevice, st) ||
        sb_copy(&env->xfer, g->d_threshold, m->threshold, sizeof m->threshold,
                cudaMemcpyHostToDevice, st) ||
        sb_copy(&env->xfer, g->d_reactions, &t, sizeof t, cudaMemcpyHostToDevice, st) ||
        ch->open(g) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    return 0;
}

int rd_gpu_output(void *state, void *out)
{
    rd_gpu *g = (rd_gpu *)state;
    const rd_model *m = g->m;
    rd_output *o = (rd_output *)out;
    int w = m->nspecies + 1;
    memcpy(o->lattice, g->h_lattice, g->lattice_bytes);
    memcpy(o->plane_counts, g->h_planes, g->planes_bytes);
    for (int k = 0; k < o->nsamples; k++)
        for (int sp = 0; sp < w; sp++) {
            uint64_t sum = 0;
            for (int z = 0; z < m->nz; z++)
                sum += g->h_planes[((size_t)k * m->nz + z) * w + sp];
            o->counts[(size_t)k * w + sp] = sum;
        }
    o->overflow_particles = g->overflow_particles;
    o->reactions_fired = g->reactions_fired;
    return 0;
}

void rd_gpu_teardown(void *state)
{
    rd_gpu *g = (rd_gpu *)state;
    if (!g)
        return;
    if (g->channel)
        g->channel->close(g);
    for (int i = 0; i < EV_COUNT; i++)
        if (g->ev[i])
            cudaEventDestroy(g->ev[i]);
    cudaFreeHost(g->h_lattice);
    cudaFreeHost(g->h_planes);
    cudaFreeHost(g->host_count);
    cudaFreeHost(g->host_fired);
    free(g);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void rd_gpu_report(void *state, sb_report *r)
{
    rd_gpu *g = (rd_gpu *)state;
    const rd_model *m = g->m;
    double floor_step = rd_floor_bytes_per_step(m);
    /* the initial device copy reads and writes the lattice; the download reads it */
    r->bytes_moved = floor_step * (double)m->steps + 3.0 * (double)g->lattice_bytes;
    r->host_launches = 4.0 * (double)m->steps + rd_output_nsamples(m);
    r->phases = g->phases;
    /* the loop's median over the timed runs (all runs after the first, when there are some) */
    int n = g->runs < RD_GPU_MAX_RUNS ? g->runs : RD_GPU_MAX_RUNS, first = n > 1;
    qsort(g->loop_seconds + first, (size_t)(n - first), sizeof(double), compare_doubles);
    if (n - first > 0) {
        r->steady.seconds = g->loop_seconds[first + (n - first) / 2];
        r->steady.items = (double)m->nsites * (double)m->steps;
        r->steady.bytes = floor_step * (double)m->steps;
        r->steady.simulated_seconds = (double)m->steps * m->tau;
        r->steady.runs = n - first;
    }
}

/* Stage 1's overflow channel: a list in device memory; its count is copied to the host every
 * step, the entries only when there are some. */
typedef struct device_list {
    unsigned int *d_count;
    uint64_t *d_entries;
} device_list;

/* Room for one particle per site (more than one step overflows in practice: a site gains at
 * most what its two neighbours hold, and overflow makes room), up to 2^24 entries (128 MiB). */
unsigned int rd_overflow_capacity(const rd_model *m)
{
    size_t cap = m->nsites + 4096;
    return cap > (1u << 24) ? 1u << 24 : (unsigned int)cap;
}

static int device_list_open(rd_gpu *g)
{
    sb_env *env = g->env;
    int dev = env->devices[0], rc;
    unsigned int cap = rd_overflow_capacity(g->m);
    SB_CUDA(cudaMallocHost((void **)&g->host_entries, (size_t)cap * sizeof(uint64_t)));
    if ((rc = sb_dev_alloc(&env->mem, dev, (void **)&g->sink.count, sizeof(unsigned int),
                           "overflow count")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&g->sink.entries,
                           (size_t)cap * sizeof(uint64_t), "overflow list")))
        return rc;
    g->sink.capacity = cap;
    SB_CUDA(cudaMemsetAsync(g->sink.count, 0, sizeof(unsigned int), env->streams[0]));
    return 0;
}

static int device_list_collect(rd_gpu *g, uint64_t **entries, unsigned int *n)
{
    sb_env *env = g->env;
    cudaStream_t st = env->streams[0];
    if (sb_copy(&env->xfer, g->host_count, g->sink.count, sizeof(unsigned int),
                cudaMemcpyDeviceToHost, st))
        return -1;
    SB_CUDA(cudaStreamSynchronize(st));
    *n = *g->host_count;
    *entries = g->host_entries;
    if (*n == 0)
        return 0;
    unsigned int copy = *n < g->sink.capacity ? *n : g->sink.capacity;
    if (sb_copy(&env->xfer, g->host_entries, g->sink.entries, (size_t)copy * sizeof(uint64_t),
                cudaMemcpyDeviceToHost, st))
        return -1;
    SB_CUDA(cudaMemsetAsync(g->sink.count, 0, sizeof(unsigned int), st));
    SB_CUDA(cudaStreamSynchronize(st));
    return 0;
}

static void device_list_close(rd_gpu *g)
{
    cudaFreeHost(g->host_entries);
}

static const rd_overflow_channel device_list_channel = {device_list_open, device_list_collect,
                                                        device_list_close};

static int setup(sb_env *env, const void *model, void **state)
{
    return rd_gpu_setup(env, model, state, &device_list_channel);
}

const sb_variant_ops rd_gpu_ops = {setup, rd_gpu_run, rd_gpu_output, rd_gpu_teardown,
                                   rd_gpu_report};
