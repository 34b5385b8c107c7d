/* Stage gpu-columns' sweeps: the packed 32-bit site, written for few instructions per site.
 *
 * kernels.cu's sweeps spend ~210 thread instructions per site and sweep (H100, ncu): every site
 * goes through a shared-memory window, a type byte, a mask, two list atomics. Here a thread keeps
 * a short line of sites along the swept axis in registers, with the two sites before and the two
 * after it (the type of the site two away decides the neighbour's move towards it):
 *   y- and z-sweeps  a thread owns COL_ROWS consecutive sites along the swept axis and loads
 *                    2 + COL_ROWS + 2 (the extra four hit L1/L2: the warps of a block are stacked
 *                    along that axis); a warp is 32 consecutive x, so every load is coalesced;
 *   x-sweep          a thread owns 4 consecutive x (one 128-bit load when rows are 16-byte
 *                    aligned), a warp a row segment of 128; the neighbours come from the adjacent
 *                    lanes (__shfl_sync), the warp's edge lanes load the sites past the segment.
 * Then, within each warp (no block barrier anywhere):
 *   1. the occupied sites of the lines go to a dense list (a per-lane bit mask, one prefix sum
 *      over the warp); the warp works through it 32 at a time: Philox and the two thresholds per
 *      particle, and the site's particles split, in slot order, into stayers, - movers and +
 *      movers, each as a run of nibbles (split());
 *   2. a site with nothing in or next to it is written as it was read (an empty packed32 site's
 *      new word is its old one); each other site is its stayers, then the + movers of the site
 *      before, then the - movers of the site after, concatenated with shifts (combine()): the
 *      gather order of kernels.cu and cpu-reference.c, with no loop over particles. A site that
 *      would hold more than 7 pushes the rest in that order (crowded());
 *   3. z-sweep only: the sites written occupied (every site when a reaction has no reactant) go
 *      to a second list, and the warp applies kernels.cu's react_site() to them before writing.
 * Draws are keyed by the global site index (= the buffer index: one slab, no halo), the sites
 * past a periodic edge are loaded wrapped (any length, 1 and 2 included), and those past a
 * reflecting edge are RD_OUTSIDE, so the result is cpu-reference's bit for bit. */
#include "../../cuda/check.h"
#include "kernels-columns.h"
#include "kernels-site.cuh"

#define COL_ROWS 16               /* y-, z-sweeps: sites a thread owns along the swept axis */
#define COL_POS (COL_ROWS + 4)    /* its line: 2 sites before, its own, 2 after */
#define COL_WARPS 4               /* warps of a y- or z-sweep block, stacked along the axis */
#define X_WARPS 8                 /* warps of an x-sweep block, one row segment each */
#define X_SITES 128               /* sites of an x-sweep warp's segment, 4 a lane */
#define SLOTS 0x0fffffffu         /* a packed32 word's particles; the type is above */
#define TYPE 0xf0000000u

/* Particles in a run of nibbles from bit 0 (species are never 0, so a run has no holes). */
__device__ __forceinline__ int run_length(uint32_t run)
{
    return (35 - __clz(run)) >> 2;
}

/* c moved into 0 .. len - 1 (periodic edges; any distance, for axes of length 1 and 2). */
__device__ __forceinline__ int wrap_any(int c, int len)
{
    c %= len;
    return c < 0 ? c + len : c;
}

/* Site x of a row of the x-sweep (any x: wrapped, or an empty word past a reflecting edge). */
__device__ __forceinline__ uint32_t line_site(const uint32_t *line, int x, const rd_step &a)
{
    if (x < 0 || x >= a.nx) {
        if (!a.periodic)
            return 0;
        x = wrap_any(x, a.nx);
    }
    return line[x];
}

/* What split() draws with: by value (a reference to the kernel's rd_step would copy it to local
 * memory in every thread). */
typedef struct rd_key {
    uint32_t seed;
    long long step;
    const long long *step_at;
    const uint32_t *threshold;
} rd_key;

__device__ __forceinline__ rd_key key_of(const rd_step &a)
{
    return {a.seed, a.step, a.step_at, a.threshold};
}

/* The moves of the particles of occupied site `global` (word w, neighbour types tm, tp), as
 * *split = {stayers | + movers above them | number of stayers in the top nibble,
 *           - movers | the site's type in the top nibble}. */
