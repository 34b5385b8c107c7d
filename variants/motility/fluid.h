/* The fluid of the macroscale stand-in (host, FFTW): for each of N_z layers a screened 2-D Stokes
 * solve in Fourier space, u_l = (I - k k^T / |k|^2) f / (mu (|k|^2 + kappa_l^2)), the forcing
 * f = F + stress div(sigma) the same for every layer (the filaments and motors live in layer 0's
 * plane). The paper solves the 3-D system with a 2-D FFT at every z grid point; this keeps that
 * shape: the forcing's forward transforms once, then a pair of inverse transforms (u_x, u_y) per
 * layer. Plans are made once, FFTW_ESTIMATE, so every run and every stage transforms alike. */
#ifndef MM_FLUID_H
#define MM_FLUID_H

#include <fftw3.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mm_fluid {
    int n, layers, threads;
    double mu, stress;
    const double *kappa;   /* layers */
    double *fields;        /* 5 planes n^2: F_x, F_y, sigma_xx, sigma_xy, sigma_yy */
    fftw_complex *spectra; /* their 5 spectra, n (n/2 + 1) each */
    fftw_complex *forcing; /* f's 2 spectra */
    fftw_complex *scratch; /* per thread: one layer's 2 velocity spectra (c2r overwrites them) */
    double *u;             /* layers x 2 planes n^2: u_x, u_y of each layer */
    fftw_plan forward, inverse;
} mm_fluid;

/* Plans for an n x n periodic grid (n = outer cells a side) and `layers` layers of screening
 * kappa[l]; `threads` layers solved at once. */
int mm_fluid_open(mm_fluid *f, int n, int layers, const double *kappa, double mu, double stress,
                  int threads);
void mm_fluid_close(mm_fluid *f);
/* u of every layer (f->u) from the force F (2 planes) and the extra stress sigma (3 planes:
 * xx, xy, yy). Modes at the Nyquist wavenumber carry no velocity (a real field's Nyquist mode
 * has no direction to project against). */
void mm_fluid_solve(mm_fluid *f, const double *force, const double *sigma);
/* Layer l's velocity planes (u_x, then u_y). */
const double *mm_fluid_layer(const mm_fluid *f, int l);

#ifdef __cplusplus
}
#endif

#endif
