/* The macroscale stand-in on the GPU (macro.h says what and why). Psi: the bound fraction, every
 * (cell, orientation)'s outflow rate reduced to the largest, the outer step, the transport; the
 * fluid: the extra stress beside the force, one batched D2Z, every layer's velocity spectra, one
 * batched Z2D. Each Psi kernel works on one (cell, orientation) entry, as host.c's loops do, with
 * host.c's expressions and physics.h's laws. */
#include <string.h>

#include "../../cuda/check.h"
#include "../../cuda/devmem.h"
#include "../../cuda/base/error.h"
#include "macro.h"
#include "physics.h"

#define THREADS 256

static const char *cufft_text(cufftResult r)
{
    switch (r) {
    case CUFFT_INVALID_PLAN: return "invalid plan";
    case CUFFT_ALLOC_FAILED: return "allocation failed";
    case CUFFT_INVALID_TYPE: return "invalid type";
    case CUFFT_INVALID_VALUE: return "invalid value";
    case CUFFT_INTERNAL_ERROR: return "internal error";
    case CUFFT_EXEC_FAILED: return "execution failed";
    case CUFFT_SETUP_FAILED: return "setup failed (library not initialised)";
    case CUFFT_INVALID_SIZE: return "invalid size";
    case CUFFT_UNALIGNED_DATA: return "unaligned data";
    case CUFFT_INVALID_DEVICE: return "invalid device";
    case CUFFT_NO_WORKSPACE: return "no work area";
    case CUFFT_NOT_IMPLEMENTED: return "not implemented";
    case CUFFT_NOT_SUPPORTED: return "not supported";
    default: return "unknown status";
    }
}

/* A cuFFT call checked like SB_CUDA: one message (file:line, the call, cuFFT's status). */
#define MM_CUFFT(call)                                                                             \
    do {                                                                                           \
        cufftResult mm_status_ = (call);                                                           \
        if (mm_status_ != CUFFT_SUCCESS)                                                           \
            return sb_fail("%s:%d: %s failed: cuFFT status %d (%s)", __FILE__, __LINE__, #call,    \
                           (int)mm_status_, cufft_text(mm_status_));                              \
    } while (0)

static unsigned blocks_for(size_t threads)
{
    return (unsigned)((threads + THREADS - 1) / THREADS);
}

/* ---- Psi ---- */

/* What the Psi kernels read: Psi, layer 0's u, the bound fraction, the orientation tables. */
typedef struct psi_args {
    const double *psi, *ux, *uy, *beta;
    const double *cos_theta, *sin_theta, *cos_face, *sin_face;
    int n, n_inner;
    double v_glide, d_t, d_r, dtheta;
} psi_args;

/* An outer cell and its four neighbours (periodic), as host.c's nbrs_of. */
typedef struct nbrs {
    int c, xm, xp, ym, yp;
} nbrs;

__device__ static nbrs nbrs_of(int n, int c)
{
    int i = c % n, j = c / n;
    nbrs q = {c, mm_wrap(i - 1, n) + n * j, mm_wrap(i + 1, n) + n * j, i + n * mm_wrap(j - 1, n),
              i + n * mm_wrap(j + 1, n)};
    return q;
}

/* host.c's gradient: grad u of layer 0 by central differences, xx, xy, yx, yy. */
__device__ static void gradient(const psi_args &a, const nbrs &q, double g[4])
{
    g[0] = 0.5 * (a.ux[q.xp] - a.ux[q.xm]);
    g[1] = 0.5 * (a.ux[q.yp] - a.ux[q.ym]);
    g[2] = 0.5 * (a.uy[q.xp] - a.uy[q.xm]);
    g[3] = 0.5 * (a.uy[q.yp] - a.uy[q.ym]);
}

/* host.c's face_speeds: through the x faces before/after, y before/after, theta before/after. */
__device__ static void face_speeds(const psi_args &a, const nbrs &q, const double g[4], int k,
                                   double s[6])
{
    const double *ux = a.ux, *uy = a.uy, *b = a.beta;
    double v = a.v_glide, cos_t = a.cos_theta[k], sin_t = a.sin_theta[k];
    int before = mm_wrap(k - 1, a.n_inner);
    s[0] = mm_face_speed(ux[q.xm], ux[q.c], b[q.xm], b[q.c], v, cos_t);
    s[1] = mm_face_speed(ux[q.c], ux[q.xp], b[q.c], b[q.xp], v, cos_t);
    s[2] = mm_face_speed(uy[q.ym], uy[q.c], b[q.ym], b[q.c], v, sin_t);
    s[3] = mm_face_speed(uy[q.c], uy[q.yp], b[q.c], b[q.yp], v, sin_t);
    s[4] = mm_jeffery(g[0], g[1], g[2], g[3], a.cos_face[before], a.sin_face[before]);
    s[5] = mm_jeffery(g[0], g[1], g[2], g[3], a.cos_face[k], a.sin_face[k]);
}

