/* The micro and force kernels, one source for every build (gpu.h's mm_kernel_config): templates
 * over the precision, the block shape, which thread index walks s, the storage order and the
 * block sum, and __launch_bounds__ on or off. kernels-precise.cu and kernels-fast.cu include this
 * file and instantiate the builds the ladder uses, the second one compiled with --use_fast_math:
 * fast math is a compiler switch, not a template argument.
 *
 * Micro (algorithm 2): one block per tail r0 (a grid-stride loop when the grid is smaller). The
 * tail's inner-step limit from its binding capacity (a block sum in fp64, so that every precision
 * takes the reference's number of steps), then inner steps until t + dt. An inner step walks the
 * window's centres that any line reaches: the centre's cells of M_b into a tile in shared memory,
 * Heun's first stage into a second tile, the second stage back to global memory, each new value
 * times Psi added to the thread's share of the coarse density. Two tile pairs alternate, so one
 * centre's loads overlap the last one's stores with two barriers a centre. Only the cells a step
 * can change are touched: the feasible run of a line and what lies after it (where bound motors
 * walk to); the cells before a line's first feasible cell hold no motors and never will. Each
 * centre's such cells are listed once (gpu.c; tail-independent) and the block's threads take
 * them in turn, so no thread idles on a line that never meets the disc. The list's order is the
 * dimension mapping: s fastest (consecutive threads, consecutive s) or theta fastest. Then the
 * block sum of the coarse density, the scaling rule and M_f, as host.c's mm_micro_tail. */
#include <cuda_runtime.h>

#include "../../cuda/check.h"
#include "gpu.h"
#include "physics.h"

/* Before compute capability 6.0 (sm_37, sm_52: docs/harness.md "Old GPUs and toolkits") there is
 * no atomicAdd on doubles: the CUDA C Programming Guide's compare-and-swap loop, which rounds each
 * addition as the instruction does. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600
static __device__ __forceinline__ double atomicAdd(double *address, double val)
{
    unsigned long long *p = (unsigned long long *)address, old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
    } while (assumed != old); /* integer comparison: no hang on NaN */
    return __longlong_as_double(old);
}
#endif

#define MM_T float
#define MM_FN(name) name##_f
#include "physics-micro.inc"
#undef MM_T
#undef MM_FN

/* The laws in the kernel's precision (physics-micro.inc's two forms). */
static __device__ __forceinline__ double face_flux(const double *l, int m, int f, int n, double v)
{
    return mm_face_flux(l, m, f, n, v);
}
static __device__ __forceinline__ float face_flux(const float *l, int m, int f, int n, float v)
{
    return mm_face_flux_f(l, m, f, n, v);
}
static __device__ __forceinline__ double rate(double in, double out, double mb, double ds,
                                              double k_off, double source)
{
    return mm_rate(in, out, mb, ds, k_off, source);
}
static __device__ __forceinline__ float rate(float in, float out, float mb, float ds, float k_off,
                                             float source)
{
    return mm_rate_f(in, out, mb, ds, k_off, source);
}
static __device__ __forceinline__ double euler(double mb, double r, double h)
{
    return mm_euler(mb, r, h);
}
static __device__ __forceinline__ float euler(float mb, float r, float h)
{
    return mm_euler_f(mb, r, h);
}
static __device__ __forceinline__ double heun(double mb, double stage, double r, double h)
{
    return mm_heun(mb, stage, r, h);
}
static __device__ __forceinline__ float heun(float mb, float stage, float r, float h)
{
    return mm_heun_f(mb, stage, r, h);
}
static __device__ __forceinline__ double ab2(double mb, double r, double prev, double h,
                                             double h_prev)
{
    return mm_ab2(mb, r, prev, h, h_prev);
}
static __device__ __forceinline__ float ab2(float mb, float r, float prev, float h, float h_prev)
{
    return mm_ab2_f(mb, r, prev, h, h_prev);
}

