/* The laws of one interaction and of one cell's step, shared by the CPU stages and the kernels
 * (the paper gives the algorithms, not the laws; these are this suite's, ../shared/spec/angio.md).
 * Single precision, as the paper's GPU code: variants agree within a tolerance, not bitwise, as
 * they sum a cell's interactions in different orders (and nvcc may fuse a multiply and an add). */
#ifndef AG_PHYSICS_H
#define AG_PHYSICS_H

#include <math.h>

#include "../../cuda/hd.h"
#include "../../cuda/detmath.h"
#include "../../cuda/rng.h"
#include "model.h"

#define AG_PI 3.14159265358979f

/* The box of a coordinate along one axis, clamped into the domain. */
SB_HD int ag_box_at(float x, float edge, int nbox)
{
    int b = (int)floorf(x / edge);
    return b < 0 ? 0 : b >= nbox ? nbox - 1 : b;
}

/* The boxes [lo, hi] per axis in which a tube can meet a cell: its bounding box grown by the
 * longest range it can have (k_c (r_max + its larger radius)). */
SB_HD void ag_tube_box_range(const ag_tube *t, float k_c, float r_max, float edge, int nbox,
                             int lo[3], int hi[3])
{
    float reach = k_c * (r_max + (t->r0 > t->r1 ? t->r0 : t->r1));
    for (int k = 0; k < 3; k++) {
        float a = t->p0[k] < t->p1[k] ? t->p0[k] : t->p1[k];
        float b = t->p0[k] < t->p1[k] ? t->p1[k] : t->p0[k];
        lo[k] = ag_box_at(a - reach, edge, nbox);
        hi[k] = ag_box_at(b + reach, edge, nbox);
    }
}

/* Whether cells i and j are within range: the test ag_cell_pair makes, for the stages that
 * build neighbour lists apart from the interactions. */
SB_HD int ag_cells_meet(const ag_laws *l, const float *xi, float ri, const float *xj, float rj)
{
    float dx = xi[0] - xj[0], dy = xi[1] - xj[1], dz = xi[2] - xj[2];
    float d2 = dx * dx + dy * dy + dz * dz, range = l->k_c * (ri + rj);
    return d2 < range * range;
}

/* What one partner does to a cell: force, oxygen and TAF rates, pressure. */
typedef struct ag_effect {
    float f[3], dc, da, p;
} ag_effect;

/* Cell i (position xi, radius ri, oxygen ci, TAF ai) and cell j: 1 when they interact, and then
 * i's side of it in *e (j's is the opposite force and exchange; its pressure is the same |f| over
 * its own surface). Range k_c (ri + rj); overlap delta = ri + rj - d pushes apart with k_rep
 * delta, a gap (delta < 0) pulls together with k_adh delta; the exchange weight w = 1 - d/range
 * falls to 0 at the range. */
SB_HD int ag_cell_pair(const ag_laws *l, const float *xi, float ri, float ci, float ai,
                       const float *xj, float rj, float cj, float aj, ag_effect *e)
{
    float dx = xi[0] - xj[0], dy = xi[1] - xj[1], dz = xi[2] - xj[2];
    float d2 = dx * dx + dy * dy + dz * dz, range = l->k_c * (ri + rj);
    if (d2 >= range * range)
        return 0;
    float d = sqrtf(d2);
    float delta = ri + rj - d;
    float mag = delta > 0 ? l->k_rep * delta : l->k_adh * delta;
    float inv = d > 0 ? mag / d : 0; /* two cells at one point push in no direction */
    float w = 1 - d / range;
    e->f[0] = inv * dx;
    e->f[1] = inv * dy;
    e->f[2] = inv * dz;
    e->dc = l->d_c * (cj - ci) * w;
    e->da = l->d_a * (aj - ai) * w;
    e->p = fabsf(mag) / (4 * AG_PI * ri * ri);
    return 1;
}

/* A cell and a tube: the tube's closest point to the cell, its radius interpolated there, then
 * the cells' force law; the tube supplies oxygen (k_s (cb - c) w) and takes up TAF (k_u a w:
 * *taf is what the tube gains, the cell loses as much). 1 when they interact. */