__device__ __noinline__ void split(rd_key a, int axis, size_t global, uint32_t w, int tm, int tp,
                                   uint2 *out)
{
    int type = (int)(w >> 28), ns = 0, nm = 0, np = 0;
    uint32_t s = w & SLOTS, stay = 0, minus = 0, plus = 0;
    long long step = a.step_at ? *a.step_at : a.step;
    sb_rng_block r;
    for (int k = 0; s; k++, s >>= 4) {
        if ((k & 3) == 0)
            r = rd_draw(a.seed, step, global, (uint32_t)axis, (uint32_t)(k >> 2));
        uint32_t sp = s & 15;
        int d = rd_move(draw_word(r, k), __ldg(&a.threshold[RD_THRESHOLD_INDEX(sp, type, tm)]),
                        __ldg(&a.threshold[RD_THRESHOLD_INDEX(sp, type, tp)]));
        if (d < 0)
            minus |= sp << 4 * nm++;
        else if (d > 0)
            plus |= sp << 4 * np++;
        else
            stay |= sp << 4 * ns++;
    }
    *out = make_uint2(stay | plus << 4 * ns | (uint32_t)ns << 28, minus | (w & TYPE));
}

/* A site that would hold more than CAP: the first CAP kept, the others pushed in gather order. */
__device__ __noinline__ uint32_t crowded(rd_overflow_sink sink, int axis, size_t global,
                                         uint32_t stay, uint32_t plus, uint32_t minus,
                                         uint32_t type)
{
    rd_step a;
    a.sink = sink;
    gather<packed32> g;
    for (; stay; stay >>= 4)
        g.add(a, axis, global, (int)(stay & 15));
    for (; plus; plus >>= 4)
        g.add(a, axis, global, (int)(plus & 15));
    for (; minus; minus >>= 4)
        g.add(a, axis, global, (int)(minus & 15));
    return packed32::pack(g.s, (int)(type >> 28));
}

/* The new word of site `global` from its own split (self: zero and its type when it was empty),
 * the first word of the split of the site before and the second of the site after. */
__device__ __forceinline__ uint32_t combine(const rd_step &a, int axis, size_t global, uint2 self,
                                            uint32_t before, uint32_t after)
{
    int ns = (int)(self.x >> 28), nb = (int)(before >> 28);
    uint32_t stay = self.x & ((1u << 4 * ns) - 1), plus = (before & SLOTS) >> 4 * nb,
             minus = after & SLOTS;
    int np = run_length(plus), nm = run_length(minus);
    if (ns + np + nm > packed32::CAP)
        return crowded(a.sink, axis, global, stay, plus, minus, self.y & TYPE);
    return stay | plus << 4 * ns | minus << 4 * (ns + np) | (self.y & TYPE);
}

/* kernels.cu's react_site() on one site, out of line: its propensities and counts stay out of
 * the sweep's registers. */
__device__ __noinline__ int react_at(rd_key k, rd_overflow_sink sink, const rd_reaction_table *t,
                                     size_t global, uint32_t *w)
{
    rd_step a;
    a.seed = k.seed;
    a.step = k.step;
    a.step_at = k.step_at;
    a.sink = sink;
    return react_site<packed32>(a, t, global, (int)(*w >> 28), w);
}

/* Lists the positions set in every lane's `bits` as code0 + p * step (lane order, then p); all
 * lanes get the count, and the warp's shared memory written so far is visible to all of it. */
__device__ __forceinline__ int list_positions(uint32_t bits, uint16_t *list, int code0, int step)
{
    int lane = threadIdx.x & 31, n = __popc(bits), incl = n;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        int t = __shfl_up_sync(~0u, incl, d);
        if (lane >= d)
            incl += t;
    }
    for (int at = incl - n; bits; bits &= bits - 1)
        list[at++] = (uint16_t)(code0 + (__ffs(bits) - 1) * step);
    int total = __shfl_sync(~0u, incl, 31);
    __syncwarp();
    return total;
}

/* The x-sweep. Warp: a segment x0 .. x0 + 127 of one row; lane: x0 + 4 lane .. + 3, its line
 * v[p] = site x0 + 4 lane - 2 + p (p = 0..7). Per warp in shared memory: the line words by x
 * (win[x - x0 + 2 + 2]: the own four 16-byte aligned) and the splits by x (res[x - x0 + 1], from
 * x0 - 1 to x0 + 128). */
