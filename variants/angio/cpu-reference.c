/* Stage 0, the oracle: one thread, cells as structures (AoS), cell lists in boxes. Cell-cell
 * interactions with Newton's third law over each box and the 13 neighbouring boxes after it
 * (paper alg. 1); tube-cell interactions tube by tube over the boxes the tube can reach,
 * updating both (alg. 2). The life cycle and the integration follow (host.c). */
#include <stdlib.h>

#include "../../cuda/base/error.h"
#include "host.h"
#include "physics.h"
#include "table.h"

/* Pair (i, j): both sides. */
static void pair(ag_sim *s, ag_cell *ci, ag_cell *cj)
{
    const ag_laws *l = &s->m->laws;
    ag_effect e;
    if (!ag_cell_pair(l, ci->x, ci->r, ci->c, ci->a, cj->x, cj->r, cj->c, cj->a, &e))
        return;
    ag_effect_add(ci, &e);
    cj->f[0] -= e.f[0];
    cj->f[1] -= e.f[1];
    cj->f[2] -= e.f[2];
    cj->dc -= e.dc;
    cj->da -= e.da;
    /* j's pressure: the same force over its own surface */
    cj->p += e.p * (ci->r * ci->r) / (cj->r * cj->r);
    s->cell_pairs++;
}

static void cell_cell(ag_sim *s)
{
    int nb = s->m->nbox;
    for (int bz = 0; bz < nb; bz++)
        for (int by = 0; by < nb; by++)
            for (int bx = 0; bx < nb; bx++) {
                int b = bx + nb * (by + nb * bz);
                int lo = s->box_start[b], hi = s->box_start[b + 1];
                for (int i = lo; i < hi; i++)
                    for (int j = i + 1; j < hi; j++)
                        pair(s, &s->cells[s->box_cells[i]], &s->cells[s->box_cells[j]]);
                for (int k = 0; k < 13; k++) {
                    int x = bx + ag_half_shell[k][0], y = by + ag_half_shell[k][1],
                        z = bz + ag_half_shell[k][2];
                    if (x < 0 || x >= nb || y < 0 || y >= nb || z >= nb)
                        continue;
                    int b2 = x + nb * (y + nb * z);
                    for (int i = lo; i < hi; i++)
                        for (int j = s->box_start[b2]; j < s->box_start[b2 + 1]; j++)
                            pair(s, &s->cells[s->box_cells[i]], &s->cells[s->box_cells[j]]);
                }
            }
}

static void tube_cell(ag_sim *s)
{
    const ag_model *m = s->m;
    int nb = m->nbox;
    for (int t = 0; t < m->ntubes; t++) {
        ag_tube *tube = &s->tubes[t];
        int lo[3], hi[3];
        ag_tube_boxes(m, tube, lo, hi);
        for (int z = lo[2]; z <= hi[2]; z++)
            for (int y = lo[1]; y <= hi[1]; y++)
                for (int x = lo[0]; x <= hi[0]; x++) {
                    int b = x + nb * (y + nb * z);
                    for (int j = s->box_start[b]; j < s->box_start[b + 1]; j++) {
                        ag_cell *c = &s->cells[s->box_cells[j]];
                        ag_effect e;
                        float taf;
                        if (!ag_tube_cell(&m->laws, tube, c->x, c->r, c->c, c->a, &e, &taf))
                            continue;
                        ag_effect_add(c, &e);
                        tube->taf += taf;
                        s->tube_pairs++;
                    }
                }
    }
}

static int step(ag_stage *st)
{
    return ag_host_step(st, cell_cell, tube_cell);
}

static int setup(sb_env *env, const void *model, void **state)
{
    return ag_stage_open(env, model, step, (ag_stage **)state);
}

const sb_variant_ops ag_cpu_reference_ops = {setup, ag_stage_run, ag_stage_output,
                                             ag_stage_teardown, ag_stage_report};
