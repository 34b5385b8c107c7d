/* The screened Stokes layers by FFTW (fluid.h says what is solved and why). */
#include "fluid.h"

#include <omp.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "physics.h"

int mm_fluid_open(mm_fluid *f, int n, int layers, const double *kappa, double mu, double stress,
                  int threads)
{
    memset(f, 0, sizeof *f);
    f->n = n;
    f->layers = layers;
    f->threads = threads;
    f->mu = mu;
    f->stress = stress;
    f->kappa = kappa;
    size_t plane = (size_t)n * n, modes = (size_t)n * (n / 2 + 1);
    f->fields = fftw_malloc(5 * plane * sizeof *f->fields);
    f->spectra = fftw_malloc(5 * modes * sizeof *f->spectra);
    f->forcing = fftw_malloc(2 * modes * sizeof *f->forcing);
    f->scratch = fftw_malloc((size_t)threads * 2 * modes * sizeof *f->scratch);
    f->u = fftw_malloc((size_t)layers * 2 * plane * sizeof *f->u);
    if (!f->fields || !f->spectra || !f->forcing || !f->scratch || !f->u) {
        mm_fluid_close(f);
        return sb_fail("out of host memory for the fluid's %d layers of %d^2", layers, n);
    }
    memset(f->u, 0, (size_t)layers * 2 * plane * sizeof *f->u);
    int dims[2] = {n, n};
    /* the inverse plan runs on every thread's scratch into every layer's planes, whose
     * alignments differ: planned unaligned */
    f->forward = fftw_plan_many_dft_r2c(2, dims, 5, f->fields, NULL, 1, (int)plane, f->spectra,
                                        NULL, 1, (int)modes, FFTW_ESTIMATE);
    f->inverse = fftw_plan_many_dft_c2r(2, dims, 2, f->scratch, NULL, 1, (int)modes, f->u, NULL, 1,
                                        (int)plane, FFTW_ESTIMATE | FFTW_UNALIGNED);
    if (!f->forward || !f->inverse) {
        mm_fluid_close(f);
        return sb_fail("FFTW could not plan %d^2 transforms", n);
    }
    return 0;
}

void mm_fluid_close(mm_fluid *f)
{
    if (f->forward)
        fftw_destroy_plan(f->forward);
    if (f->inverse)
        fftw_destroy_plan(f->inverse);
    fftw_free(f->fields);
    fftw_free(f->spectra);
    fftw_free(f->forcing);
    fftw_free(f->scratch);
    fftw_free(f->u);
    memset(f, 0, sizeof *f);
}

const double *mm_fluid_layer(const mm_fluid *f, int l)
{
    return f->u + (size_t)l * 2 * f->n * f->n;
}

/* Wavenumber of mode index q on n points (h = 1): 2 pi q / n, the upper half negative. */
static double wavenumber(int q, int n)
{
    return 2 * MM_PI * (q <= n / 2 ? q : q - n) / n;
}

/* f = F + stress div(sigma) in Fourier space: f_a += stress i k_b sigma_ab. */
static void forcing(mm_fluid *f)
{
    int n = f->n, half = n / 2 + 1;
    size_t modes = (size_t)n * half;
    const fftw_complex *fx = f->spectra, *fy = fx + modes, *sxx = fy + modes, *sxy = sxx + modes,
                       *syy = sxy + modes;
    fftw_complex *gx = f->forcing, *gy = gx + modes;
    for (int my = 0; my < n; my++)
        for (int mx = 0; mx < half; mx++) {
            size_t e = (size_t)my * half + mx;
            double kx = wavenumber(mx, n), ky = wavenumber(my, n);
            for (int c = 0; c < 2; c++) {
                /* i z = (-Im z, Re z) */
                int other = 1 - c, sign = c == 0 ? -1 : 1;
                gx[e][c] = fx[e][c] + f->stress * sign * (kx * sxx[e][other] + ky * sxy[e][other]);
                gy[e][c] = fy[e][c] + f->stress * sign * (kx * sxy[e][other] + ky * syy[e][other]);
            }
        }
}

/* One layer's velocity spectra: the forcing projected onto divergence-free fields and screened;
 * the 1 / n^2 of FFTW's unnormalised inverse folded in. */
static void layer_spectra(const mm_fluid *f, double kappa, fftw_complex *ux, fftw_complex *uy)
{
    int n = f->n, half = n / 2 + 1;
    size_t modes = (size_t)n * half;
    const fftw_complex *gx = f->forcing, *gy = gx + modes;
    for (int my = 0; my < n; my++)
        for (int mx = 0; mx < half; mx++) {
            size_t e = (size_t)my * half + mx;
            if (n % 2 == 0 && (my == n / 2 || mx == n / 2)) {
                ux[e][0] = ux[e][1] = uy[e][0] = uy[e][1] = 0;
                continue;
            }
            double kx = wavenumber(mx, n), ky = wavenumber(my, n), k2 = kx * kx + ky * ky;
            double scale = 1 / (f->mu * (k2 + kappa * kappa) * n * n);
            for (int c = 0; c < 2; c++) {
                /* the mean flow (k = 0) has no direction to remove */
                double along = k2 > 0 ? (kx * gx[e][c] + ky * gy[e][c]) / k2 : 0;
                ux[e][c] = (gx[e][c] - kx * along) * scale;
                uy[e][c] = (gy[e][c] - ky * along) * scale;
            }
        }
}

void mm_fluid_solve(mm_fluid *f, const double *force, const double *sigma)
{
    size_t plane = (size_t)f->n * f->n, modes = (size_t)f->n * (f->n / 2 + 1);
    memcpy(f->fields, force, 2 * plane * sizeof *f->fields);
    memcpy(f->fields + 2 * plane, sigma, 3 * plane * sizeof *f->fields);
    fftw_execute(f->forward);
    forcing(f);
#pragma omp parallel for schedule(static) num_threads(f->threads) if (f->threads > 1)
    for (int l = 0; l < f->layers; l++) {
        fftw_complex *spec = f->scratch + (size_t)omp_get_thread_num() * 2 * modes;
        layer_spectra(f, f->kappa[l], spec, spec + modes);
        fftw_execute_dft_c2r(f->inverse, spec, f->u + (size_t)l * 2 * plane);
    }
}