__global__ static void bound_fraction(const double *coarse, const double *m_tot, double *beta,
                                      int cells)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cells)
        beta[c] = m_tot[c] > 0 ? coarse[c] / m_tot[c] : 0;
}

/* The largest outflow rate over every (cell, orientation) into *fastest, as the bits of a
 * double: for doubles >= +0 the bits order as the values, so one atomicMax per block gives the
 * exact maximum whatever the order. Every rate is made >= +0 first (a -0 or a NaN becomes +0; the
 * host's fmax skips a NaN too). Launched with THREADS threads a block. */
__global__ static void __launch_bounds__(THREADS)
    outflow_max(psi_args a, double diffusion, unsigned long long *fastest)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    double rate = 0;
    if (e < a.n * a.n * a.n_inner) {
        nbrs q = nbrs_of(a.n, e / a.n_inner);
        double g[4], s[6];
        gradient(a, q, g);
        face_speeds(a, q, g, e % a.n_inner, s);
        double r = mm_outflow(s[0], s[1]) + mm_outflow(s[2], s[3]) +
                   mm_outflow(s[4], s[5]) / a.dtheta + diffusion;
        rate = r > 0 ? r : 0;
    }
    __shared__ double warp_max[THREADS / 32];
    for (int step = 16; step > 0; step /= 2) {
        double other = __shfl_down_sync(0xffffffffu, rate, step);
        rate = other > rate ? other : rate;
    }
    if (threadIdx.x % 32 == 0)
        warp_max[threadIdx.x / 32] = rate;
    __syncthreads();
    if (threadIdx.x >= 32)
        return;
    rate = threadIdx.x < THREADS / 32 ? warp_max[threadIdx.x] : 0;
    for (int step = 16; step > 0; step /= 2) {
        double other = __shfl_down_sync(0xffffffffu, rate, step);
        rate = other > rate ? other : rate;
    }
    if (threadIdx.x == 0 && rate > 0)
        atomicMax(fastest, (unsigned long long)__double_as_longlong(rate));
}

/* mm_outer_dt's formula from the reduced rate. */
__global__ static void outer_step(const unsigned long long *fastest, double dt_max,
                                  double cfl_outer, double *dt)
{
    double rate = __longlong_as_double((long long)*fastest);
    *dt = rate > 0 ? fmin(dt_max, cfl_outer / rate) : dt_max;
}

/* host.c's transport_cell for one (cell, orientation): conservative upwind fluxes through the
 * six faces, central diffusion (h = 1), Euler over the outer step *dt. */
__global__ static void transport(psi_args a, const double *dt_at, double *out)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x, ni = a.n_inner;
    if (e >= a.n * a.n * ni)
        return;
    int k = e % ni, kb = mm_wrap(k - 1, ni), ka = mm_wrap(k + 1, ni);
    nbrs q = nbrs_of(a.n, e / ni);
    const double *p = a.psi + (size_t)q.c * ni, *pxm = a.psi + (size_t)q.xm * ni,
                 *pxp = a.psi + (size_t)q.xp * ni, *pym = a.psi + (size_t)q.ym * ni,
                 *pyp = a.psi + (size_t)q.yp * ni;
    double dth = a.dtheta, dt = *dt_at, g[4], s[6];
    gradient(a, q, g);
    face_speeds(a, q, g, k, s);
    double net = mm_upwind(s[1], p[k], pxp[k]) - mm_upwind(s[0], pxm[k], p[k]) +
                 mm_upwind(s[3], p[k], pyp[k]) - mm_upwind(s[2], pym[k], p[k]) +
                 (mm_upwind(s[5], p[k], p[ka]) - mm_upwind(s[4], p[kb], p[k])) / dth;
    double spread = a.d_t * (pxm[k] + pxp[k] + pym[k] + pyp[k] - 4 * p[k]) +
                    a.d_r * (p[kb] + p[ka] - 2 * p[k]) / (dth * dth);
    out[e] = p[k] - dt * net + dt * spread;
}

/* ---- fluid ---- */

/* The 5 fields of the forward transform: F copied beside host.c's extra stress
 * sigma = sum_k p p^T Psi dtheta (xx, xy, yy). */