/* The block's sum of every thread's v, returned to all. Unroll: the tree stops at 64 lanes and
 * one warp finishes by shuffles (the paper's unrolled last warp; a volatile shared-memory tail is
 * unsafe since Volta); else the tree runs to one lane with a barrier per level. */
template <class T, int NT, bool Unroll>
static __device__ T block_sum(T v, T *scratch)
{
    static_assert(NT >= 64 && (NT & (NT - 1)) == 0, "a power of two of at least 64 threads");
    int t = threadIdx.x + blockDim.x * threadIdx.y;
    scratch[t] = v;
    __syncthreads();
    for (int s = NT / 2; s > (Unroll ? 32 : 0); s >>= 1) {
        if (t < s)
            scratch[t] += scratch[t + s];
        __syncthreads();
    }
    if (Unroll) {
        if (t < 32) {
            v = scratch[t] + scratch[t + 32];
            for (int o = 16; o > 0; o >>= 1)
                v += __shfl_down_sync(0xffffffffu, v, o);
            if (t == 0)
                scratch[0] = v;
        }
        __syncthreads();
    }
    T total = scratch[0];
    __syncthreads(); /* scratch free for the next sum */
    return total;
}

/* The outer cell of window cell w of the tail at (i0, j0). */
static __device__ __forceinline__ int window_cell(int w, int i0, int j0, int side, int half, int n)
{
    return mm_wrap(i0 + w % side - half, n) + n * mm_wrap(j0 + w / side - half, n);
}

/* M_b's index of cell (k, m) within a window cell's tile, in the storage order. */
template <bool SInner>
static __device__ __forceinline__ int tile_at(int k, int m, int ni)
{
    return SInner ? k * ni + m : m * ni + k;
}

