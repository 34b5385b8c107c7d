/* The host simulation's shared mechanics: state, cell lists, tube boxes, life cycle. */
#include "host.h"

#include <stdlib.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "physics.h"

const int ag_half_shell[13][3] = {
    {1, 0, 0},  {-1, 1, 0}, {0, 1, 0},  {1, 1, 0},  {-1, -1, 1}, {0, -1, 1}, {1, -1, 1},
    {-1, 0, 1}, {0, 0, 1},  {1, 0, 1},  {-1, 1, 1}, {0, 1, 1},   {1, 1, 1},
};

void ag_tube_boxes(const ag_model *m, const ag_tube *t, int lo[3], int hi[3])
{
    ag_tube_box_range(t, m->laws.k_c, m->r_max, m->box_edge, m->nbox, lo, hi);
}

/* A fill through start[b]++ leaves every start at the next box's: shift them back. */
static void restore_starts(int *start, int nboxes)
{
    memmove(start + 1, start, (size_t)nboxes * sizeof *start);
    start[0] = 0;
}

int ag_tube_box_lists(const ag_model *m, int **start, int **list)
{
    int nb = m->nbox, nboxes = nb * nb * nb;
    int *tube_start = calloc((size_t)nboxes + 1, sizeof *tube_start), *tube_list = NULL;
    *start = tube_start;
    *list = NULL;
    if (!tube_start)
        return sb_fail("out of host memory for the tubes' box lists");
    for (int pass = 0; pass < 2; pass++) {
        for (int t = 0; t < m->ntubes; t++) {
            int lo[3], hi[3];
            ag_tube_boxes(m, &m->tubes[t], lo, hi);
            for (int z = lo[2]; z <= hi[2]; z++)
                for (int y = lo[1]; y <= hi[1]; y++)
                    for (int x = lo[0]; x <= hi[0]; x++) {
                        int b = x + nb * (y + nb * z);
                        if (pass == 0)
                            tube_start[b + 1]++;
                        else
                            tube_list[tube_start[b]++] = t;
                    }
        }
        if (pass == 0) {
            for (int b = 0; b < nboxes; b++)
                tube_start[b + 1] += tube_start[b];
            *list = tube_list = malloc(((size_t)tube_start[nboxes] + 1) * sizeof *tube_list);
            if (!tube_list)
                return sb_fail("out of host memory for the tubes' box lists (%d entries)",
                               tube_start[nboxes]);
        }
    }
    restore_starts(tube_start, nboxes);
    return 0;
}

int ag_sim_open(ag_sim *s, const ag_model *m)
{
    memset(s, 0, sizeof *s);
    s->m = m;
    s->capacity = m->max_cells;
    s->nboxes = m->nbox * m->nbox * m->nbox;
    size_t cap = (size_t)s->capacity;
    s->cells = malloc(cap * sizeof *s->cells);
    s->born = malloc(cap * sizeof *s->born);
    s->dividing = malloc(cap * sizeof *s->dividing);
    s->box_cells = malloc(cap * sizeof *s->box_cells);
    s->cell_box = malloc(cap * sizeof *s->cell_box);
    s->box_start = malloc(((size_t)s->nboxes + 1) * sizeof *s->box_start);
    s->tubes = malloc(((size_t)m->ntubes + 1) * sizeof *s->tubes);
    if (!s->cells || !s->born || !s->dividing || !s->box_cells || !s->cell_box ||
        !s->box_start || !s->tubes || ag_tube_box_lists(m, &s->tube_start, &s->tube_list) != 0) {
        ag_sim_close(s);
        return sb_fail("out of host memory for %d cells and %d boxes", s->capacity, s->nboxes);
    }
    return 0;
}

void ag_sim_close(ag_sim *s)
{
    free(s->cells);
    free(s->born);
    free(s->dividing);
    free(s->box_cells);
    free(s->cell_box);
    free(s->box_start);
    free(s->tubes);
    free(s->tube_start);
    free(s->tube_list);
    memset(s, 0, sizeof *s);
}

void ag_sim_reset(ag_sim *s)
{
    const ag_model *m = s->m;
    memcpy(s->cells, m->cells, (size_t)m->ncells * sizeof *s->cells);
    if (m->ntubes > 0) /* a model without tubes has none to copy (m->tubes is NULL) */
        memcpy(s->tubes, m->tubes, (size_t)m->ntubes * sizeof *s->tubes);
    s->ncells = m->ncells;
    s->next_id = (uint32_t)m->ncells;
    s->step = 0;
    s->cell_pairs = s->tube_pairs = s->divisions = s->deaths = 0;
}

void ag_sim_bin(ag_sim *s)
{
    const ag_model *m = s->m;
    int nb = m->nbox;
    memset(s->box_start, 0, ((size_t)s->nboxes + 1) * sizeof *s->box_start);
    for (int i = 0; i < s->ncells; i++) {
        const float *x = s->cells[i].x;
        int b = ag_box_of(m, x[0]) + nb * (ag_box_of(m, x[1]) + nb * ag_box_of(m, x[2]));
        s->cell_box[i] = b;
        s->box_start[b + 1]++;
    }
    for (int b = 0; b < s->nboxes; b++)
        s->box_start[b + 1] += s->box_start[b];
    for (int i = 0; i < s->ncells; i++)
        s->box_cells[s->box_start[s->cell_box[i]]++] = i;
    restore_starts(s->box_start, s->nboxes);
}