SB_HD int ag_tube_cell(const ag_laws *l, const ag_tube *t, const float *x, float r, float c,
                       float a, ag_effect *e, float *taf)
{
    float ax = t->p1[0] - t->p0[0], ay = t->p1[1] - t->p0[1], az = t->p1[2] - t->p0[2];
    float px = x[0] - t->p0[0], py = x[1] - t->p0[1], pz = x[2] - t->p0[2];
    float len2 = ax * ax + ay * ay + az * az;
    float s = len2 > 0 ? (px * ax + py * ay + pz * az) / len2 : 0;
    s = s < 0 ? 0 : s > 1 ? 1 : s;
    float dx = px - s * ax, dy = py - s * ay, dz = pz - s * az;
    float rt = t->r0 + s * (t->r1 - t->r0);
    float d2 = dx * dx + dy * dy + dz * dz, range = l->k_c * (r + rt);
    if (d2 >= range * range)
        return 0;
    float d = sqrtf(d2);
    float delta = r + rt - d;
    float mag = delta > 0 ? l->k_rep * delta : l->k_adh * delta;
    float inv = d > 0 ? mag / d : 0;
    float w = 1 - d / range;
    e->f[0] = inv * dx;
    e->f[1] = inv * dy;
    e->f[2] = inv * dz;
    e->dc = l->k_s * (t->cb - c) * w;
    *taf = l->k_u * a * w;
    e->da = -*taf;
    e->p = fabsf(mag) / (4 * AG_PI * r * r);
    return 1;
}

SB_HD void ag_effect_add(ag_cell *c, const ag_effect *e)
{
    c->f[0] += e->f[0];
    c->f[1] += e->f[1];
    c->f[2] += e->f[2];
    c->dc += e->dc;
    c->da += e->da;
    c->p += e->p;
}

SB_HD float ag_clamp_side(float x, float side)
{
    float top = side * 0.99999f;
    return x < 0 ? 0 : x > top ? top : x;
}

/* One cell's life-cycle step after the interactions (overdamped motion, oxygen and TAF, age,
 * state). 1 when the cell divides this step. A Dead cell does nothing (it is removed at the end
 * of the step). */
SB_HD int ag_cell_step(const ag_laws *l, float side, ag_cell *c)
{
    if (c->state == AG_DEAD)
        return 0;
    float dt = l->dt, v = dt / l->gamma;
    for (int k = 0; k < 3; k++)
        c->x[k] = ag_clamp_side(c->x[k] + c->f[k] * v, side);
    float made = c->state == AG_HYPOXIC ? l->production : 0;
    c->c = fmaxf(0.f, c->c + dt * (c->dc - l->consumption));
    c->a = fmaxf(0.f, c->a + dt * (c->da + made - l->decay * c->a));
    c->age += dt;
    c->t_low = c->c < l->c_dead ? c->t_low + dt : 0;
    if (c->t_low >= l->t_dead)
        c->state = AG_DEAD;
    else if (c->c < l->c_hyp)
        c->state = AG_HYPOXIC;
    else
        c->state = c->age >= l->t_mature ? AG_MATURE : AG_NEW;
    return c->state == AG_MATURE && c->c >= l->c_div;
}

/* The direction a cell divides along: a unit vector keyed on (seed, cell id, step), uniform on
 * the sphere (a point of the cube drawn until it falls inside the ball; exact double operations,
 * so every variant places the daughters alike). */
SB_HD void ag_divide_direction(uint32_t seed, uint32_t id, long long step, float *u)
{
    for (uint32_t attempt = 0;; attempt++) {
        sb_rng_block b = sb_philox(seed, id, (uint32_t)step, (uint32_t)(step >> 32),
                                   AG_PURPOSE_DIVIDE, attempt);
        double v[3], n2 = 0;
        for (int k = 0; k < 3; k++) {
            v[k] = det_sub(det_mul(2.0, (double)b.v[k] * 0x1p-32), 1.0);
            n2 = det_fma(v[k], v[k], n2);
        }
        if (n2 > 1e-6 && n2 <= 1.0) {
            double n = det_sqrt(n2);
            for (int k = 0; k < 3; k++)
                u[k] = (float)det_div(v[k], n);
            return;
        }
    }
}

/* Cell c divides: it moves to x + (r/2) u and starts again as New; the daughter (id `id`) goes to
 * x - (r/2) u with the same radius, oxygen and TAF. */
SB_HD void ag_divide(float side, uint32_t seed, long long step, ag_cell *c, ag_cell *daughter,
                     uint32_t id)
{
    float u[3];
    ag_divide_direction(seed, c->id, step, u);
    *daughter = *c;
    daughter->id = id;
    for (int k = 0; k < 3; k++) {
        float h = 0.5f * c->r * u[k];
        daughter->x[k] = ag_clamp_side(c->x[k] - h, side);
        c->x[k] = ag_clamp_side(c->x[k] + h, side);
    }
    c->state = daughter->state = AG_NEW;
    c->age = daughter->age = 0;
    c->t_low = daughter->t_low = 0;
}

#endif