__global__ void __launch_bounds__(X_WARPS * 32)
    columns_x(const uint32_t *__restrict__ in, uint32_t *__restrict__ out, rd_step a)
{
    __shared__ __align__(16) uint32_t win_all[X_WARPS][X_SITES + 8];
    __shared__ uint2 res_all[X_WARPS][X_SITES + 2];
    __shared__ uint16_t list_all[X_WARPS][X_SITES + 2];
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    uint32_t *win = win_all[wid];
    uint2 *res = res_all[wid];
    uint16_t *list = list_all[wid];
    int nseg = (a.nx + X_SITES - 1) / X_SITES;
    long long gw = (long long)blockIdx.x * X_WARPS + wid, row = gw / nseg;
    if (row >= (long long)a.ny * a.nz)
        return;
    int x0 = (int)(gw - row * nseg) * X_SITES, end = min(x0 + X_SITES, a.nx);
    const uint32_t *line_in = in + (size_t)row * a.nx;
    int xs = x0 + 4 * lane, nvalid = max(0, min(4, end - xs));
    bool vector = (a.nx & 3) == 0 && nvalid == 4;
    uint32_t v[8];
    if (vector) {
        uint4 q = *(const uint4 *)(line_in + xs);
        v[2] = q.x, v[3] = q.y, v[4] = q.z, v[5] = q.w;
    } else {
#pragma unroll
        for (int k = 0; k < 4; k++)
            v[2 + k] = k < nvalid ? line_in[xs + k] : 0;
    }
    v[0] = __shfl_up_sync(~0u, v[4], 1);
    v[1] = __shfl_up_sync(~0u, v[5], 1);
    v[6] = __shfl_down_sync(~0u, v[2], 1);
    v[7] = __shfl_down_sync(~0u, v[3], 1);
    /* past the segment: lane 0 loads the two sites before it, the lane of its last site the two
     * after (wrapped, or empty past a reflecting edge) */
    bool tail = nvalid > 0 && xs + nvalid == end;
    if (lane == 0) {
        v[0] = line_site(line_in, x0 - 2, a);
        v[1] = line_site(line_in, x0 - 1, a);
    }
    if (tail) {
        /* at p = nvalid + 2 and + 3, selected without an index (v stays in registers) */
        uint32_t fa = line_site(line_in, end, a), fb = line_site(line_in, end + 1, a);
        v[3] = nvalid == 1 ? fa : v[3];
        v[4] = nvalid == 2 ? fa : nvalid == 1 ? fb : v[4];
        v[5] = nvalid == 3 ? fa : nvalid == 2 ? fb : v[5];
        v[6] = nvalid == 4 ? fa : nvalid == 3 ? fb : v[6];
        v[7] = nvalid == 4 ? fb : v[7];
    }
    uint32_t occ = 0;
#pragma unroll
    for (int p = 0; p < 8; p++)
        occ |= (v[p] & SLOTS) ? 1u << p : 0u;
    /* the sites this lane decides: its own, x0 - 1 (lane 0) and the one after the segment (the
     * tail lane); their splits start empty with the site's type */
    uint32_t own = ((1u << nvalid) - 1) << 2;
    uint32_t decide = own | (lane == 0 ? 2u : 0u) | (tail ? 1u << (nvalid + 2) : 0u);
    if (nvalid > 0)
        *(uint4 *)&win[4 * lane + 4] = make_uint4(v[2], v[3], v[4], v[5]);
    if (lane == 0)
        win[2] = v[0], win[3] = v[1];
    if (tail)
        win[4 * lane + 8] = v[6], win[4 * lane + 9] = v[7];
#pragma unroll
    for (int p = 1; p < 8; p++)
        if (decide >> p & 1)
            res[4 * lane + p - 1] = make_uint2(0, v[p] & TYPE);
    int n = list_positions(decide & occ, list, 4 * lane - 1, 1);
    for (int i = lane; i < n; i += 32) {
        int e = list[i], x = x0 + e - 1;
        uint32_t w = win[e + 3], wm = win[e + 2], wp = win[e + 4];
        int tm = !a.periodic && x == 0 ? RD_OUTSIDE : (int)(wm >> 28);
        int tp = !a.periodic && x == a.nx - 1 ? RD_OUTSIDE : (int)(wp >> 28);
        if (x < 0 || x >= a.nx)
            x = wrap_any(x, a.nx);
        split(key_of(a), 0, (size_t)row * a.nx + x, w, tm, tp, &res[e]);
    }
    __syncwarp();
    /* the sites with something in or next to them, into the window (done with), then the four
     * written at once */
    for (uint32_t busy = (occ | occ << 1 | occ >> 1) & own; busy; busy &= busy - 1) {
        int p = __ffs(busy) - 1, e = 4 * lane + p - 1;
        win[e + 3] = combine(a, 0, (size_t)row * a.nx + xs - 2 + p, res[e], res[e - 1].x,
                             res[e + 1].y);
    }
    uint32_t *line_out = out + (size_t)row * a.nx;
    if (vector) {
        *(uint4 *)(line_out + xs) = *(const uint4 *)&win[4 * lane + 4];
    } else {
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (k < nvalid)
                line_out[xs + k] = win[4 * lane + 4 + k];
    }
}

