/* Angiogenesis models and runs for the tests: a model from parameter assignments (as a user
 * gives them), and one run of a variant into an output. Included after cmocka. */
#ifndef ANGIO_FIXTURE_H
#define ANGIO_FIXTURE_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "variants/angio/host.h"
#include "variants/angio/model.h"
#include "variants/angio/physics.h"
#include "workload_fixture.h"

extern const sb_workload sb_workload_angio;

/* The workload's parameters with "name=value" assignments applied (NULL-terminated). */
static inline sb_params *angio_params(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    sb_params *p = workload_params(&sb_workload_angio, first, ap);
    va_end(ap);
    return p;
}

static inline ag_model *angio_load(const sb_params *p)
{
    return workload_load(&sb_workload_angio, p);
}

/* One run of `variant` (on device *dev, or the CPU when dev is NULL) into a new output. */
static inline ag_output *angio_run(const char *variant, const ag_model *m, const sb_params *p,
                                   const int *dev)
{
    return workload_run(&sb_workload_angio, variant, m, m->scenario, p, dev);
}

static inline void angio_assert_equal(const ag_model *m, const ag_output *ref,
                                      const ag_output *got, const char *variant)
{
    char why[512];
    if (!sb_workload_angio.output_equal(m, ref, got, why, sizeof why))
        fail_msg("%s: %s differs from cpu-reference: %s", m->scenario, variant, why);
}

/* Lists being filled a cell at a time, their entries grown as they fill. */
typedef struct angio_list_fill {
    ag_lists *l;
    size_t room, used;
} angio_list_fill;

static inline void angio_list_push(angio_list_fill *f, uint32_t entry)
{
    if (f->used == f->room) {
        f->room *= 2;
        f->l->entry = realloc(f->l->entry, f->room * sizeof *f->l->entry);
        assert_non_null(f->l->entry);
    }
    f->l->entry[f->used++] = entry;
}

/* The oracle of the lists a step builds: every cell's neighbours (ids) and tubes (indices) in
 * the model's initial state, the state a one-step run lists, by the kernels' own tests
 * (ag_cells_meet from the cell's side, ag_tube_cell) over every cell and tube: no boxes, so
 * also what the boxes could miss. Each list ascending. */
static inline void angio_lists_brute(const ag_model *m, ag_step_lists *out)
{
    int n = m->ncells;
    memset(out, 0, sizeof *out);
    out->ncells = n;
    out->has_neighbours = out->has_tubes = 1;
    out->id = malloc(((size_t)n + 1) * sizeof *out->id);
    assert_non_null(out->id);
    angio_list_fill nbr = {&out->neighbours, 1024, 0}, tubes = {&out->tubes, 1024, 0};
    if (ag_lists_alloc(nbr.l, n, nbr.room) != 0 || ag_lists_alloc(tubes.l, n, tubes.room) != 0)
        fail_msg("%s", sb_error());
    for (int i = 0; i < n; i++) {
        const ag_cell *c = &m->cells[i];
        out->id[i] = c->id;
        for (int j = 0; j < n; j++)
            if (j != i && ag_cells_meet(&m->laws, c->x, c->r, m->cells[j].x, m->cells[j].r))
                angio_list_push(&nbr, m->cells[j].id);
        for (int t = 0; t < m->ntubes; t++) {
            ag_effect e;
            float taf;
            if (ag_tube_cell(&m->laws, &m->tubes[t], c->x, c->r, c->c, c->a, &e, &taf))
                angio_list_push(&tubes, (uint32_t)t);
        }
        nbr.l->start[i + 1] = (int)nbr.used;
        tubes.l->start[i + 1] = (int)tubes.used;
    }
}

static inline void angio_free(ag_model *m, ag_output *o)
{
    if (o)
        sb_workload_angio.output_free(o);
    if (m)
        sb_workload_angio.free_model(m);
}

#endif
