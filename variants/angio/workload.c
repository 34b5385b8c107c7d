/* Angiogenesis as the harness sees it: the parameters (every constant of the laws by name), the
 * scenario they build, outputs and their comparison within the stated tolerances. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "../../harness/hostmem.h"
#include "../../harness/json.h"
#include "../../harness/variant.h"
#include "model.h"
#include "table.h"

static const sb_param_decl params[] = {
    {"scenario", SB_PARAM_CHOICE, "random-cells", 0, 0, "random-cells|tubes|tumour|file",
     "the paper's experiments (figs. 4-7, fig. 8, the whole simulation) or a saved state"},
    {"state", SB_PARAM_PATH, NULL, 0, 0, NULL,
     "saved state for scenario=file (format: variants/angio/STATE-FORMAT.md)"},
    {"cells", SB_PARAM_INT, NULL, 1, 67108864, NULL,
     "cells at the start (default: random-cells 65536, tubes 262144, tumour 1000)"},
    {"tubes", SB_PARAM_INT, NULL, 0, 4194304, NULL,
     "tubes: random tubes (default 1000); tumour: vessels along z on a square grid (default "
     "16)"},
    {"steps", SB_PARAM_INT, NULL, 1, 1e9, NULL,
     "time steps (default: 1 for random-cells and tubes, 600 for tumour and file)"},
    {"seed", SB_PARAM_INT, "1", 0, 4294967295.0, NULL, "random seed (32 bits)"},
    {"max_cells", SB_PARAM_INT, NULL, 1, 67108864, NULL,
     "the population may not exceed this (default: 2x the start, tumour 16x)"},
    {"radius", SB_PARAM_FLOAT, "5", 0.1, 1000, NULL, "cell radius, um"},
    {"density", SB_PARAM_FLOAT, "8", 0.01, 1000, NULL,
     "scenarios: neighbours within range of a cell, on average, at the start"},
    {"box_capacity", SB_PARAM_INT, "32", 1, 1024, NULL,
     "GPU stages: cell slots per box (the paper's block size); a fuller box rebuilds larger"},
    {"k_c", SB_PARAM_FLOAT, "1.2", 1, 3, NULL, "interaction range, in units of r_i + r_j"},
    {"k_rep", SB_PARAM_FLOAT, "1", 0, 1e6, NULL, "repulsion per um of overlap"},
    {"k_adh", SB_PARAM_FLOAT, "0.2", 0, 1e6, NULL, "adhesion per um of gap, within range"},
    {"d_c", SB_PARAM_FLOAT, "0.05", 0, 10, NULL, "oxygen exchange between cells, 1/min"},
    {"d_a", SB_PARAM_FLOAT, "0.05", 0, 10, NULL, "TAF exchange between cells, 1/min"},
    {"k_s", SB_PARAM_FLOAT, "0.1", 0, 10, NULL, "oxygen supply from a tube, 1/min"},
    {"k_u", SB_PARAM_FLOAT, "0.05", 0, 10, NULL, "TAF uptake by a tube, 1/min"},
    {"gamma", SB_PARAM_FLOAT, "10", 1e-6, 1e9, NULL, "drag: velocity = force / gamma"},
    {"dt", SB_PARAM_FLOAT, "1", 1e-6, 1e3, NULL, "time step, min"},
    {"consumption", SB_PARAM_FLOAT, NULL, 0, 10, NULL,
     "oxygen a cell uses, 1/min (default 0.0015; random-cells and tubes 0: no hypoxia, "
     "no death)"},
    {"production", SB_PARAM_FLOAT, "0.01", 0, 10, NULL, "TAF a hypoxic cell makes, 1/min"},
    {"decay", SB_PARAM_FLOAT, "0.01", 0, 10, NULL, "TAF decay, 1/min"},
    {"t_mature", SB_PARAM_FLOAT, "120", 0, 1e9, NULL, "age at which a New cell is Mature, min"},
    {"c_div", SB_PARAM_FLOAT, "0.7", 0, 1e9, NULL, "oxygen a Mature cell needs to divide"},
    {"c_hyp", SB_PARAM_FLOAT, "0.25", 0, 1e9, NULL, "below this oxygen a cell is Hypoxic"},
    {"c_dead", SB_PARAM_FLOAT, "0.1", 0, 1e9, NULL, "below this oxygen for t_dead, a cell dies"},
    {"t_dead", SB_PARAM_FLOAT, "120", 0, 1e9, NULL, "min"},
};

static float num(const sb_params *p, const char *name)
{
    return (float)sb_param_num(p, name);
}

/* A parameter the user gave, or the scenario's default. */
static double given_or(const sb_params *p, const char *name, double fallback)
{
    return sb_param_is_set(p, name) ? sb_param_num(p, name) : fallback;
}