/* The y- (AXIS 1) or z-sweep (AXIS 2), with the reactions when REACT. Warp: x = 32 blockIdx.x ..
 * + 31, COL_ROWS sites c0 .. along the axis; lane: its column, line v[p] = site c0 - 2 + p.
 * Per warp in shared memory, at p * 32 + lane: the line words and the splits. */
template <int AXIS, bool REACT>
__global__ void __launch_bounds__(COL_WARPS * 32)
    columns(const uint32_t *__restrict__ in, uint32_t *__restrict__ out, rd_step a,
            const rd_reaction_table *__restrict__ reactions, unsigned long long *fired)
{
    __shared__ uint32_t win_all[COL_WARPS][COL_POS * 32];
    __shared__ uint2 res_all[COL_WARPS][(COL_ROWS + 3) * 32];
    __shared__ uint16_t list_all[COL_WARPS][(COL_ROWS + 2) * 32];
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    uint32_t *win = win_all[wid];
    uint2 *res = res_all[wid];
    uint16_t *list = list_all[wid];
    int len = AXIS == 1 ? a.ny : a.nz;
    int c0 = ((int)blockIdx.y * COL_WARPS + wid) * COL_ROWS;
    if (c0 >= len)
        return;
    int x = (int)blockIdx.x * 32 + lane, own_rows = min(COL_ROWS, len - c0);
    bool xin = x < a.nx;
    size_t stride = AXIS == 1 ? (size_t)a.nx : (size_t)a.nx * a.ny;
    /* the column's site at c = 0: x plus the third coordinate (z for y-sweeps, y for z-sweeps) */
    size_t column = (size_t)blockIdx.z * (AXIS == 1 ? (size_t)a.nx * a.ny : (size_t)a.nx);
    const uint32_t *col_in = in + column + x;
    uint32_t v[COL_POS];
    if (c0 >= 2 && c0 + own_rows + 2 <= len) {
#pragma unroll
        for (int p = 0; p < COL_POS; p++)
            v[p] = xin && p < own_rows + 4 ? col_in[(size_t)(c0 - 2 + p) * stride] : 0;
    } else {
#pragma unroll
        for (int p = 0; p < COL_POS; p++) {
            int c = c0 - 2 + p;
            if (c < 0 || c >= len)
                c = a.periodic ? wrap_any(c, len) : -1;
            v[p] = xin && p < own_rows + 4 && c >= 0 ? col_in[(size_t)c * stride] : 0;
        }
    }
    uint32_t occ = 0;
#pragma unroll
    for (int p = 1; p < COL_POS - 1; p++)
        occ |= (v[p] & SLOTS) ? 1u << p : 0u;
    /* decided here: c0 - 1 .. c0 + own_rows (the two ends again by the warps beside) */
    uint32_t decide = ((1u << (own_rows + 3)) - 1) & ~1u;
#pragma unroll
    for (int p = 0; p < COL_POS; p++)
        win[p * 32 + lane] = v[p];
#pragma unroll
    for (int p = 1; p < COL_ROWS + 3; p++)
        res[p * 32 + lane] = make_uint2(0, v[p] & TYPE);
    int n = list_positions(decide & occ, list, lane, 32);
    for (int i = lane; i < n; i += 32) {
        int code = list[i], p = code >> 5, c = c0 - 2 + p;
        uint32_t w = win[code], wm = win[code - 32], wp = win[code + 32];
        int tm = !a.periodic && c == 0 ? RD_OUTSIDE : (int)(wm >> 28);
        int tp = !a.periodic && c == len - 1 ? RD_OUTSIDE : (int)(wp >> 28);
        if (c < 0 || c >= len)
            c = wrap_any(c, len);
        split(key_of(a), AXIS, column + (int)blockIdx.x * 32 + (code & 31) + (size_t)c * stride, w, tm,
              tp, &res[code]);
    }
    __syncwarp();
    uint32_t own = xin ? ((1u << own_rows) - 1) << 2 : 0u;
    uint32_t busy = (occ | occ << 1 | occ >> 1) & own, cand = 0;
    bool every = REACT && reactions->has_order0;
    uint32_t *col_out = out + column + x;
    if (!every) {
#pragma unroll
        for (int p = 2; p < COL_ROWS + 2; p++)
            if ((own & ~busy) >> p & 1)
                col_out[(size_t)(c0 - 2 + p) * stride] = v[p];
    }
    for (uint32_t b = busy; b; b &= b - 1) {
        int p = __ffs(b) - 1, code = p * 32 + lane;
        size_t at = (size_t)(c0 - 2 + p) * stride;
        uint32_t w = combine(a, AXIS, column + x + at, res[code], res[code - 32].x,
                             res[code + 32].y);
        if (REACT && (every || (w & SLOTS))) {
            win[code] = w; /* the window is done with: the reactions read it there */
            cand |= 1u << p;
        } else
            col_out[at] = w;
    }
    if (!REACT)
        return;
    /* the reactions of the sites just written that can react, 32 at a time */
    n = list_positions(every ? own : cand, list, lane, 32);
    int fired_here = 0;
    for (int i = lane; i < n; i += 32) {
        int code = list[i];
        size_t at = column + (int)blockIdx.x * 32 + (code & 31) +
                    (size_t)(c0 - 2 + (code >> 5)) * stride;
        uint32_t w = win[code];
        fired_here += react_at(key_of(a), a.sink, reactions, at, &w);
        out[at] = w;
    }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1)
        fired_here += __shfl_xor_sync(~0u, fired_here, d);
    if (lane == 0 && fired_here)
        atomicAdd(fired, (unsigned long long)fired_here);
}

