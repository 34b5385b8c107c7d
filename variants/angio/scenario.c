/* The benchmark scenarios (../shared/spec/angio.md): every draw keyed on (seed, entity), so a
 * scenario is the same on every machine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/rng.h"
#include "../../cuda/base/error.h"
#include "model.h"
#include "physics.h"

/* Volume per cell that gives `density` neighbours within range 2 k_c r on average. */
static float volume_per_cell(const ag_model *m, float radius, float density)
{
    float range = m->laws.k_c * 2 * radius;
    return 4.f / 3.f * AG_PI * range * range * range / density;
}

/* Uniform in [0, 1) from word w of a draw. */
static float unit(const sb_rng_block *b, int w)
{
    return (float)((double)b->v[w] * 0x1p-32);
}

static int alloc_cells(ag_model *m, int n)
{
    m->cells = calloc((size_t)(n > 0 ? n : 1), sizeof *m->cells);
    if (!m->cells)
        return sb_fail("out of host memory for %d cells", n);
    m->ncells = n;
    return 0;
}

/* Cell i at x with the scenario's starting oxygen, TAF and age (two words of draw b). */
static void new_cell(ag_model *m, int i, const float *x, float radius, float c0,
                     const sb_rng_block *b)
{
    ag_cell *c = &m->cells[i];
    c->id = (uint32_t)i;
    c->state = AG_NEW;
    for (int k = 0; k < 3; k++)
        c->x[k] = ag_clamp_side(x[k], m->side);
    c->r = radius;
    c->c = c0;
    c->a = 0.1f * unit(b, 3);
    c->age = m->laws.t_mature * unit(b, 2) * 0.5f;
}

int ag_build_random_cells(ag_model *m, int ncells, float radius, float density)
{
    m->r_max = radius;
    m->tube_r_max = 0;
    if (ag_model_set_domain(m, cbrtf((float)ncells * volume_per_cell(m, radius, density))) != 0 ||
        alloc_cells(m, ncells) != 0)
        return -1;
    for (int i = 0; i < ncells; i++) {
        sb_rng_block b = sb_philox(m->seed, (uint32_t)i, AG_PURPOSE_PLACE, 0, 0, 0);
        sb_rng_block b2 = sb_philox(m->seed, (uint32_t)i, AG_PURPOSE_PLACE, 1, 0, 0);
        float x[3] = {unit(&b, 0) * m->side, unit(&b, 1) * m->side, unit(&b2, 0) * m->side};
        new_cell(m, i, x, radius, 0.5f + 0.5f * unit(&b2, 1), &b);
    }
    snprintf(m->scenario, sizeof m->scenario, "random-cells %d", ncells);
    return 0;
}

/* Tube t from p0 along the unit vector u for `len`, radius r, blood oxygen 1. */
static void set_tube(ag_tube *t, const float *p0, const float *u, float len, float r, float side)
{
    for (int k = 0; k < 3; k++) {
        t->p0[k] = ag_clamp_side(p0[k], side);
        t->p1[k] = ag_clamp_side(p0[k] + len * u[k], side);
    }
    t->r0 = t->r1 = r;
    t->cb = 1;
    t->taf = 0;
}

int ag_build_tubes(ag_model *m, int ncells, float radius, float density, int ntubes)
{
    if (ag_build_random_cells(m, ncells, radius, density) != 0)
        return -1;
    /* tubes of radius 3..6 um, 2..6 box edges long: the box edge must allow the widest */
    m->tube_r_max = 6;
    float side = m->side;
    if (ag_model_set_domain(m, side) != 0)
        return -1;
    m->tubes = calloc((size_t)(ntubes > 0 ? ntubes : 1), sizeof *m->tubes);
    if (!m->tubes)
        return sb_fail("out of host memory for %d tubes", ntubes);
    m->ntubes = ntubes;
    for (int t = 0; t < ntubes; t++) {
        sb_rng_block b = sb_philox(m->seed, (uint32_t)t, AG_PURPOSE_TUBE, 0, 0, 0);
        sb_rng_block b2 = sb_philox(m->seed, (uint32_t)t, AG_PURPOSE_TUBE, 1, 0, 0);
        float p0[3] = {unit(&b, 0) * side, unit(&b, 1) * side, unit(&b, 2) * side}, u[3];
        ag_divide_direction(m->seed ^ 0x7475u, (uint32_t)t, 0, u);
        set_tube(&m->tubes[t], p0, u, m->box_edge * (2 + 4 * unit(&b, 3)), 3 + 3 * unit(&b2, 0),
                 side);
    }
    snprintf(m->scenario, sizeof m->scenario, "tubes %d cells %d tubes", ncells, ntubes);
    return 0;
}

int ag_build_tumour(ag_model *m, int ncells, float radius, float density, int nvessels)
{
    /* the spheroid's volume at the scenario's density; the domain 4 of its radii a side, so
     * that it can grow */
    float ball = cbrtf(3 * (float)ncells * volume_per_cell(m, radius, density) / (4 * AG_PI));
    float vessel_r = 5;
    m->r_max = radius;
    m->tube_r_max = vessel_r;
    if (ag_model_set_domain(m, 8 * ball) != 0 || alloc_cells(m, ncells) != 0)
        return -1;
    float side = m->side, mid = side / 2;
    for (int i = 0; i < ncells; i++) {
        /* uniform in the ball: a point of the cube until it falls inside */
        float x[3];
        sb_rng_block b;
        for (uint32_t attempt = 0;; attempt++) {
            b = sb_philox(m->seed, (uint32_t)i, AG_PURPOSE_PLACE, attempt, 0, 0);
            float d2 = 0;
            for (int k = 0; k < 3; k++) {
                float v = 2 * unit(&b, k) - 1;
                x[k] = mid + ball * v;
                d2 += v * v;
            }
            if (d2 <= 1)
                break;
        }
        new_cell(m, i, x, radius, 0.9f, &b);
    }
    /* vessels on a g x g grid in x-y, along z, each a chain of segments two box edges long */
    int g = (int)ceilf(sqrtf((float)nvessels)), segments = (int)ceilf(m->nbox / 2.f);
    m->tubes = calloc((size_t)(nvessels * segments > 0 ? nvessels * segments : 1), sizeof *m->tubes);
    if (!m->tubes)
        return sb_fail("out of host memory for %d vessels", nvessels);
    float up[3] = {0, 0, 1}, seg = side / (float)segments;
    for (int v = 0; v < nvessels; v++) {
        float p[3] = {side * (float)(v % g + 1) / (float)(g + 1),
                      side * (float)(v / g + 1) / (float)(g + 1), 0};
        for (int k = 0; k < segments; k++) {
            p[2] = seg * (float)k;
            set_tube(&m->tubes[m->ntubes++], p, up, seg, vessel_r, side);
        }
    }
    snprintf(m->scenario, sizeof m->scenario, "tumour %d cells %d vessels", ncells, nvessels);
    return 0;
}
