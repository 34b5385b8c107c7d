/* The angiogenesis CPU stages (variants/angio/) against what is known without them: Newton's
 * third law and conservation in cell-cell interactions, the cell lists, the pairs a brute-force
 * search finds, cpu-openmp against cpu-reference (within 1e-4 after one step, in the band after
 * many), a growing tumour, and the errors a user can meet. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>

#include "angio_fixture.h"
#include "variants/angio/host.h"
#include "variants/angio/physics.h"

/* Cell-cell only (no tubes): the forces add up to zero within N eps max|F|, and the exchange
 * moves oxygen and TAF between cells without making or losing any. */
static void newton_and_conservation(void **unused)
{
    (void)unused;
    const sb_params *p = angio_params("cells=5000", "seed=3", NULL);
    ag_model *m = angio_load(p);
    ag_output *o = angio_run("cpu-reference", m, p, NULL);
    double sum[3] = {0}, most = 0, dc = 0, da = 0, dc_abs = 0, da_abs = 0;
    for (int i = 0; i < o->ncells; i++) {
        for (int k = 0; k < 3; k++) {
            sum[k] += o->cells[i].f[k];
            most = fmax(most, fabs(o->cells[i].f[k]));
        }
        dc += o->cells[i].dc, da += o->cells[i].da;
        dc_abs += fabs(o->cells[i].dc), da_abs += fabs(o->cells[i].da);
    }
    double bound = o->ncells * FLT_EPSILON * most;
    printf("sum F = (%.3g, %.3g, %.3g), bound %.3g; sum dc %.3g of %.3g, sum da %.3g of %.3g\n",
           sum[0], sum[1], sum[2], bound, dc, dc_abs, da, da_abs);
    assert_true(o->cell_pairs > 10000);
    for (int k = 0; k < 3; k++)
        assert_true(fabs(sum[k]) <= bound);
    assert_true(fabs(dc) <= o->ncells * FLT_EPSILON * dc_abs);
    assert_true(fabs(da) <= o->ncells * FLT_EPSILON * da_abs);
    angio_free(m, o);
}

/* Every cell in exactly one box, the box its position says, the boxes in order. */
static void cell_lists(void **unused)
{
    (void)unused;
    ag_model *m = angio_load(angio_params("scenario=tumour", "cells=3000", NULL));
    ag_sim s;
    assert_int_equal(ag_sim_open(&s, m), 0);
    ag_sim_reset(&s);
    ag_sim_bin(&s);
    int *seen = calloc((size_t)s.ncells, sizeof *seen);
    assert_int_equal(s.box_start[0], 0);
    assert_int_equal(s.box_start[s.nboxes], s.ncells);
    for (int b = 0; b < s.nboxes; b++)
        for (int k = s.box_start[b]; k < s.box_start[b + 1]; k++) {
            int i = s.box_cells[k], nb = m->nbox;
            const float *x = s.cells[i].x;
            seen[i]++;
            assert_int_equal(ag_box_of(m, x[0]) + nb * (ag_box_of(m, x[1]) + nb * ag_box_of(m, x[2])), b);
        }
    for (int i = 0; i < s.ncells; i++)
        assert_int_equal(seen[i], 1);
    free(seen);
    ag_sim_close(&s);
    angio_free(m, NULL);
}

/* Whether cell k's run of l holds `entry`. */
static int listed(const ag_lists *l, int k, uint32_t entry)
{
    for (int e = l->start[k]; e < l->start[k + 1]; e++)
        if (l->entry[e] == entry)
            return 1;
    return 0;
}

/* The boxes miss no pair, and the lists' oracle (a search over every pair, what the GPU stages'
 * lists are checked against) holds each pair from both sides: the reference's pair counts equal
 * the oracle's. */
