/* The generic tile sweep, sweep<>: either site format, any lattice (window.cuh). Instantiated
 * without reactions in sweep-window.cu and as the fused z-sweep in react.cu (react.cu's opening
 * comment says why). */
#ifndef RD_KERNELS_SWEEP_WINDOW_CUH
#define RD_KERNELS_SWEEP_WINDOW_CUH

#include "window.cuh"

/* One sweep along AXIS: load the window, decide the moves of its occupied sites, gather.
 * A thread owns one column u of the tile (x) and ROWS sites down it, 4 apart; the aprons (the
 * sites just before and after the tile along the swept axis) are loaded by the first threads.
 * x- and y-sweep blocks each do one buffer plane (plane_lo + blockIdx.z); z-sweep blocks one row
 * y (blockIdx.z) of the slab's own planes. */
/* ~150 lines: one kernel, its load, list, move and gather phases sharing registers and shared
 * memory */
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

#endif