/* ---- launches ---- */

int rd_columns_load(void)
{
    cudaFuncAttributes attr;
    SB_CUDA(cudaFuncGetAttributes(&attr, columns_x));
    SB_CUDA(cudaFuncGetAttributes(&attr, columns<1, false>));
    SB_CUDA(cudaFuncGetAttributes(&attr, columns<2, true>));
    return 0;
}

int rd_columns_sweep(int axis, const void *in, void *out, const rd_step *a, cudaStream_t st)
{
    if (axis == 0) {
        long long warps = (long long)((a->nx + X_SITES - 1) / X_SITES) * a->ny * a->nz;
        columns_x<<<(unsigned)((warps + X_WARPS - 1) / X_WARPS), X_WARPS * 32, 0, st>>>(
            (const uint32_t *)in, (uint32_t *)out, *a);
        SB_LAUNCHED("columns<x>");
        return 0;
    }
    dim3 grid((a->nx + 31) / 32, (a->ny + COL_WARPS * COL_ROWS - 1) / (COL_WARPS * COL_ROWS),
              a->nz);
    columns<1, false><<<grid, COL_WARPS * 32, 0, st>>>((const uint32_t *)in, (uint32_t *)out, *a,
                                                       NULL, NULL);
    SB_LAUNCHED("columns<y>");
    return 0;
}

int rd_columns_sweep_z_react(const void *in, void *out, const rd_step *a,
                             const rd_reaction_table *table, unsigned long long *fired,
                             cudaStream_t st)
{
    dim3 grid((a->nx + 31) / 32, (a->nz + COL_WARPS * COL_ROWS - 1) / (COL_WARPS * COL_ROWS),
              a->ny);
    columns<2, true><<<grid, COL_WARPS * 32, 0, st>>>((const uint32_t *)in, (uint32_t *)out, *a,
                                                      table, fired);
    SB_LAUNCHED("columns<z>+react");
    return 0;
}
