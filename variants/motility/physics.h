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

/* The Superbee-limited slope of cell m from its backward difference (M_m - M_{m-1}) and forward
 * difference (M_{m+1} - M_m): phi(r) * back with r = fwd / back and the spec's
 * phi(r) = max(0, min(2r, 1), min(r, 2)), written without the division (a flat or empty
 * neighbourhood, back = 0, gives 0, the limit of phi(r) back). Comparisons rather than fmin and
 * fmax: the inputs are never NaN, and the host compiler then keeps them inline. */
SB_HD double mm_superbee_slope(double back, double fwd)
{
    if (back * fwd <= 0)
        return 0;
    double a = fabs(back), b = fabs(fwd);
    double one = 2 * b < a ? 2 * b : a, two = b < 2 * a ? b : 2 * a;
    double slope = one > two ? one : two;
    return back > 0 ? slope : -slope;
}

/* The motors crossing the face after cell m per unit time (face m + 1/2, v > 0 so the upwind
 * cell is m). The face before `from` passes nothing; the last face (s = +ell/2) lets the last
 * cell's motors out at first order (no cell beyond to limit against). */
SB_HD double mm_face_flux(const double *line, int m, int from, int n, double v)
{
    if (m < from)
        return 0;
    double here = line[m];
    if (m == n - 1)
        return v * here;
    double back = m > from ? line[m - 1] : 0;
    return v * (here + 0.5 * mm_superbee_slope(here - back, line[m + 1] - here));
}

/* dM/dt of one cell from its two faces' fluxes, unbinding and binding (`source` = k_on M_f in a
 * feasible cell, 0 elsewhere). */
SB_HD double mm_rate(double flux_in, double flux_out, double mb, double ds, double k_off,
                     double source)
{
    return -(flux_out - flux_in) / ds - k_off * mb + source;
}

/* Forward Euler: the first stage of RK2, and AB2's start. */
SB_HD double mm_euler(double mb, double rate, double dt)
{
    return mb + dt * rate;
}

/* RK2 (Heun) in its strong-stability-preserving form: the mean of the start and a second Euler
 * step from the first stage, so the step keeps M_b >= 0 and adds no extrema whenever an Euler
 * step does (2 C + c <= 1, workload.c). */
SB_HD double mm_heun(double mb, double stage, double stage_rate, double dt)
{
    return 0.5 * mb + 0.5 * (stage + dt * stage_rate);
}

/* Adams-Bashforth 2 with a variable step (the original algorithm's integrator; it keeps the
 * previous step's rate, the third time level of M_b). dt_prev = 0: no history yet, an Euler
 * step. */
SB_HD double mm_ab2(double mb, double rate, double rate_prev, double dt, double dt_prev)
{
    if (dt_prev <= 0)
        return mm_euler(mb, rate, dt);
    double r = dt / dt_prev;
    return mb + dt * ((1 + 0.5 * r) * rate - 0.5 * r * rate_prev);
}

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
