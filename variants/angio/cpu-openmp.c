/* Stage 0, the honest multicore baseline: every core, each cell gathering from the 27 boxes
 * around it (no Newton's third law, so no two threads write one cell), its tubes from its box's
 * tube list; each tube's TAF gathered by the thread of that tube. Life cycle on one thread. */
#include <omp.h>

#include "host.h"
#include "physics.h"
#include "table.h"

static void cell_cell(ag_sim *s)
{
    const ag_model *m = s->m;
    int nb = m->nbox;
    long long pairs = 0;
#pragma omp parallel for schedule(static) reduction(+ : pairs)
    for (int i = 0; i < s->ncells; i++) {
        ag_cell *c = &s->cells[i];
        int b = s->cell_box[i], bx = b % nb, by = b / nb % nb, bz = b / (nb * nb);
        for (int z = bz - 1; z <= bz + 1; z++)
            for (int y = by - 1; y <= by + 1; y++)
                for (int x = bx - 1; x <= bx + 1; x++) {
                    if (x < 0 || x >= nb || y < 0 || y >= nb || z < 0 || z >= nb)
                        continue;
                    int b2 = x + nb * (y + nb * z);
                    for (int k = s->box_start[b2]; k < s->box_start[b2 + 1]; k++) {
                        int j = s->box_cells[k];
                        const ag_cell *o = &s->cells[j];
                        ag_effect e;
                        if (j != i && ag_cell_pair(&m->laws, c->x, c->r, c->c, c->a, o->x, o->r,
                                                   o->c, o->a, &e)) {
                            ag_effect_add(c, &e);
                            pairs++;
                        }
                    }
                }
    }
    s->cell_pairs += pairs / 2;
}

static void tube_cell(ag_sim *s)
{
    const ag_model *m = s->m;
    int nb = m->nbox;
    long long pairs = 0;
#pragma omp parallel for schedule(static) reduction(+ : pairs)
    for (int i = 0; i < s->ncells; i++) {
        ag_cell *c = &s->cells[i];
        int b = s->cell_box[i];
        for (int k = s->tube_start[b]; k < s->tube_start[b + 1]; k++) {
            ag_effect e;
            float taf;
            if (ag_tube_cell(&m->laws, &s->tubes[s->tube_list[k]], c->x, c->r, c->c, c->a, &e,
                             &taf)) {
                ag_effect_add(c, &e);
                pairs++;
            }
        }
    }
    s->tube_pairs += pairs;
    /* the tubes' side from the oxygen and TAF the cells had before this phase changed them:
     * the exchange reads c and a, which the phase does not write */
#pragma omp parallel for schedule(dynamic, 16)
    for (int t = 0; t < m->ntubes; t++) {
        ag_tube *tube = &s->tubes[t];
        int lo[3], hi[3];
        float gained = 0;
        ag_tube_boxes(m, tube, lo, hi);
        for (int z = lo[2]; z <= hi[2]; z++)
            for (int y = lo[1]; y <= hi[1]; y++)
                for (int x = lo[0]; x <= hi[0]; x++) {
                    int b = x + nb * (y + nb * z);
                    for (int k = s->box_start[b]; k < s->box_start[b + 1]; k++) {
                        const ag_cell *c = &s->cells[s->box_cells[k]];
                        ag_effect e;
                        float taf;
                        if (ag_tube_cell(&m->laws, tube, c->x, c->r, c->c, c->a, &e, &taf))
                            gained += taf;
                    }
                }
        tube->taf += gained;
    }
}

static int step(ag_stage *st)
{
    omp_set_num_threads(st->env->cpu_threads > 0 ? st->env->cpu_threads : omp_get_max_threads());
    return ag_host_step(st, cell_cell, tube_cell);
}

static int setup(sb_env *env, const void *model, void **state)
{
    return ag_stage_open(env, model, step, (ag_stage **)state);
}

const sb_variant_ops ag_cpu_openmp_ops = {setup, ag_stage_run, ag_stage_output, ag_stage_teardown,
                                          ag_stage_report};