template <class Real, int NT, bool SInner, bool Unroll>
static __device__ void micro_body(const mm_micro_args &a)
{
    extern __shared__ double smem[];
    double *scratch = smem;
    Real *tiles = (Real *)(smem + NT);
    const int ni = a.n_inner, tp = ni + 1, ts = ni * tp, n = a.n_outer;
    const int t = threadIdx.x + blockDim.x * threadIdx.y;
    const size_t tail_entries = (size_t)a.window * ni * ni;
    const Real v = (Real)a.laws.v, ds = (Real)a.ds, k_off = (Real)a.laws.k_off;
    const Real measure = (Real)(a.dtheta * a.ds);
    for (int r0 = a.first + blockIdx.x; r0 < a.end; r0 += gridDim.x) {
        Real *mb = (Real *)a.m_b + (size_t)(r0 - a.first) * tail_entries;
        Real *prev = a.ab2 ? (Real *)a.rate_prev + (size_t)(r0 - a.first) * tail_entries : NULL;
        const int i0 = r0 % n, j0 = r0 / n;
        double limit = a.global_limit;
        if (limit <= 0) {
            double capacity = 0;
            for (int line = t; line < a.window * ni; line += NT) {
                int w = line / ni, k = line % ni;
                capacity += a.psi[(size_t)window_cell(w, i0, j0, a.side, a.half, n) * ni + k] *
                            (a.line_end[line] - a.line_first[line]);
            }
            capacity = block_sum<double, NT, Unroll>(capacity, scratch) * a.dtheta * a.ds;
            limit = mm_inner_limit(&a.laws, a.ds, capacity);
        }
        const Real m_tot = (Real)a.m_tot[r0];
        Real m_f = (Real)a.m_f[r0], coarse = (Real)a.coarse[r0];
        double dt_prev = a.ab2 ? a.dt_prev[r0] : 0;
        int steps = 0, buf = 0;
        for (double left = *a.dt; left > 0; steps++) {
            const double step = mm_inner_step(limit, left);
            const Real h = (Real)step, h_prev = (Real)dt_prev;
            const Real source = (Real)a.laws.k_on * m_f;
            Real partial = 0;
            for (int w = 0; w < a.window; w++) {
                const int from = a.cell_start[w], to = a.cell_start[w + 1];
                if (from == to)
                    continue; /* no line of this centre meets the disc */
                const int cell = window_cell(w, i0, j0, a.side, a.half, n);
                const int *first = a.line_first + w * ni, *end = a.line_end + w * ni;
                Real *cur = tiles + buf * 2 * ts, *stage = cur + ts;
                Real *mbw = mb + (size_t)w * ni * ni;
                buf ^= 1;
                for (int e = from + t; e < to; e += NT) {
                    const int k = a.cells[e] >> 8, m = a.cells[e] & 255;
                    cur[k * tp + m] = mbw[tile_at<SInner>(k, m, ni)];
                }
                __syncthreads();
                if (a.ab2) {
                    Real *prevw = prev + (size_t)w * ni * ni;
                    for (int e = from + t; e < to; e += NT) {
                        const int k = a.cells[e] >> 8, m = a.cells[e] & 255, f = first[k];
                        const Real *line = cur + k * tp;
                        const Real r = rate(face_flux(line, m - 1, f, ni, v),
                                            face_flux(line, m, f, ni, v), line[m], ds, k_off,
                                            m < end[k] ? source : (Real)0);
                        const int g = tile_at<SInner>(k, m, ni);
                        const Real next = ab2(line[m], r, prevw[g], h, h_prev);
                        mbw[g] = next;
                        prevw[g] = r;
                        partial += (Real)a.psi[(size_t)cell * ni + k] * next;
                    }
                    continue;
                }
                for (int e = from + t; e < to; e += NT) {
                    const int k = a.cells[e] >> 8, m = a.cells[e] & 255, f = first[k];
                    const Real *line = cur + k * tp;
                    stage[k * tp + m] =
                        euler(line[m],
                              rate(face_flux(line, m - 1, f, ni, v), face_flux(line, m, f, ni, v),
                                   line[m], ds, k_off, m < end[k] ? source : (Real)0),
                              h);
                }
                __syncthreads();
                for (int e = from + t; e < to; e += NT) {
                    const int k = a.cells[e] >> 8, m = a.cells[e] & 255, f = first[k];
                    const Real *line = cur + k * tp, *mid = stage + k * tp;
                    const Real next =
                        heun(line[m], mid[m],
                             rate(face_flux(mid, m - 1, f, ni, v), face_flux(mid, m, f, ni, v),
                                  mid[m], ds, k_off, m < end[k] ? source : (Real)0),
                             h);
                    mbw[tile_at<SInner>(k, m, ni)] = next;
                    partial += (Real)a.psi[(size_t)cell * ni + k] * next;
                }
            }
            Real bound = block_sum<Real, NT, Unroll>(partial, (Real *)scratch) * measure;
            /* more motors bound than the tail has: every configuration scaled down alike (each
             * thread its own cells, so no barrier before the next step's loads) */
            if (bound > m_tot) {
                const Real scale = m_tot / bound;
                for (int w = 0; w < a.window; w++) {
                    Real *mbw = mb + (size_t)w * ni * ni;
                    for (int e = a.cell_start[w] + t; e < a.cell_start[w + 1]; e += NT)
                        mbw[tile_at<SInner>(a.cells[e] >> 8, a.cells[e] & 255, ni)] *= scale;
                }
                bound = m_tot;
            }
            coarse = bound;
            m_f = m_tot - bound;
            dt_prev = step;
            left = step < left ? left - step : 0;
        }
        if (t == 0) {
            a.coarse[r0] = (double)coarse;
            a.m_f[r0] = (double)m_f;
            if (a.ab2)
                a.dt_prev[r0] = dt_prev;
            atomicAdd(a.inner_steps, (unsigned long long)steps);
        }
    }
}

