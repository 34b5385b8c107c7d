/* The warp strips without reactions: sweep_strips along y and z, sweep_strips_x<false> along x
 * (strips.cuh), where packed32 rows are whole quads at least STRIP_MIN_NX sites wide. */
#include "launch.h"
#include "strips.cuh"

/* A y- or z-strip warp's shared memory: its ring (ring row s's sites: words and moves, a site's
 * moves in 16 bits: bits 0-6 its slots that move -, bits 8-14 those that move +) and its list. */
struct strip_smem {
    uint4 words[STRIP_RING * 32];
    uint2 moves[STRIP_RING * 32];
    uint16_t list[STRIP_LIST];
};

/* The y- and z-sweeps of packed32 lattices whose rows are whole quads, at least STRIP_MIN_NX
 * sites wide (the red blood cell): each warp sweeps a strip of its own, 128 sites along x (a quad
 * a lane) by STRIP_ROWS rows along the swept axis, with __syncwarp and no block barrier. It walks
 * the strip STRIP_BATCH rows at a time through a ring of STRIP_RING rows in shared memory (the
 * batch, the row before it and the two after): loads the new rows, draws the moves of the
 * occupied sites of the rows it has not drawn (a warp-wide list: 32 sites a pass), writes every
 * site as it was, lists the sites the moves change and gathers those a lane each over what it
 * wrote. The same draws and gathers as sweep_quads, so the same lattice bit for bit; what it
 * saves is every site's share of a block's window, lists and barriers (sweep_quads: about 130
 * thread instructions a site on the red blood cell at 8 nm, H200). Row j of the strip is lattice
 * row v0 + j along the swept axis; rows -1 and STRIP_ROWS are its aprons. */
/* ~170 lines: one kernel, its batches' loads, draws and gathers sharing registers and the
 * ring */
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

cudaError_t rd_launch_strip_sweep(int axis, const void *in, void *out, const rd_step *a,
                                  int plane_lo, unsigned third, cudaStream_t st)
{
    dim3 strips = strip_grid(a, axis == 2 ? a->slab.planes : a->ny, third);
    if (axis == 0)
        return sb_launch_kernel(sweep_strips_x<false>, strips, 32 * STRIP_WARPS, 0, a->chained, st,
                                (const uint4 *)in, (uint4 *)out, *a, plane_lo,
                                (reactions_arg<false>)NULL, (unsigned long long *)NULL);
    return sb_launch_kernel(axis == 1 ? sweep_strips<1> : sweep_strips<2>, strips,
                            32 * STRIP_WARPS, 0, a->chained, st, (const uint4 *)in, (uint4 *)out,
                            *a, plane_lo);
}

int rd_load_strip_sweeps(void)
{
    cudaFuncAttributes attr;
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep_strips_x<false>));
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep_strips<1>));
    SB_CUDA(cudaFuncGetAttributes(&attr, sweep_strips<2>));
    return 0;
}
