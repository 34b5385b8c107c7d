/* Stage one-pass: a whole step in one kernel, the x-, y- and z-sweeps and the reactions, so that a
 * step reads and writes the lattice once (the problem's floor) instead of three or four times.
 * The sweeps of the sites around a block's tile, which its neighbours own, are done again there
 * with the same keyed draws: the lattice is bitwise the one of four passes.
 *
 * A block owns TX x TY columns of up to `tz` planes and walks up z. Each lattice plane from the
 * one before its first to the one after its last is loaded once with a ring one site wide
 * ((TX + 2) x (TY + 2) sites), x-swept on its TY + 2 rows and y-swept on the tile. Every thread
 * keeps its own column's last y-swept planes, their types and their z-moves in registers: the
 * z-sweep of a plane, its reactions and its store need nothing of the other columns, so no
 * barrier. Two facts make the ring one site wide: rd_move draws the - and + moves from the two
 * halves of one word, so a ring site's moves into the tile need only the types of the tile's
 * sites; and a ring site's gather, made again here, pushes no overflow entry (its owner pushes
 * the same one). A lane a site: drawing each pass's moves from a list of its occupied sites
 * instead, as the sweeps' kernels do, ran 5 % fewer instructions and no faster (abf7903;
 * docs/limits.md, "One pass a step"). */
#include "../../../cuda/check.h"
#include "common.cuh"
#include "launch.h"

template <class F> struct one_pass_tile {
    static const int TX = 32;
    static const int TY = sizeof(typename F::site_t) == 4 ? 16 : 8; /* byte16: shared memory */
    static const int THREADS = TX * TY;
    static const int BLOCKS_PER_SM = 2; /* 64 registers a thread at most (90 without the bound:
                                           one block an SM, a latency-bound 16 warps) */
    static const int RW = TX + 2, RH = TY + 2; /* the ring: columns -1 .. TX, rows -1 .. TY */
};

/* Coordinate c of a lattice len long, moved in when it is one site outside and the edges are
 * periodic; -1 for a site outside the lattice. */
__device__ __forceinline__ int inside_at(int c, int len, int periodic)
{
    if (c >= 0 && c < len)
        return c;
    if (periodic && (c == -1 || c == len))
        return c < 0 ? len - 1 : 0;
    return -1;
}

/* The new content of a site, given it and its two neighbours along the swept axis with their
 * moves (move_mask): the stayers, the + movers of the one before, the - movers of the one
 * after; an empty site with empty neighbours at once. What does not fit overflows, pushed to the
 * list only where `own` (a ring site's owner pushes the same entry). Not common.cuh's gather<>:
 * its overflow goes by a rd_step whose sink says which sites are owned, and a copy of the step
 * with an empty sink for the ring's sites cost the kernel 256 bytes of stack a thread, written
 * at every block's start (the run's DRAM writes doubled). */
template <class F>
__device__ __forceinline__ typename F::site_t gather3(const rd_step &a, int axis, bool own,
                                                      size_t site, typename F::site_t before,
                                                      uint32_t mb, typename F::site_t self,
                                                      uint32_t ms, typename F::site_t after,
                                                      uint32_t ma, int type)
{
    slots out = {0, 0};
    if (!F::occupied(before) && !F::occupied(self) && !F::occupied(after))
        return F::pack(out, type);
    int n = 0, rank = 0;
    auto add = [&](slots from, uint32_t sel) {
        for (; sel; sel &= sel - 1) {
            int sp = slot_species<F::BITS>(from, __ffs(sel) - 1);
            if (n < F::CAP)
                slot_set<F::BITS>(&out, n++, sp);
            else {
                if (own)
                    overflow_push(a, axis, site, rank, sp);
                rank++;
            }
        }
    };
    slots s = F::unpack(self);
    add(s, ~(ms | ms >> 16) & ((1u << F::count(s)) - 1));
    add(F::unpack(before), mb >> 16);
    add(F::unpack(after), ma & 0xffffu);
    if (rank && a.runs) /* the steps after this one in the graph body do nothing */
        *a.runs = a.body_step + 1;
    return F::pack(out, type);
}

/* The moves of a site's particles, none where it is empty. */
template <class F>
__device__ __forceinline__ uint32_t moves_of(const rd_step &a, int axis, size_t site,
                                             typename F::site_t w, int type, int type_minus,
                                             int type_plus)
{
    if (!F::occupied(w))
        return 0;
    slots s = F::unpack(w);
    return move_mask<F>(a, axis, site, s, F::count(s), type, type_minus, type_plus);
}

