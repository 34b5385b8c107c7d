/* The warp strips' shared parts and the x-strips' kernel, sweep_strips_x: the sweeps of packed32
 * lattices whose rows are whole quads at least STRIP_MIN_NX sites wide (launch.h), a warp a strip
 * with no block barrier. sweep_strips_x is instantiated without reactions in sweep-strips.cu
 * (with sweep_strips, the y- and z-strips) and with the previous step's reactions in react.cu
 * (react.cu's opening comment says why). */
#ifndef RD_KERNELS_STRIPS_CUH
#define RD_KERNELS_STRIPS_CUH

#include "common.cuh"

/* The strips' geometry (sweep_strips in sweep-strips.cu tells the walk along a strip). */
#define STRIP_WARPS 4
#define STRIP_ROWS 32
#define STRIP_BATCH 5
#define STRIP_RING 8 /* >= STRIP_BATCH + 3, a power of two */
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

/* ~180 lines: one kernel, its batches' loads, draws (the reactions ahead among them) and gathers
 * sharing registers and the warp's shared memory */
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

/* The grid of the strip kernels: 128 sites along x, a block's STRIP_WARPS strips of STRIP_ROWS
 * rows along the swept axis (len sites), `third` planes. */
static inline dim3 strip_grid(const rd_step *a, int len, unsigned third)
{
    int per_block = STRIP_WARPS * STRIP_ROWS;
    return dim3((a->nx + 127) / 128, (len + per_block - 1) / per_block, third);
}

#endif