void ag_sim_clear_effects(ag_sim *s)
{
    for (int i = 0; i < s->ncells; i++) {
        ag_cell *c = &s->cells[i];
        c->f[0] = c->f[1] = c->f[2] = c->dc = c->da = c->p = 0;
    }
}

int ag_sim_life(ag_sim *s)
{
    const ag_model *m = s->m;
    int n = 0, alive = 0;
    for (int i = 0; i < s->ncells; i++) {
        if (ag_cell_step(&m->laws, m->side, &s->cells[i]))
            s->dividing[n++] = i;
        alive += s->cells[i].state != AG_DEAD;
    }
    if (alive + n > s->capacity)
        return sb_fail("step %lld: %d cells and %d divisions exceed max_cells=%d (raise "
                       "--param max_cells)",
                       s->step, alive, n, s->capacity);
    for (int k = 0; k < n; k++)
        ag_divide(m->side, m->seed, s->step, &s->cells[s->dividing[k]], &s->born[k],
                  s->next_id + (uint32_t)k);
    s->next_id += (uint32_t)n;
    int kept = 0;
    for (int i = 0; i < s->ncells; i++)
        if (s->cells[i].state != AG_DEAD)
            s->cells[kept++] = s->cells[i];
    memcpy(s->cells + kept, s->born, (size_t)n * sizeof *s->born);
    s->deaths += s->ncells - kept;
    s->divisions += n;
    s->ncells = kept + n;
    s->step++;
    return 0;
}

void ag_output_set(ag_output *o, const ag_cell *cells, int ncells, const ag_tube *tubes,
                   long long cell_pairs, long long tube_pairs, long long divisions,
                   long long deaths)
{
    o->ncells = ncells;
    memcpy(o->cells, cells, (size_t)ncells * sizeof *cells);
    for (int t = 0; t < o->ntubes; t++)
        o->tube_taf[t] = tubes[t].taf;
    memset(o->count, 0, sizeof o->count);
    for (int i = 0; i < ncells; i++)
        o->count[cells[i].state]++;
    o->cell_pairs = cell_pairs;
    o->tube_pairs = tube_pairs;
    o->divisions = divisions;
    o->deaths = deaths;
}

void ag_sim_output(const ag_sim *s, ag_output *o)
{
    ag_output_set(o, s->cells, s->ncells, s->tubes, s->cell_pairs, s->tube_pairs, s->divisions,
                  s->deaths);
}

int ag_lists_alloc(ag_lists *l, int ncells, size_t entries)
{
    l->start = malloc(((size_t)ncells + 1) * sizeof *l->start);
    l->entry = malloc((entries ? entries : 1) * sizeof *l->entry);
    if (!l->start || !l->entry)
        return sb_fail("out of host memory for lists of %zu entries over %d cells", entries,
                       ncells);
    l->start[0] = 0;
    return 0;
}

void ag_step_lists_free(ag_step_lists *l)
{
    free(l->id);
    free(l->neighbours.start);
    free(l->neighbours.entry);
    free(l->tubes.start);
    free(l->tubes.entry);
    memset(l, 0, sizeof *l);
}

int ag_stage_open(sb_env *env, const void *model, int (*step)(ag_stage *), ag_stage **out)
{
    ag_stage *st = calloc(1, sizeof *st);
    if (!st)
        return sb_fail("out of host memory");
    if (ag_sim_open(&st->sim, model) != 0) {
        free(st);
        return -1;
    }
    st->env = env;
    st->step = step;
    *out = st;
    return 0;
}

int ag_stage_run(void *state)
{
    ag_stage *st = state;
    sb_phases_clear(&st->phases);
    ag_sim_reset(&st->sim);
    for (long long k = 0; k < st->sim.m->steps; k++)
        if (st->step(st) != 0)
            return -1;
    return 0;
}

int ag_stage_output(void *state, void *out)
{
    ag_stage *st = state;
    ag_sim_output(&st->sim, out);
    return 0;
}

void ag_stage_teardown(void *state)
{
    ag_stage *st = state;
    ag_sim_close(&st->sim);
    free(st);
}

void ag_stage_report(void *state, sb_report *r)
{
    ag_stage *st = state;
    r->phases = st->phases;
}

int ag_host_step(ag_stage *st, void (*cell_cell)(ag_sim *), void (*tube_cell)(ag_sim *))
{
    ag_sim *s = &st->sim;
    double t = sb_phase_begin(st->env, "cell lists");
    ag_sim_bin(s);
    ag_sim_clear_effects(s);
    sb_phase_end(&st->phases, "cell lists", t);
    t = sb_phase_begin(st->env, "cell-cell");
    cell_cell(s);
    sb_phase_end(&st->phases, "cell-cell", t);
    t = sb_phase_begin(st->env, "tube-cell");
    tube_cell(s);
    sb_phase_end(&st->phases, "tube-cell", t);
    t = sb_phase_begin(st->env, "life cycle");
    int rc = ag_sim_life(s);
    sb_phase_end(&st->phases, "life cycle", t);
    return rc;
}