static void pairs_against_brute_force(void **unused)
{
    (void)unused;
    const sb_params *p = angio_params("scenario=tubes", "cells=3000", "tubes=40", "density=12", NULL);
    ag_model *m = angio_load(p);
    ag_output *o = angio_run("cpu-reference", m, p, NULL);
    ag_step_lists all;
    angio_lists_brute(m, &all);
    const ag_lists *nbr = &all.neighbours;
    long long cells = nbr->start[m->ncells], tubes = all.tubes.start[m->ncells];
    printf("%lld cell-cell pairs (each listed by both cells) and %lld tube-cell pairs\n",
           cells / 2, tubes);
    assert_true(cells > 2000 && tubes > 100);
    for (int i = 0; i < m->ncells; i++) {
        assert_int_equal(all.id[i], i); /* the model's order: a neighbour's id is its index */
        for (int e = nbr->start[i]; e < nbr->start[i + 1]; e++)
            assert_true(listed(nbr, (int)nbr->entry[e], all.id[i]));
    }
    assert_int_equal(o->cell_pairs * 2, cells);
    assert_int_equal(o->tube_pairs, tubes);
    ag_step_lists_free(&all);
    angio_free(m, o);
}

static void openmp_one_step(void **unused)
{
    (void)unused;
    const char *scenarios[][3] = {{"scenario=random-cells", "cells=20000", NULL},
                                  {"scenario=tubes", "cells=20000", "tubes=500"}};
    for (size_t s = 0; s < 2; s++) {
        const sb_params *p = angio_params(scenarios[s][0], scenarios[s][1], scenarios[s][2], NULL);
        ag_model *m = angio_load(p);
        ag_output *ref = angio_run("cpu-reference", m, p, NULL);
        ag_output *got = angio_run("cpu-openmp", m, p, NULL);
        angio_assert_equal(m, ref, got, "cpu-openmp");
        sb_workload_angio.output_free(got);
        angio_free(m, ref);
    }
}

/* A tumour grows, goes hypoxic inside and divides; cpu-openmp's populations stay in the band
 * (thresholds may flip the other way under another summation order: the band says how far). */
static void tumour_many_steps(void **unused)
{
    (void)unused;
    const sb_params *p = angio_params("scenario=tumour", "cells=600", "steps=600", NULL);
    ag_model *m = angio_load(p);
    ag_output *ref = angio_run("cpu-reference", m, p, NULL);
    ag_output *got = angio_run("cpu-openmp", m, p, NULL);
    printf("reference: %d cells (new %lld, mature %lld, hypoxic %lld), %lld divisions, %lld "
           "deaths; cpu-openmp: %d cells, %lld divisions\n",
           ref->ncells, ref->count[AG_NEW], ref->count[AG_MATURE], ref->count[AG_HYPOXIC],
           ref->divisions, ref->deaths, got->ncells, got->divisions);
    assert_true(ref->divisions > 100);
    assert_true(ref->count[AG_HYPOXIC] > 0);
    angio_assert_equal(m, ref, got, "cpu-openmp");
    /* ids stay unique and ascending */
    for (int i = 1; i < ref->ncells; i++)
        assert_true(ref->cells[i].id > ref->cells[i - 1].id);
    sb_workload_angio.output_free(got);
    angio_free(m, ref);
}

/* What a user can get wrong: each a one-line error naming the fix. */
static void errors(void **unused)
{
    (void)unused;
    void *m;
    sb_error_clear();
    assert_int_equal(sb_workload_angio.load(angio_params("scenario=file", NULL), &m), -1);
    assert_non_null(strstr(sb_error(), "--param state=FILE"));
    sb_error_clear();
    assert_int_equal(
        sb_workload_angio.load(angio_params("cells=1000", "max_cells=10", NULL), &m), -1);
    assert_non_null(strstr(sb_error(), "max_cells=10"));
    /* a population that outgrows max_cells stops the run, saying what to raise */
    const sb_params *p =
        angio_params("scenario=tumour", "cells=200", "steps=300", "max_cells=250", NULL);
    ag_model *model = angio_load(p);
    ag_output *o = sb_workload_angio.output_new(model);
    sb_error_clear();
    assert_int_not_equal(sb_run_once(&sb_workload_angio,
                                     sb_find_variant(&sb_workload_angio, "cpu-reference"), model,
                                     p, NULL, 0, o),
                         0);
    assert_non_null(strstr(sb_error(), "raise --param max_cells"));
    angio_free(model, o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(newton_and_conservation), cmocka_unit_test(cell_lists),
        cmocka_unit_test(pairs_against_brute_force), cmocka_unit_test(openmp_one_step),
        cmocka_unit_test(tumour_many_steps),         cmocka_unit_test(errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