/* Refuses, before allocating, a run whose host memory would not fit: the model's cells and
 * tubes, the two outputs the harness keeps for validation (max_cells cells each) and a CPU
 * stage's state (max_cells cells, their daughters and box lists). */
static int check_host(double cells, double tubes, double max_cells)
{
    double per_slot = 2 * sizeof(ag_cell)                     /* the outputs */
                      + 2 * sizeof(ag_cell) + 3 * sizeof(int); /* a stage's cells, daughters, lists */
    double bytes = cells * sizeof(ag_cell) + tubes * sizeof(ag_tube) + max_cells * per_slot +
                   2 * (tubes + 1) * sizeof(float);
    char what[160];
    snprintf(what, sizeof what, "%.0f cells (max_cells %.0f) and %.0f tubes", cells, max_cells,
             tubes);
    return sb_host_check_fits(bytes, what, "lower cells or max_cells") ? -1 : 0;
}

static int load(const sb_params *p, void **out)
{
    ag_model *m = calloc(1, sizeof *m);
    if (!m)
        return sb_fail("out of host memory");
    const char *scenario = sb_param_text(p, "scenario");
    int quiet = strcmp(scenario, "random-cells") == 0 || strcmp(scenario, "tubes") == 0;
    int tumour = strcmp(scenario, "tumour") == 0;
    ag_laws *l = &m->laws;
    *l = (ag_laws){num(p, "k_c"),
                   num(p, "k_rep"),
                   num(p, "k_adh"),
                   num(p, "d_c"),
                   num(p, "d_a"),
                   num(p, "k_s"),
                   num(p, "k_u"),
                   num(p, "gamma"),
                   num(p, "dt"),
                   (float)given_or(p, "consumption", quiet ? 0 : 0.0015),
                   num(p, "production"),
                   num(p, "decay"),
                   num(p, "t_mature"),
                   num(p, "c_div"),
                   num(p, "c_hyp"),
                   num(p, "c_dead"),
                   num(p, "t_dead")};
    m->seed = (uint32_t)sb_param_num(p, "seed");
    m->steps = (long long)given_or(p, "steps", quiet ? 1 : 600);
    float radius = num(p, "radius"), density = num(p, "density");
    int rc, file = strcmp(scenario, "file") == 0, tubes = strcmp(scenario, "tubes") == 0;
    double factor = tumour ? 16.0 : 2.0; /* max_cells' default, times the cells at the start */
    int cells = (int)given_or(p, "cells", tubes ? 262144 : tumour ? 1000 : 65536);
    int ntubes = (int)given_or(p, "tubes", tubes ? 1000 : tumour ? 16 : 0);
    if (file) {
        rc = sb_param_is_set(p, "state")
                 ? ag_state_read(m, sb_param_text(p, "state"))
                 : sb_fail("scenario=file needs --param state=FILE (format: "
                           "variants/angio/STATE-FORMAT.md)");
    } else if ((rc = check_host(cells, ntubes, given_or(p, "max_cells", factor * cells))) != 0)
        ;
    else if (tubes)
        rc = ag_build_tubes(m, cells, radius, density, ntubes);
    else if (tumour)
        rc = ag_build_tumour(m, cells, radius, density, ntubes);
    else
        rc = ag_build_random_cells(m, cells, radius, density);
    if (rc == 0) {
        m->max_cells = (int)given_or(p, "max_cells", factor * m->ncells);
        if (m->max_cells < m->ncells)
            rc = sb_fail("max_cells=%d is below the %d cells the scenario starts with",
                         m->max_cells, m->ncells);
        else if (file) /* the file's cells are read: the rest of the run */
            rc = check_host(m->ncells, m->ntubes, m->max_cells);
    }
    if (rc != 0) {
        ag_model_free(m);
        free(m);
        return -1;
    }
    *out = m;
    return 0;
}

