/* The macroscale stand-in on the GPU (gpu-macro): host.c's mm_macro_psi and mm_macro_fluid as
 * kernels and cuFFT, so that Psi, the outer step, the coarse densities, F and u never leave the
 * device. The same laws (physics.h) and the same arithmetic per cell as host.c; the fluid as
 * fluid.c (same layout, normalisation, and no velocity at the Nyquist modes).
 *
 * Every call launches on the stream given at open and returns without waiting for the device:
 * an outer step makes no host round trip. The outer step is a device scalar the caller owns,
 * read by the transport (and by the micro kernel) on the device.
 *
 * Layouts are model.h's: Psi[c * N_i + k] (c = i + N_o j); fields as planes of N_o^2; u as
 * layers x 2 planes (u_x, u_y of layer 0 first). */
#ifndef MM_MACRO_H
#define MM_MACRO_H

#include <cuda_runtime_api.h>
#include <cufft.h>

#include "../../harness/variant.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mm_dmacro {
    const mm_model *m;
    sb_env *env; /* its device memory and transfer accounts */
    int device;
    cudaStream_t stream;
    int n, n_inner, layers;
    size_t cells, modes; /* n^2; n (n/2 + 1) modes of a real n x n field */
    /* device */
    double *psi;      /* cells x n_inner; the same pointer for the whole run */
    double *psi_next; /* the transport's output, copied back into psi */
    double *psi0;     /* the model's initial Psi, uploaded at open: a reset is a device copy */
    double *u;        /* layers x 2 planes: u_x, u_y of each layer, layer 0 first */
    double *beta;     /* cells: the bound fraction */
    double *fields;   /* 5 planes the forward transform reads: F_x, F_y, sigma_xx, xy, yy */
    cufftDoubleComplex *spectra;  /* their 5 spectra, n (n/2 + 1) each (r2c layout) */
    cufftDoubleComplex *velocity; /* layers x 2 velocity spectra (the inverse overwrites them) */
    double *m_tot;                /* cells */
    double *tables;      /* cos_theta, sin_theta, cos_face, sin_face (n_inner each), kappa_layer */
    unsigned long long *fastest; /* the largest outflow rate, as the bits of a double >= 0 */
    void *fft_work;              /* one work area for both plans (they run one after the other) */
    cufftHandle forward, inverse;
    int made_forward, made_inverse; /* which plans exist (to destroy) */
} mm_dmacro;

/* Device buffers (sb_dev_alloc on env->mem, refused when they cannot fit) and the cuFFT plans
 * (D2Z of the 5 fields, Z2D of every layer's 2 velocity spectra, each batched) on `stream` of
 * `device`; the model's tables and M_tot uploaded. m must outlive d. -1 or SB_REFUSED, sb_fail
 * saying why (d then holds nothing). */
int mm_dmacro_open(mm_dmacro *d, sb_env *env, const mm_model *m, int device, cudaStream_t stream);
void mm_dmacro_close(mm_dmacro *d);
/* Back to the initial state: Psi = the model's psi0 (from the device's copy: a run makes no host
 * round trip, not even its first), still fluid (u = 0). */
int mm_dmacro_reset(mm_dmacro *d);
/* host.c's mm_macro_psi: the bound fraction from d_coarse (cells, device) and M_tot; the outer
 * step (mm_outer_dt's: fmin(dt_max, cfl_outer / the largest outflow rate), dt_max when that is
 * 0) into the device scalar *d_dt; Psi to t + *d_dt, with layer 0's u. */
int mm_dmacro_psi(mm_dmacro *d, const double *d_coarse, double *d_dt);
/* host.c's mm_macro_fluid: the extra stress from Psi, then u of every layer from the force
 * d_force (2 planes, device) and the stress. */
int mm_dmacro_fluid(mm_dmacro *d, const double *d_force);
/* to[i] += from[i] for n doubles of the macro's GPU, on its stream (multi-gpu-macro: another
 * GPU's F added into GPU 0's, one GPU after the other, so that every run sums alike). */
int mm_dmacro_add(mm_dmacro *d, double *to, const double *from, size_t n);

#ifdef __cplusplus
}
#endif

#endif
