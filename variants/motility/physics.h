/* The laws of the motility model, shared by the CPU stages and (later) the kernels: nothing here
 * calls a host-only function. fp64 (the mixed-precision stages to come will need float forms of
 * the microscale laws). ../shared/spec/motility.md gives the scheme; the paper
 * (micro-macro-motility, algorithms 1-2) the method.
 *
 * Microscale, one s-line (a tail r0, a centre x, an orientation theta): cells m = 0..n-1 of
 * width ds, motors walking at v > 0 towards s = +ell/2:
 *   dM/dt = -(F_{m+1/2} - F_{m-1/2}) / ds - k_off M_m + k_on M_f 1_feasible(m),
 * F the upwind flux with the Superbee limiter, nothing entering at s = -ell/2, motors leaving
 * (detaching) at s = +ell/2. Cells before `from` hold no motors and never will (no source
 * upstream of the capture disc, nothing entering), so a stage may start a line there: the flux
 * through the face before `from` is zero either way. */
#ifndef MM_PHYSICS_H
#define MM_PHYSICS_H

#include <math.h>

#include "../../cuda/hd.h"
#include "model.h"

#define MM_PI 3.14159265358979323846

/* The laws of one s-line (Superbee slope, face flux, rate, Euler, Heun, AB2) in fp64, the form
 * every fp64 stage uses; the mixed-precision kernels include physics-micro.inc again in fp32. */
#define MM_T double
#define MM_FN(name) name
#include "physics-micro.inc"
#undef MM_T
#undef MM_FN

/* The largest stable inner step of one tail: the s-advection's CFL bound C ds / v, and the
 * binding/unbinding bound c / (k_on A + k_off). A, the tail's binding capacity, is the measure
 * of feasible configurations weighted by Psi (sum of Psi h^2 dtheta ds over them): free motors
 * are held fixed through an inner step and follow the bound ones after it, so the coupled
 * relaxation rate is k_on A + k_off. The spec's c / (k_on + k_off) is the case A = 1; a tail with
 * few filaments near it takes longer steps (the paper's reason for local steps). */
SB_HD double mm_inner_limit(const mm_laws *l, double ds, double capacity)
{
    return fmin(l->cfl * ds / l->v, l->c / (l->k_on * capacity + l->k_off));
}

/* The next inner step when `left` of the outer step remains: the limit, or all that is left
 * when that is within a hair of the limit (no sliver of a step from rounding). */
SB_HD double mm_inner_step(double limit, double left)
{
    return left <= limit * (1 + 1e-9) ? left : limit;
}

/* Whether a motor with its tail at r0 can hold a filament of centre r0 + (dx, dy) and
 * orientation (cos, sin) at arclength s: |d + s p| <= r_c. */
SB_HD int mm_feasible(double dx, double dy, double s, double cos_t, double sin_t, double r_c)
{
    double qx = dx + s * cos_t, qy = dy + s * sin_t;
    return qx * qx + qy * qy <= r_c * r_c;
}

/* Bilinear spreading of a point q (relative to an outer grid point): the grid point below-left,
 * (*bx, *by), and the fractions (*fx, *fy) towards the next ones. Corner weights:
 * (1-fx)(1-fy), fx(1-fy), (1-fx)fy, fx fy. */
SB_HD void mm_spread_at(double qx, double qy, int *bx, int *by, double *fx, double *fy)
{
    double x0 = floor(qx), y0 = floor(qy);
    *bx = (int)x0;
    *by = (int)y0;
    *fx = qx - x0;
    *fy = qy - y0;
}

/* An index moved by less than n, back onto the periodic grid 0..n-1. */
SB_HD int mm_wrap(int i, int n)
{
    return i < 0 ? i + n : i >= n ? i - n : i;
}

/* ---- Psi transport (macroscale stand-in): conservative upwind + central diffusion ---- */

/* A filament's velocity component through a face between two outer cells: the fluid's and the
 * gliding -V beta p (beta the bound-motor fraction), each the mean of the two cells'. Both cells
 * compute it alike, so what one loses the other gains. */
SB_HD double mm_face_speed(double u_a, double u_b, double beta_a, double beta_b, double v_glide,
                           double p)
{
    return 0.5 * (u_a + u_b) - v_glide * 0.5 * (beta_a + beta_b) * p;
}

/* The rotation rate of a filament of orientation p = (cos, sin) in the velocity gradient
 * g = grad u (g_ab = d u_a / d x_b): p_perp . g . p (Jeffery's, infinitely thin). */
SB_HD double mm_jeffery(double gxx, double gxy, double gyx, double gyy, double cos_t, double sin_t)
{
    return -sin_t * (gxx * cos_t + gxy * sin_t) + cos_t * (gyx * cos_t + gyy * sin_t);
}

/* Upwind flux through a face at speed a from the cell before it (`behind`) to the one after. */
SB_HD double mm_upwind(double a, double behind, double ahead)
{
    return a > 0 ? a * behind : a * ahead;
}

/* The rate at which a cell empties through its two faces along one axis (speeds a_in at the face
 * before it, a_out after). With every axis and the diffusion's 2 D / h^2 per axis, one over the
 * largest such sum bounds an Euler step that keeps Psi >= 0. */
SB_HD double mm_outflow(double a_in, double a_out)
{
    return fmax(a_out, 0.0) - fmin(a_in, 0.0);
}

#endif