__global__ static void stress_fields(const double *psi, const double *force,
                                     const double *cos_theta, const double *sin_theta,
                                     int n_inner, double dtheta, int cells, double *fields)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cells)
        return;
    const double *p = psi + (size_t)c * n_inner;
    double a = 0, b = 0, d = 0;
    for (int k = 0; k < n_inner; k++) {
        double cs = cos_theta[k], sn = sin_theta[k];
        a += cs * cs * p[k];
        b += cs * sn * p[k];
        d += sn * sn * p[k];
    }
    fields[c] = force[c];
    fields[cells + c] = force[cells + c];
    fields[2 * cells + c] = a * dtheta;
    fields[3 * cells + c] = b * dtheta;
    fields[4 * cells + c] = d * dtheta;
}

/* fluid.c's wavenumber of mode index q on n points. */
__device__ static double wavenumber(int q, int n)
{
    return 2 * MM_PI * (q <= n / 2 ? q : q - n) / n;
}

/* Layer blockIdx.y's velocity spectra at one mode: fluid.c's forcing f = F + stress i k.sigma,
 * projected and screened (layer_spectra), 1 / n^2 of the unnormalised inverse folded in; the
 * Nyquist modes carry none. Spectra in the r2c layout, mode e = my (n/2 + 1) + mx. */
__global__ static void velocity_spectra(const cufftDoubleComplex *spectra, const double *kappa,
                                        int n, int modes, double mu, double stress,
                                        cufftDoubleComplex *velocity)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x, half = n / 2 + 1;
    if (e >= modes)
        return;
    int my = e / half, mx = e % half;
    double *ux = (double *)(velocity + (size_t)2 * blockIdx.y * modes + e),
           *uy = (double *)(velocity + (size_t)(2 * blockIdx.y + 1) * modes + e);
    if (n % 2 == 0 && (my == n / 2 || mx == n / 2)) {
        ux[0] = ux[1] = uy[0] = uy[1] = 0;
        return;
    }
    const double *fx = (const double *)(spectra + e), *fy = (const double *)(spectra + modes + e),
                 *sxx = (const double *)(spectra + 2 * modes + e),
                 *sxy = (const double *)(spectra + 3 * modes + e),
                 *syy = (const double *)(spectra + 4 * modes + e);
    double kx = wavenumber(mx, n), ky = wavenumber(my, n), k2 = kx * kx + ky * ky, gx[2], gy[2];
    for (int c = 0; c < 2; c++) {
        /* i z = (-Im z, Re z) */
        int other = 1 - c, sign = c == 0 ? -1 : 1;
        gx[c] = fx[c] + stress * sign * (kx * sxx[other] + ky * sxy[other]);
        gy[c] = fy[c] + stress * sign * (kx * sxy[other] + ky * syy[other]);
    }
    double kappa_l = kappa[blockIdx.y];
    double scale = 1 / (mu * (k2 + kappa_l * kappa_l) * n * n);
    for (int c = 0; c < 2; c++) {
        /* the mean flow (k = 0) has no direction to remove */
        double along = k2 > 0 ? (kx * gx[c] + ky * gy[c]) / k2 : 0;
        ux[c] = (gx[c] - kx * along) * scale;
        uy[c] = (gy[c] - ky * along) * scale;
    }
}

/* ---- the host side ---- */

static int alloc(mm_dmacro *d, void *ptr, size_t bytes, const char *what)
{
    return sb_dev_alloc(&d->env->mem, d->device, (void **)ptr, bytes, what);
}

static int alloc_buffers(mm_dmacro *d)
{
    size_t cells = d->cells, entries = cells * d->n_inner, planes = 2 * (size_t)d->layers;
    int rc;
    if ((rc = alloc(d, &d->psi, entries * sizeof *d->psi, "motility's Psi")) != 0 ||
        (rc = alloc(d, &d->psi_next, entries * sizeof *d->psi_next, "motility's next Psi")) != 0 ||
        (rc = alloc(d, &d->psi0, entries * sizeof *d->psi0, "motility's initial Psi")) != 0 ||
        (rc = alloc(d, &d->u, planes * cells * sizeof *d->u, "motility's fluid layers")) != 0 ||
        (rc = alloc(d, &d->beta, cells * sizeof *d->beta, "motility's bound fraction")) != 0 ||
        (rc = alloc(d, &d->fields, 5 * cells * sizeof *d->fields, "motility's force and stress")) !=
            0 ||
        (rc = alloc(d, &d->spectra, 5 * d->modes * sizeof *d->spectra,
                    "motility's force and stress spectra")) != 0 ||
        (rc = alloc(d, &d->velocity, planes * d->modes * sizeof *d->velocity,
                    "motility's velocity spectra")) != 0 ||
        (rc = alloc(d, &d->m_tot, cells * sizeof *d->m_tot, "motility's M_tot")) != 0 ||
        (rc = alloc(d, &d->tables, (4 * (size_t)d->n_inner + d->layers) * sizeof *d->tables,
                    "motility's orientation tables")) != 0 ||
        (rc = alloc(d, &d->fastest, sizeof *d->fastest, "motility's largest outflow rate")) != 0)
        return rc;
    return 0;
}

