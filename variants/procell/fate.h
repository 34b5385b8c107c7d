/* The ProCell rule for one cell, and the draws it makes, for host and device alike.
 *
 * Draws are keyed Philox: key (root, seed), counter (path bits, purpose | generation | attempt).
 * A cell is (root, generation g, path: g bits, 0 = first daughter), so every variant, whatever
 * order or thread it processes cells in, makes the same draws; the shared deterministic math
 * turns them into the same bits. */
#ifndef PC_FATE_H
#define PC_FATE_H

#include <stdint.h>

#include "../../cuda/detmath.h"
#include "../../cuda/rng.h"
#include "model.h"

enum pc_purpose { PC_DRAW_TYPE = 1, PC_DRAW_START = 2, PC_DRAW_START_FRACTION = 3, PC_DRAW_TIMER = 4 };

enum pc_fate {
    PC_TERMINAL, /* t + T > t_max: counted at its fluorescence */
    PC_DIVIDES,  /* two daughters at f/2, time t + T */
    PC_VANISHES, /* f/2 <= phi_min: the lineage drops below detection */
    PC_TOO_DEEP  /* would divide past PC_MAX_GEN: the run fails */
};

/* A cell in flight. Its fluorescence is carried, not recomputed, so halving stays one exact
 * operation per generation in every variant. */
typedef struct pc_cell {
    double f, t;
    uint64_t path;
    uint32_t root;
    uint8_t g, type;
} pc_cell;

SB_HD sb_rng_block pc_draw(const pc_rules *r, uint32_t root, int purpose, int g, uint64_t path,
                           uint32_t attempt)
{
    return sb_philox(root, r->seed, (uint32_t)path, (uint32_t)(path >> 32),
                     ((uint32_t)purpose << 24) | ((uint32_t)g << 16) | (attempt & 0xffffu), 0u);
}

/* Normal(mean, sd) truncated to > 0 by redrawing with attempt + 1. */
SB_HD double pc_division_time(const pc_rules *r, uint32_t root, int type, int purpose, int g,
                              uint64_t path)
{
    for (uint32_t attempt = 0; attempt <= 0xffffu; attempt++) {
        sb_rng_block b = pc_draw(r, root, purpose, g, path, attempt);
        double z = det_box_muller(sb_uniform_open0(b.v[0], b.v[1]), sb_uniform(b.v[2], b.v[3]));
        double T = det_fma(r->sd[type], z, r->mean[type]);
        if (T > 0.0)
            return T;
    }
    /* Types are checked to have mean > 0, so each attempt succeeds with probability > 1/2:
     * 65536 failures in a row do not happen. Stay deterministic all the same. */
    return r->mean[type];
}

SB_HD int pc_root_type(const pc_rules *r, uint32_t root)
{
    sb_rng_block b = pc_draw(r, root, PC_DRAW_TYPE, 0, 0, 0);
    double u = sb_uniform(b.v[0], b.v[1]);
    for (int j = 0; j < r->ntypes - 1; j++)
        if (u < r->cum[j])
            return j;
    return r->ntypes - 1;
}

/* Synchronous start: 0. Asynchronous: T0 * U, T0 a fresh division time of the cell's type. */
SB_HD double pc_start_time(const pc_rules *r, uint32_t root, int type)
{
    if (!r->async_start || r->quiescent[type])
        return 0.0;
    double T0 = pc_division_time(r, root, type, PC_DRAW_START, 0, 0);
    sb_rng_block b = pc_draw(r, root, PC_DRAW_START_FRACTION, 0, 0, 0);
    return det_mul(T0, sb_uniform(b.v[0], b.v[1]));
}

SB_HD pc_cell pc_root_cell(const pc_rules *r, uint32_t root, double phi)
{
    pc_cell c;
    c.f = phi;
    c.type = (uint8_t)pc_root_type(r, root);
    c.t = pc_start_time(r, root, c.type);
    c.path = 0;
    c.root = root;
    c.g = 0;
    return c;
}

/* Decides what happens to cell c; on PC_DIVIDES, *t_division is the daughters' time. */
SB_HD int pc_fate(const pc_rules *r, const pc_cell *c, double *t_division)
{
    if (r->quiescent[c->type])
        return PC_TERMINAL;
    double T = pc_division_time(r, c->root, c->type, PC_DRAW_TIMER, c->g, c->path);
    double t1 = det_add(c->t, T);
    if (t1 > r->t_max)
        return PC_TERMINAL;
    if (!(det_mul(c->f, 0.5) > r->phi_min))
        return PC_VANISHES;
    if (c->g >= PC_MAX_GEN)
        return PC_TOO_DEEP;
    *t_division = t1;
    return PC_DIVIDES;
}

/* Daughter k (0 or 1) of a dividing cell. */
SB_HD pc_cell pc_daughter(const pc_cell *c, double t_division, int k)
{
    pc_cell d = *c;
    d.f = det_mul(c->f, 0.5);
    d.t = t_division;
    d.path = (c->path << 1) | (uint64_t)k;
    d.g = (uint8_t)(c->g + 1);
    return d;
}

/* The row a root belongs to: binary search of root_start (nrows + 1 entries). */
SB_HD int pc_row_of_root(const uint64_t *root_start, int nrows, uint64_t root)
{
    int lo = 0, hi = nrows - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (root_start[mid] <= root)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Index in the sorted table omega of value f: binary search, the gpu-histogram way. -1 when
 * absent (a bug: every reachable value is in omega). */
SB_HD int pc_omega_search(const double *omega, int nomega, double f)
{
    int lo = 0, hi = nomega - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (omega[mid] < f)
            lo = mid + 1;
        else if (omega[mid] > f)
            hi = mid - 1;
        else
            return mid;
    }
    return -1;
}

#endif