static void free_model(void *model)
{
    ag_model_free(model);
    free(model);
}

static void *output_new(const void *model)
{
    const ag_model *m = model;
    ag_output *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->capacity = m->max_cells;
    o->ntubes = m->ntubes;
    o->cells = malloc((size_t)m->max_cells * sizeof *o->cells);
    o->tube_taf = malloc(((size_t)m->ntubes + 1) * sizeof *o->tube_taf);
    if (!o->cells || !o->tube_taf) {
        free(o->cells);
        free(o->tube_taf);
        free(o);
        return NULL;
    }
    return o;
}

static void output_poison(void *out)
{
    ag_output *o = out;
    memset(o->cells, 0xa5, (size_t)o->capacity * sizeof *o->cells);
    memset(o->tube_taf, 0xa5, (size_t)o->ntubes * sizeof *o->tube_taf);
    o->ncells = -1;
    for (int s = 0; s < AG_NSTATES; s++)
        o->count[s] = -1;
    o->cell_pairs = o->tube_pairs = o->divisions = o->deaths = -1;
}

static void output_free(void *out)
{
    ag_output *o = out;
    free(o->cells);
    free(o->tube_taf);
    free(o);
}

/* What output_equal reads, for the reference cache (harness/refcache.h): every cell slot,
 * though only the first ncells count (their number is only known once the output is read). */
static int output_regions(const void *model, void *out, sb_region *r)
{
    (void)model;
    ag_output *o = out;
    r[0] = (sb_region){&o->ncells, sizeof o->ncells};
    r[1] = (sb_region){o->cells, (size_t)o->capacity * sizeof *o->cells};
    r[2] = (sb_region){o->tube_taf, (size_t)o->ntubes * sizeof *o->tube_taf};
    r[3] = (sb_region){o->count, sizeof o->count};
    r[4] = (sb_region){&o->cell_pairs, sizeof o->cell_pairs};
    r[5] = (sb_region){&o->tube_pairs, sizeof o->tube_pairs};
    r[6] = (sb_region){&o->divisions, sizeof o->divisions};
    r[7] = (sb_region){&o->deaths, sizeof o->deaths};
    return 8;
}

/* Relative tolerance of one step's per-cell results (float; the variants sum a cell's
 * interactions in different orders), against the larger of the value and the quantity's mean
 * magnitude (a sum of large forces that cancel has no relative precision of its own). */
#define AG_TOL 1e-4
/* After many steps, thresholds (division, hypoxia, death, the range) can flip one way in one
 * summation order and the other way in another, and the trajectories then part: the population
 * and each state's count must agree within 5 % of the population + 3 cells (a flip moves a cell
 * between states, so small states are held to the population's band, not their own), pair
 * counts within 5 %. */
#define AG_BAND 0.05

static double mean_abs(const ag_output *o, size_t offset)
{
    double s = 0;
    for (int i = 0; i < o->ncells; i++)
        s += fabs(*(const float *)((const char *)&o->cells[i] + offset));
    return o->ncells ? s / o->ncells : 0;
}

static int within(double got, double ref, double scale, double tol)
{
    return fabs(got - ref) <= tol * fmax(fabs(ref), scale);
}

static int band(long long got, long long ref, double frac, long long slack)
{
    return llabs(got - ref) <= (long long)(frac * (double)llabs(ref)) + slack;
}

static const char *const state_names[AG_NSTATES] = {"new", "mature", "hypoxic", "dead"};