/* Both plans with one work area of ours (tracked, refused when it cannot fit), on the stream. */
static int plan(mm_dmacro *d)
{
    int n = d->n, real_dims[2] = {n, n}, spectral_dims[2] = {n, n / 2 + 1};
    size_t forward_work = 0, inverse_work = 0;
    MM_CUFFT(cufftCreate(&d->forward));
    d->made_forward = 1;
    MM_CUFFT(cufftCreate(&d->inverse));
    d->made_inverse = 1;
    MM_CUFFT(cufftSetAutoAllocation(d->forward, 0));
    MM_CUFFT(cufftSetAutoAllocation(d->inverse, 0));
    MM_CUFFT(cufftMakePlanMany(d->forward, 2, real_dims, real_dims, 1, (int)d->cells,
                               spectral_dims, 1, (int)d->modes, CUFFT_D2Z, 5, &forward_work));
    MM_CUFFT(cufftMakePlanMany(d->inverse, 2, real_dims, spectral_dims, 1, (int)d->modes,
                               real_dims, 1, (int)d->cells, CUFFT_Z2D, 2 * d->layers,
                               &inverse_work));
    size_t work = forward_work > inverse_work ? forward_work : inverse_work;
    int rc = alloc(d, &d->fft_work, work, "motility's cuFFT work area");
    if (rc != 0)
        return rc;
    MM_CUFFT(cufftSetWorkArea(d->forward, d->fft_work));
    MM_CUFFT(cufftSetWorkArea(d->inverse, d->fft_work));
    MM_CUFFT(cufftSetStream(d->forward, d->stream));
    MM_CUFFT(cufftSetStream(d->inverse, d->stream));
    return 0;
}

/* The tables (cos_theta, sin_theta, cos_face, sin_face, kappa_layer) and M_tot; waited for, so
 * that a failed copy is reported by open. */
static int upload_model(mm_dmacro *d)
{
    const mm_model *m = d->m;
    size_t ni = (size_t)d->n_inner, row = ni * sizeof(double);
    const double *tables[4] = {m->cos_theta, m->sin_theta, m->cos_face, m->sin_face};
    for (int t = 0; t < 4; t++)
        if (sb_copy(&d->env->xfer, d->tables + t * ni, tables[t], row, cudaMemcpyHostToDevice,
                    d->stream) != 0)
            return -1;
    if (sb_copy(&d->env->xfer, d->tables + 4 * ni, m->kappa_layer,
                (size_t)d->layers * sizeof(double), cudaMemcpyHostToDevice, d->stream) != 0 ||
        sb_copy(&d->env->xfer, d->m_tot, m->m_tot, d->cells * sizeof(double),
                cudaMemcpyHostToDevice, d->stream) != 0 ||
        sb_copy(&d->env->xfer, d->psi0, m->psi0, d->cells * ni * sizeof(double),
                cudaMemcpyHostToDevice, d->stream) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(d->stream));
    return 0;
}

int mm_dmacro_open(mm_dmacro *d, sb_env *env, const mm_model *m, int device, cudaStream_t stream)
{
    memset(d, 0, sizeof *d);
    d->m = m;
    d->env = env;
    d->device = device;
    d->stream = stream;
    d->n = m->n_outer;
    d->n_inner = m->n_inner;
    d->layers = m->layers;
    d->cells = (size_t)d->n * d->n;
    d->modes = (size_t)d->n * (d->n / 2 + 1);
    cudaError_t err = cudaSetDevice(device);
    int rc = err != cudaSuccess ? sb_fail("cudaSetDevice(%d) failed: %s", device,
                                          cudaGetErrorString(err))
                                : alloc_buffers(d);
    if (rc == 0)
        rc = plan(d);
    if (rc == 0)
        rc = upload_model(d);
    if (rc != 0) {
        mm_dmacro_close(d);
        return rc;
    }
    return 0;
}

