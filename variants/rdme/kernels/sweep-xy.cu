/* The x- and y-sweeps of a whole small packed32 plane in one block, sweep_xy (window.cuh): stage
 * gpu-fused where planes are at most XY_SIDE x XY_SIDE sites (the Min system). */
#include "launch.h"
#include "window.cuh"

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

int rd_load_xy_sweep(void)
{
    return xy_load();
}

int rd_sweep_xy_one_kernel(rd_site_format f, const void *in, const void *out, const rd_step *a)
{
    if (f == RD_PACKED32 && a->nx <= XY_SIDE && a->ny <= XY_SIDE && a->nx % 4 == 0 &&
        ((uintptr_t)in | (uintptr_t)out) % 16 == 0)
        return xy_fits();
    return 0;
}

int rd_sweep_xy(rd_site_format f, const void *in, void *mid, void *out, const rd_step *a, int lo,
                int hi, cudaStream_t st)
{
    int fits = rd_sweep_xy_one_kernel(f, in, out, a);
    if (fits < 0)
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