static int output_equal(const void *model, const void *ref_, const void *got_, char *why,
                        size_t cap)
{
    const ag_model *m = model;
    const ag_output *ref = ref_, *got = got_;
    if (got->ncells < 0 || got->ncells > got->capacity) {
        snprintf(why, cap, "no output: %d cells", got->ncells);
        return 0;
    }
    if (m->steps > 1) {
        long long slack = (long long)(AG_BAND * ref->ncells) + 3;
        if (!band(got->ncells, ref->ncells, AG_BAND, 3)) {
            snprintf(why, cap, "%d cells after %lld steps, reference %d (band 5 %% + 3)",
                     got->ncells, m->steps, ref->ncells);
            return 0;
        }
        for (int s = 0; s < AG_NSTATES; s++)
            if (llabs(got->count[s] - ref->count[s]) > slack) {
                snprintf(why, cap, "%lld %s cells after %lld steps, reference %lld (band %lld: 5 "
                         "%% of the population + 3)",
                         got->count[s], state_names[s], m->steps, ref->count[s], slack);
                return 0;
            }
        if (!band(got->cell_pairs, ref->cell_pairs, AG_BAND, 3) ||
            !band(got->tube_pairs, ref->tube_pairs, AG_BAND, 3)) {
            snprintf(why, cap, "%lld cell-cell and %lld tube-cell pairs, reference %lld and %lld "
                     "(band 5 %%)", got->cell_pairs, got->tube_pairs, ref->cell_pairs,
                     ref->tube_pairs);
            return 0;
        }
        return 1;
    }
    /* one step: the same cells, each within the tolerance */
    if (got->ncells != ref->ncells || got->divisions != ref->divisions ||
        got->deaths != ref->deaths) {
        snprintf(why, cap, "%d cells (%lld divisions, %lld deaths), reference %d (%lld, %lld)",
                 got->ncells, got->divisions, got->deaths, ref->ncells, ref->divisions,
                 ref->deaths);
        return 0;
    }
    /* a pair at the range's edge may fall either side of it in float */
    if (llabs(got->cell_pairs - ref->cell_pairs) > 1 + ref->cell_pairs / 1000000 ||
        llabs(got->tube_pairs - ref->tube_pairs) > 1 + ref->tube_pairs / 1000000) {
        snprintf(why, cap, "%lld cell-cell and %lld tube-cell pairs, reference %lld and %lld",
                 got->cell_pairs, got->tube_pairs, ref->cell_pairs, ref->tube_pairs);
        return 0;
    }
    static const struct {
        const char *name;
        size_t offset;
    } q[] = {{"f.x", offsetof(ag_cell, f[0])}, {"f.y", offsetof(ag_cell, f[1])},
             {"f.z", offsetof(ag_cell, f[2])}, {"dc", offsetof(ag_cell, dc)},
             {"da", offsetof(ag_cell, da)},    {"p", offsetof(ag_cell, p)},
             {"x", offsetof(ag_cell, x[0])},   {"y", offsetof(ag_cell, x[1])},
             {"z", offsetof(ag_cell, x[2])},   {"c", offsetof(ag_cell, c)},
             {"a", offsetof(ag_cell, a)}};
    for (int i = 0; i < ref->ncells; i++) {
        const ag_cell *r = &ref->cells[i], *g = &got->cells[i];
        if (g->id != r->id || g->state != r->state) {
            snprintf(why, cap, "cell %d: id %u state %d, reference id %u state %d", i, g->id,
                     g->state, r->id, r->state);
            return 0;
        }
    }
    for (size_t k = 0; k < sizeof q / sizeof q[0]; k++) {
        double scale = mean_abs(ref, q[k].offset);
        for (int i = 0; i < ref->ncells; i++) {
            const ag_cell *r = &ref->cells[i], *g = &got->cells[i];
            double rv = *(const float *)((const char *)r + q[k].offset);
            double gv = *(const float *)((const char *)g + q[k].offset);
            if (!within(gv, rv, scale, AG_TOL)) {
                snprintf(why, cap, "cell %u: %s %.9g, reference %.9g (tolerance %g of %.3g)",
                         r->id, q[k].name, gv, rv, AG_TOL, fmax(fabs(rv), scale));
                return 0;
            }
        }
    }
    double taf_scale = 0; /* the tubes' mean TAF, once */
    for (int t = 0; t < ref->ntubes; t++)
        taf_scale += fabs(ref->tube_taf[t]) / ref->ntubes;
    for (int t = 0; t < ref->ntubes; t++)
        if (!within(got->tube_taf[t], ref->tube_taf[t], taf_scale, AG_TOL)) {
            snprintf(why, cap, "tube %d: TAF %.9g, reference %.9g", t, got->tube_taf[t],
                     ref->tube_taf[t]);
            return 0;
        }
    return 1;
}