void mm_dmacro_close(mm_dmacro *d)
{
    if (!d->env)
        return; /* never opened, or closed */
    if (d->made_forward)
        cufftDestroy(d->forward);
    if (d->made_inverse)
        cufftDestroy(d->inverse);
    void *buffers[] = {d->psi,     d->psi_next, d->psi0,   d->u,       d->beta,    d->fields,
                       d->spectra, d->velocity, d->m_tot,  d->tables,  d->fastest, d->fft_work};
    for (size_t b = 0; b < sizeof buffers / sizeof *buffers; b++)
        sb_dev_free(&d->env->mem, buffers[b]);
    memset(d, 0, sizeof *d);
}

int mm_dmacro_reset(mm_dmacro *d)
{
    SB_CUDA(cudaSetDevice(d->device));
    if (sb_copy(&d->env->xfer, d->psi, d->psi0, d->cells * d->n_inner * sizeof *d->psi,
                cudaMemcpyDeviceToDevice, d->stream) != 0)
        return -1;
    SB_CUDA(cudaMemsetAsync(d->u, 0, 2 * (size_t)d->layers * d->cells * sizeof *d->u, d->stream));
    return 0;
}

int mm_dmacro_psi(mm_dmacro *d, const double *d_coarse, double *d_dt)
{
    const mm_model *m = d->m;
    const mm_laws *l = &m->laws;
    int ni = d->n_inner, cells = (int)d->cells;
    size_t entries = d->cells * ni;
    psi_args a = {d->psi,
                  d->u,
                  d->u + d->cells,
                  d->beta,
                  d->tables,
                  d->tables + ni,
                  d->tables + 2 * ni,
                  d->tables + 3 * ni,
                  d->n,
                  ni,
                  l->v_glide,
                  l->d_t,
                  l->d_r,
                  m->dtheta};
    double dth = m->dtheta, diffusion = 4 * l->d_t + 2 * l->d_r / (dth * dth);
    SB_CUDA(cudaSetDevice(d->device));
    SB_CUDA(cudaMemsetAsync(d->fastest, 0, sizeof *d->fastest, d->stream)); /* the bits of +0 */
    bound_fraction<<<blocks_for(d->cells), THREADS, 0, d->stream>>>(d_coarse, d->m_tot, d->beta,
                                                                    cells);
    SB_LAUNCHED("bound_fraction");
    outflow_max<<<blocks_for(entries), THREADS, 0, d->stream>>>(a, diffusion, d->fastest);
    SB_LAUNCHED("outflow_max");
    outer_step<<<1, 1, 0, d->stream>>>(d->fastest, l->dt_max, l->cfl_outer, d_dt);
    SB_LAUNCHED("outer_step");
    transport<<<blocks_for(entries), THREADS, 0, d->stream>>>(a, d_dt, d->psi_next);
    SB_LAUNCHED("transport");
    /* back into psi rather than swapping: the engine keeps d->psi (in kernel arguments, in a
     * captured graph) for the whole run */
    return sb_copy(&d->env->xfer, d->psi, d->psi_next, entries * sizeof *d->psi,
                   cudaMemcpyDeviceToDevice, d->stream);
}

int mm_dmacro_fluid(mm_dmacro *d, const double *d_force)
{
    const mm_model *m = d->m;
    SB_CUDA(cudaSetDevice(d->device));
    stress_fields<<<blocks_for(d->cells), THREADS, 0, d->stream>>>(
        d->psi, d_force, d->tables, d->tables + d->n_inner, d->n_inner, m->dtheta, (int)d->cells,
        d->fields);
    SB_LAUNCHED("stress_fields");
    MM_CUFFT(cufftExecD2Z(d->forward, d->fields, d->spectra));
    dim3 grid(blocks_for(d->modes), (unsigned)d->layers);
    velocity_spectra<<<grid, THREADS, 0, d->stream>>>(d->spectra, d->tables + 4 * d->n_inner,
                                                      d->n, (int)d->modes, m->laws.mu,
                                                      m->laws.stress, d->velocity);
    SB_LAUNCHED("velocity_spectra");
    MM_CUFFT(cufftExecZ2D(d->inverse, d->velocity, d->u));
    return 0;
}

__global__ static void add_into(double *to, const double *from, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        to[i] += from[i];
}

int mm_dmacro_add(mm_dmacro *d, double *to, const double *from, size_t n)
{
    SB_CUDA(cudaSetDevice(d->device));
    add_into<<<blocks_for(n), THREADS, 0, d->stream>>>(to, from, n);
    SB_LAUNCHED("add_into");
    return 0;
}
