/* The window sweeps of packed32 lattices whose rows are whole 16-byte quads, a quad a thread:
 * sweep_quads (window.cuh). Instantiated without reactions in sweep-quads.cu and as the fused
 * z-sweep in react.cu (react.cu's opening comment says why). */
#ifndef RD_KERNELS_SWEEP_QUADS_CUH
#define RD_KERNELS_SWEEP_QUADS_CUH

#include "window.cuh"

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

#endif