template <class F>
__global__ void __launch_bounds__(one_pass_tile<F>::THREADS, one_pass_tile<F>::BLOCKS_PER_SM)
    one_pass(const typename F::site_t *__restrict__ in, typename F::site_t *__restrict__ out,
             rd_step a, int tz, const rd_reaction_table *__restrict__ table,
             unsigned long long *fired)
{
    typedef one_pass_tile<F> T;
    typedef typename F::site_t site_t;
    __shared__ site_t ring[T::RH * T::RW];      /* the plane as loaded */
    __shared__ uint8_t rtype[T::RH * T::RW];
    __shared__ uint32_t xmoves[T::RH * T::RW];
    __shared__ site_t xswept[T::RH * T::TX];   /* rows -1 .. TY, the tile's columns */
    __shared__ uint32_t ymoves[T::RH * T::TX];
    __shared__ int nfired;
    if (step_skipped(a))
        return;
    const int nx = a.nx, ny = a.ny, nz = a.nz;
    const int x0 = blockIdx.x * T::TX, y0 = blockIdx.y * T::TY;
    const int z0 = blockIdx.z * tz, zend = min(z0 + tz, nz);
    const int tx = threadIdx.x % T::TX, ty = threadIdx.x / T::TX;
    const int gx = x0 + tx, gy = y0 + ty;
    const bool column = gx < nx && gy < ny; /* the thread's column is in the lattice */
    const bool every_site = table->has_order0;
    if (threadIdx.x == 0)
        nfired = 0;
    int fired_here = 0;

    /* the column's y-swept planes k - 2, k - 1, k (ys), their z-moves (zm, planes k - 2 and
     * k - 1) and types (planes k - 1 and k), after plane k = z - z0 + 1 is y-swept */
    site_t ys0 = F::empty(), ys1 = F::empty(), ys2 = F::empty();
    uint32_t zm0 = 0, zm1 = 0;
    int t0 = RD_OUTSIDE, t1 = RD_OUTSIDE;
    for (int z = z0 - 1; z <= zend + 1; z++) {
        const int k = z - z0 + 1;
        const int cz = inside_at(z, nz, a.periodic);
        const bool own_plane = z >= z0 && z < zend;
        /* plane z (up to the one after the tile's last), swept in x and y; past it, only the
         * z-sweep of the last own plane is left */
        site_t y_new = F::empty();
        int t_new = RD_OUTSIDE;
        if (z <= zend) {
            /* the plane's ring: the tile, a site around it */
            for (int i = threadIdx.x; i < T::RH * T::RW; i += T::THREADS) {
                int cx = inside_at(x0 + i % T::RW - 1, nx, a.periodic);
                int cy = inside_at(y0 + i / T::RW - 1, ny, a.periodic);
                site_t w = F::empty();
                int type = RD_OUTSIDE;
                if (cx >= 0 && cy >= 0 && cz >= 0) {
                    size_t s = cx + nx * (cy + (size_t)ny * cz);
                    w = in[s];
                    type = F::type(w, a.types, s);
                }
                ring[i] = w;
                rtype[i] = (uint8_t)type;
            }
            __syncthreads();
            /* x-moves; a ring column's moves out of the tile are never used */
            for (int i = threadIdx.x; i < T::RH * T::RW; i += T::THREADS) {
                int c = i % T::RW;
                uint32_t m = 0;
                if (F::occupied(ring[i])) {
                    int cx = inside_at(x0 + c - 1, nx, a.periodic);
                    int cy = inside_at(y0 + i / T::RW - 1, ny, a.periodic);
                    m = moves_of<F>(a, 0, cx + nx * (cy + (size_t)ny * cz), ring[i], rtype[i],
                                    c > 0 ? rtype[i - 1] : RD_OUTSIDE,
                                    c < T::RW - 1 ? rtype[i + 1] : RD_OUTSIDE);
                }
                xmoves[i] = m;
            }
            __syncthreads();
            /* x-gathers of the tile's columns, rows -1 .. TY */
            for (int j = threadIdx.x; j < T::RH * T::TX; j += T::THREADS) {
                int r = j / T::TX, c = j % T::TX, i = r * T::RW + c + 1;
                int cx = x0 + c < nx ? x0 + c : -1;
                int cy = inside_at(y0 + r - 1, ny, a.periodic);
                site_t w = F::empty();
                if (cx >= 0 && cy >= 0 && cz >= 0) {
                    /* a tile row, not a ring row nor a row wrapped around past the lattice's end */
                    bool own = own_plane && r >= 1 && r <= T::TY && y0 + r - 1 < ny;
                    w = gather3<F>(a, 0, own, cx + nx * (cy + (size_t)ny * cz), ring[i - 1],
                                   xmoves[i - 1], ring[i], xmoves[i], ring[i + 1], xmoves[i + 1],
                                   rtype[i]);
                }
                xswept[j] = w;
            }
            __syncthreads();
            /* y-moves of the x-swept rows; a ring row's moves out of the tile are never used */
            for (int j = threadIdx.x; j < T::RH * T::TX; j += T::THREADS) {
                int r = j / T::TX, c = j % T::TX, i = r * T::RW + c + 1;
                uint32_t m = 0;
                if (F::occupied(xswept[j])) {
                    int cy = inside_at(y0 + r - 1, ny, a.periodic);
                    m = moves_of<F>(a, 1, x0 + c + nx * (cy + (size_t)ny * cz), xswept[j], rtype[i],
                                    r > 0 ? rtype[i - T::RW] : RD_OUTSIDE,
                                    r < T::RH - 1 ? rtype[i + T::RW] : RD_OUTSIDE);
                }
                ymoves[j] = m;
            }
            __syncthreads();
            /* the column's y-gather of plane k (from here on the thread's own) */
            const int j = (ty + 1) * T::TX + tx, i = (ty + 1) * T::RW + tx + 1;
            t_new = rtype[i];
            if (column && cz >= 0)
                y_new = gather3<F>(a, 1, own_plane, gx + nx * (gy + (size_t)ny * cz),
                                   xswept[j - T::TX], ymoves[j - T::TX], xswept[j], ymoves[j],
                                   xswept[j + T::TX], ymoves[j + T::TX], t_new);
            __syncthreads(); /* the next plane's load overwrites the ring */
        }
        if (!column)
            continue;
        /* plane k - 1's z-moves, now that both its neighbours' types are known (after the
         * last plane, RD_OUTSIDE: only its - moves, into the last own plane, are used) */
        uint32_t zm2 = 0;
        if (k >= 1) {
            int c1 = inside_at(z - 1, nz, a.periodic);
            if (c1 >= 0)
                zm2 = moves_of<F>(a, 2, gx + nx * (gy + (size_t)ny * c1), ys2, t1, t0, t_new);
        }
        /* the z-gather of plane k - 2, its reactions and its store, where it is the block's */
        if (k >= 3) {
            size_t s = gx + nx * (gy + (size_t)ny * (z - 2));
            site_t w = gather3<F>(a, 2, true, s, ys0, zm0, ys1, zm1, ys2, zm2, t0);
            if ((every_site || F::occupied(w)) && react_site<F>(a, table, s, t0, &w))
                fired_here++;
            out[s] = w;
        }
        ys0 = ys1, ys1 = ys2, ys2 = y_new;
        zm0 = zm1, zm1 = zm2;
        t0 = t1, t1 = t_new;
    }
    if (fired_here)
        atomicAdd(&nfired, fired_here);
    __syncthreads();
    if (threadIdx.x == 0 && nfired)
        atomicAdd(fired, (unsigned long long)nfired);
}