/* Two kernels from one body: __launch_bounds__ cannot depend on a template argument being set.
 * The bound keeps 1024 threads an SM resident (8 blocks of 128: the paper's (128, 8)), which caps
 * a thread at 64 registers. */
template <class Real, int NT, bool SInner, bool Unroll>
__global__ void __launch_bounds__(NT, 1024 / NT) micro_bounded(mm_micro_args a)
{
    micro_body<Real, NT, SInner, Unroll>(a);
}

template <class Real, int NT, bool SInner, bool Unroll>
__global__ void micro_free(mm_micro_args a)
{
    micro_body<Real, NT, SInner, Unroll>(a);
}

/* The dimension mapping is not a template argument: it is the order of the cell lists (gpu.c),
 * which decides what consecutive threads touch. */
template <class Real, int BX, int BY, bool LB, bool SInner, bool Unroll>
static int launch_micro(const mm_micro_args *a, cudaStream_t stream)
{
    void (*kernel)(mm_micro_args) = LB ? micro_bounded<Real, BX * BY, SInner, Unroll>
                                       : micro_free<Real, BX * BY, SInner, Unroll>;
    /* the block sum's scratch, then two pairs of tiles (padded rows: theta-strided lanes) */
    size_t shared = BX * BY * sizeof(double) + 4 * (size_t)a->n_inner * (a->n_inner + 1) * sizeof(Real);
    SB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)shared));
    int tails = a->end - a->first;
    if (tails <= 0)
        return 0;
    kernel<<<tails, dim3(BX, BY), shared, stream>>>(*a);
    SB_LAUNCHED(LB ? "micro_bounded" : "micro_free");
    return 0;
}

/* Adds a run of attachments' corner weights to the patch, along the line's direction. */
static __device__ __forceinline__ void add_corners(double *patch, int cells, int side, int p,
                                                   const double c[4], double cos_t, double sin_t)
{
    const int at[4] = {p, p + 1, p + side, p + side + 1};
    for (int q = 0; q < 4; q++) {
        atomicAdd(&patch[at[q]], c[q] * cos_t);
        atomicAdd(&patch[cells + at[q]], c[q] * sin_t);
    }
}

/* Eq. 10 for one tail per block: every bound configuration pulls at its attachment point, spread
 * bilinearly into a patch of (2 reach + 1)^2 cells around the tail in shared memory, then the
 * patch added to F (one global atomic per patch cell instead of one per configuration corner).
 * A thread walks whole lines (the active ones, listed once): along a line the attachment point
 * moves ell over its N_i cells, so the corner weights are summed in registers while it stays in
 * one outer cell and added to the patch when it leaves (a few times a line, not at every cell).
 * The terms are host.c's spread_tail's; only the order of the sums differs. */