/* Items: pair interactions (cell-cell and tube-cell pairs within range, over the run). */
static void figures(const void *model, const void *out, sb_figures *fig)
{
    const ag_model *m = model;
    const ag_output *o = out;
    fig->items = (double)(o->cell_pairs + o->tube_pairs);
    fig->simulated_seconds = (double)m->steps * m->laws.dt * 60;
    fig->values[0] = o->ncells;
    fig->values[1] = (double)o->count[AG_HYPOXIC];
    fig->values[2] = (double)o->divisions;
    fig->values[3] = (double)o->deaths;
}

static const char *const output_figures[] = {"cells", "hypoxic", "divisions", "deaths", NULL};

/* The phases the studies' figures split a step into (the CPU and resident stages have the
 * first four; the co-processor stages the rest and the first and last). */
static const char *const csv_phases[] = {
    "cell lists",           "cell-cell",         "tube-cell",          "life cycle",
    "cell-cell conversion", "cell-cell copies",  "cell-cell lists",    "cell-cell kernels",
    "tube-cell conversion", "tube-cell copies",  "tube-cell kernels",  NULL};

/* --dump-output: a table of the final cells, then the tubes' TAF. */
static int write_cells(FILE *f, const void *model, const void *out)
{
    (void)model;
    const ag_output *o = out;
    fprintf(f, "# id state x y z c a fx fy fz dc da p\n");
    for (int i = 0; i < o->ncells; i++) {
        const ag_cell *c = &o->cells[i];
        fprintf(f, "%u %s %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", c->id,
                state_names[c->state], c->x[0], c->x[1], c->x[2], c->c, c->a, c->f[0], c->f[1],
                c->f[2], c->dc, c->da, c->p);
    }
    fprintf(f, "# tube taf\n");
    for (int t = 0; t < o->ntubes; t++)
        fprintf(f, "%d %.9g\n", t, o->tube_taf[t]);
    return ferror(f) ? sb_fail("write error on the output dump") : 0;
}

static int output_write(const void *model, const void *out, const char *path)
{
    return sb_write_stream_atomic(path, write_cells, model, out);
}

/* The problem's floor: a step reads and writes the state each cell carries from step to step (its
 * id, state, position, radius, oxygen, TAF, age and time below c_dead; the step's forces and rates
 * are made again), and reads every tube and writes its TAF, at the starting population. */
static void problem_floor(const void *model, sb_problem_floor *f)
{
    const ag_model *m = model;
    double cell = 2.0 * (double)offsetof(ag_cell, f), tube = sizeof(ag_tube) + sizeof(float);
    f->bytes = (double)m->steps * ((double)m->ncells * cell + (double)m->ntubes * tube);
    snprintf(f->what, sizeof f->what,
             "a cell's lasting state read and written a step (%g B), a tube read and its TAF "
             "written (%g B): %d cells, %d tubes, %lld steps",
             cell, tube, m->ncells, m->ntubes, m->steps);
}

const sb_workload sb_workload_angio = {
    .name = "angio",
    .summary = "tumour growth and angiogenesis by particle dynamics: cells and tubes in cell "
               "lists, the paper's GPU stages and beyond",
    .item_unit = "pair interactions",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .variants = ag_variants,
    .nvariants = AG_NVARIANTS,
    .reference = "cpu-reference",
    .default_scenario = NULL,
    .load = load,
    .free_model = free_model,
    .output_new = output_new,
    .output_poison = output_poison,
    .output_free = output_free,
    .output_equal = output_equal,
    .output_regions = output_regions,
    .figures = figures,
    .output_figures = output_figures,
    .output_write = output_write,
    .csv_phases = csv_phases,
    .problem_floor = problem_floor,
};
