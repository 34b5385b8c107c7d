/* The domain and its boxes. */
#include "model.h"

#include <math.h>
#include <stdlib.h>

#include "../../cuda/base/error.h"
#include "physics.h"

int ag_box_of(const ag_model *m, float x)
{
    return ag_box_at(x, m->box_edge, m->nbox);
}

int ag_model_set_domain(ag_model *m, float side)
{
    if (!(side > 0) || !isfinite(side))
        return sb_fail("the domain's side must be a positive number of micrometres, not %g",
                       (double)side);
    /* a box holds every partner of its cells in it and its 26 neighbours */
    float edge = m->laws.k_c * 2 * m->r_max, tube = m->laws.k_c * (m->r_max + m->tube_r_max);
    if (tube > edge)
        edge = tube;
    /* in float until it is known to fit an int (a side of 1e13 um over an edge of 10) */
    float boxes = edge > 0 ? floorf(side / edge) : 1;
    if (boxes > 1024)
        return sb_fail("a domain of side %g um holds %.0f boxes a side (at most 1024): use fewer "
                       "cells or a higher density",
                       (double)side, (double)boxes);
    int nbox = boxes < 1 ? 1 : (int)boxes;
    m->side = side;
    m->nbox = nbox;
    m->box_edge = side / (float)nbox;
    return 0;
}

void ag_model_free(ag_model *m)
{
    free(m->cells);
    free(m->tubes);
    m->cells = NULL;
    m->tubes = NULL;
}