template <class Real, bool SInner>
__global__ void force_kernel(mm_force_args a)
{
    extern __shared__ double patch[]; /* x plane, then y */
    const int ni = a.n_inner, n = a.n_outer, side = 2 * a.reach + 1, cells = side * side;
    const size_t entries = (size_t)a.window * ni * ni;
    for (int r0 = a.first + blockIdx.x; r0 < a.end; r0 += gridDim.x) {
        const Real *tail = (const Real *)a.m_b + (size_t)(r0 - a.first) * entries;
        const int i0 = r0 % n, j0 = r0 / n;
        for (int c = threadIdx.x; c < 2 * cells; c += blockDim.x)
            patch[c] = 0;
        __syncthreads();
        for (int l = threadIdx.x; l < a.nactive; l += blockDim.x) {
            const int line = a.active_lines[l], w = line / ni, k = line % ni;
            const double dx = w % a.side - a.half, dy = w / a.side - a.half;
            const int cell = window_cell(w, i0, j0, a.side, a.half, n);
            const double cos_t = a.cos_theta[k], sin_t = a.sin_theta[k];
            const double weight = a.per_motor * a.psi[(size_t)cell * ni + k];
            const Real *tile = tail + (size_t)w * ni * ni;
            int p = -1;
            double c[4] = {0, 0, 0, 0};
            for (int m = a.line_first[line]; m < ni; m++) {
                int bx, by;
                double gx, gy;
                mm_spread_at(dx + a.s_mid[m] * cos_t, dy + a.s_mid[m] * sin_t, &bx, &by, &gx, &gy);
                const int here = (by + a.reach) * side + bx + a.reach;
                if (here != p) {
                    if (p >= 0)
                        add_corners(patch, cells, side, p, c, cos_t, sin_t);
                    p = here;
                    c[0] = c[1] = c[2] = c[3] = 0;
                }
                const double pull = weight * (double)tile[tile_at<SInner>(k, m, ni)];
                c[0] += pull * (1 - gx) * (1 - gy);
                c[1] += pull * gx * (1 - gy);
                c[2] += pull * (1 - gx) * gy;
                c[3] += pull * gx * gy;
            }
            if (p >= 0)
                add_corners(patch, cells, side, p, c, cos_t, sin_t);
        }
        __syncthreads();
        for (int c = threadIdx.x; c < cells; c += blockDim.x) {
            const double fx = patch[c], fy = patch[cells + c];
            if (fx == 0 && fy == 0)
                continue;
            /* the patch may be wider than a small grid: wrap by remainder, not by one period */
            const int gi = ((i0 + c % side - a.reach) % n + n) % n;
            const int gj = ((j0 + c / side - a.reach) % n + n) % n;
            atomicAdd(&a.force[gi + (size_t)n * gj], fx);
            atomicAdd(&a.force[(size_t)n * n + gi + (size_t)n * gj], fy);
        }
        __syncthreads();
    }
}

#define MM_FORCE_THREADS 128

template <class Real, bool SInner>
static int launch_force(const mm_force_args *a, cudaStream_t stream)
{
    int side = 2 * a->reach + 1, tails = a->end - a->first;
    if (tails <= 0)
        return 0;
    force_kernel<Real, SInner>
        <<<tails, MM_FORCE_THREADS, 2 * side * side * sizeof(double), stream>>>(*a);
    SB_LAUNCHED("force_kernel");
    return 0;
}

/* One instantiated build: the switches it was compiled for and its two launchers. */
typedef struct mm_build {
    mm_kernel_config k;
    int (*micro)(const mm_micro_args *, cudaStream_t);
    int (*force)(const mm_force_args *, cudaStream_t);
} mm_build;

/* A build's table entry from its switches, in mm_kernel_config's order. */
#define MM_BUILD(REAL, FAST, LB, MAP, SIN, UNROLL, BX, BY)                                          \
    {{sizeof(REAL) == 4, FAST, LB, MAP, SIN, UNROLL, BX, BY},                                      \
     launch_micro<REAL, BX, BY, LB, SIN, UNROLL>, launch_force<REAL, SIN>}

static int same_build(const mm_kernel_config *x, const mm_kernel_config *y)
{
    return x->fp32 == y->fp32 && x->fast_math == y->fast_math &&
           x->launch_bounds == y->launch_bounds && x->map_s_to_x == y->map_s_to_x &&
           x->s_inner == y->s_inner && x->unroll == y->unroll && x->block_x == y->block_x &&
           x->block_y == y->block_y;
}

static const mm_build *find_build(const mm_build *builds, int n, const mm_kernel_config *k)
{
    for (int i = 0; i < n; i++)
        if (same_build(&builds[i].k, k))
            return &builds[i];
    sb_fail("motility: no kernel build for fp%d fast_math=%d launch_bounds=%d map_s_to_x=%d "
            "s_inner=%d unroll=%d block %dx%d (kernels-*.cu instantiate the ladder's builds)",
            k->fp32 ? 32 : 64, k->fast_math, k->launch_bounds, k->map_s_to_x, k->s_inner,
            k->unroll, k->block_x, k->block_y);
    return NULL;
}