/* Planes a block: enough blocks for two waves of the device where the lattice allows, each at
 * least 4 planes (its two extra planes' sweeps are then a third of its work at most), at most 64. */
template <class F> static int planes_a_block(const rd_step *a, int *tz)
{
    typedef one_pass_tile<F> T;
    int dev, sms, per_sm;
    SB_CUDA(cudaGetDevice(&dev));
    SB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    SB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, one_pass<F>, T::THREADS, 0));
    long long columns = (long long)((a->nx + T::TX - 1) / T::TX) * ((a->ny + T::TY - 1) / T::TY);
    long long want = 2LL * sms * (per_sm > 0 ? per_sm : 1);
    long long z = (a->nz * columns + want - 1) / want;
    z = z < 4 ? 4 : z > 64 ? 64 : z;
    *tz = (int)(z < a->nz ? z : a->nz);
    return 0;
}

template <class F>
static int launch(const void *in, void *out, const rd_step *a, const rd_reaction_table *table,
                  unsigned long long *fired, cudaStream_t st)
{
    typedef one_pass_tile<F> T;
    int tz = 1;
    if (planes_a_block<F>(a, &tz) != 0)
        return -1;
    dim3 grid((a->nx + T::TX - 1) / T::TX, (a->ny + T::TY - 1) / T::TY, (a->nz + tz - 1) / tz);
    one_pass<F><<<grid, T::THREADS, 0, st>>>((const typename F::site_t *)in,
                                             (typename F::site_t *)out, *a, tz, table, fired);
    SB_LAUNCHED("one_pass");
    return 0;
}

int rd_one_pass(rd_site_format f, const void *in, void *out, const rd_step *a,
                const rd_reaction_table *table, unsigned long long *fired, cudaStream_t st)
{
    if (a->slab.halo || a->slab.planes != a->nz)
        return sb_fail("one-pass: the step runs on the whole lattice of one GPU");
    return f == RD_PACKED32 ? launch<packed32>(in, out, a, table, fired, st)
                            : launch<byte16>(in, out, a, table, fired, st);
}

int rd_load_one_pass(rd_site_format f)
{
    cudaFuncAttributes attr;
    if (f == RD_PACKED32)
        SB_CUDA(cudaFuncGetAttributes(&attr, one_pass<packed32>));
    else
        SB_CUDA(cudaFuncGetAttributes(&attr, one_pass<byte16>));
    return 0;
}
