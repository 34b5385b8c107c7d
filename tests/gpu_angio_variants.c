/* GPU test: every GPU stage of angio against cpu-reference, in its first run and in a later
 * (timed) one. After one step each cell's force,
 * exchange and pressure within 1e-4 (the summation order differs), the pair counts within one
 * pair at the range's edge, every tube's TAF; after many steps the populations in the band.
 * Boxes fuller than the block (box_capacity=1 and a dense lattice) and lists fuller than their
 * first capacity force every rebuild path; steps with divisions alone and with deaths too force
 * both of resident's and sorted's life-cycle paths (cells kept in place, compacted), each in one
 * block and after CUB's scan, and 140,000 cells their one thread a cell.
 * The co-processor stages' neighbour and tube lists after one step against a search over every
 * pair: exactly the same entries. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "cuda/devinfo.h"
#include "angio_fixture.h"
#include "variants/angio/coproc.h"

static int device;

/* The stage run twice, both outputs against the reference: a stage's first run may differ in
 * kind from the timed ones (resident and sorted launch step by step first, then a graph). */
static void check_runs(const ag_model *m, const sb_params *p, const sb_variant *v,
                       const ag_output *ref)
{
    sb_session s;
    ag_output *got = sb_workload_angio.output_new(m);
    assert_non_null(got);
    sb_workload_angio.output_poison(got);
    double t, wall;
    if (sb_session_open(&s, &sb_workload_angio, v, m, p, &device, 1) != 0 ||
        sb_session_validate(&s, NULL, got, NULL, 0) != 0)
        fail_msg("%s: %s: %s", m->scenario, v->name, sb_error());
    angio_assert_equal(m, ref, got, v->name);
    sb_workload_angio.output_poison(got);
    if (sb_session_sample(&s, &t, &wall) != 0 || v->ops->output(s.state, got) != 0)
        fail_msg("%s: %s, second run: %s", m->scenario, v->name, sb_error());
    char why[512];
    if (!sb_workload_angio.output_equal(m, ref, got, why, sizeof why))
        fail_msg("%s: %s's second run differs from cpu-reference: %s", m->scenario, v->name, why);
    sb_session_close(&s);
    sb_workload_angio.output_free(got);
}

/* Every GPU stage against cpu-reference on the model of the assignments given (NULL-terminated:
 * the first NULL ends them). */
static void check_case(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    const sb_params *p = workload_params(&sb_workload_angio, first, ap);
    va_end(ap);
    ag_model *m = angio_load(p);
    ag_output *ref = angio_run("cpu-reference", m, p, NULL);
    int checked = 0;
    for (int v = 0; v < sb_workload_angio.nvariants; v++) {
        const sb_variant *var = &sb_workload_angio.variants[v];
        if (!(var->needs & SB_NEEDS_GPU))
            continue;
        check_runs(m, p, var, ref);
        checked++;
    }
    printf("%s: %d GPU stages agree (%d cells, %lld cell-cell and %lld tube-cell pairs, %lld "
           "divisions)\n",
           m->scenario, checked, ref->ncells, ref->cell_pairs, ref->tube_pairs, ref->divisions);
    angio_free(m, ref);
}

static void one_step(void **unused)
{
    (void)unused;
    check_case("cells=3001", "seed=1", NULL, NULL);
    check_case("cells=20000", "seed=2", "radius=4", NULL);
    check_case("scenario=tubes", "cells=20000", "tubes=300", NULL);
    /* resident and sorted give a cell one thread from about 135,000 cells (132 SMs), and
     * note at most 16 partners before evaluating them: density 30 notes more */
    check_case("cells=140000", "density=30", NULL);
}

/* One step with divisions (every Mature cell with oxygen >= 0.8: about 40 %) and none dead,
 * where resident and sorted leave the cells in place and write the daughters after them; then
 * with deaths too (oxygen under 0.6 for a minute), where they compact into the other buffer;
 * again with one thread a cell; and eleven steps of it (a turn of the graph's loop, 8 steps, then
 * 3 launched apart), with max_cells under and over the life cycle's one-block bound (16,384). */
static void divisions_and_deaths(void **unused)
{
    (void)unused;
    check_case("cells=3000", "t_mature=0", "c_div=0.8", NULL);
    check_case("cells=3000", "t_mature=0", "c_div=0.8", "c_dead=0.6", "c_hyp=0.7", "t_dead=1",
               "consumption=0.05", NULL);
    check_case("cells=140000", "t_mature=0", "c_div=0.8", "c_dead=0.6", "c_hyp=0.7", "t_dead=1",
               "consumption=0.05", NULL);
    check_case("cells=3000", "steps=11", "max_cells=16000", "t_mature=0", "c_div=0.8",
               "c_dead=0.6", "c_hyp=0.7", "t_dead=1", "consumption=0.03", NULL);
    check_case("cells=3000", "steps=11", "max_cells=48000", "t_mature=0", "c_div=0.8",
               "c_dead=0.6", "c_hyp=0.7", "t_dead=1", "consumption=0.03", NULL);
}

/* box_capacity=1: every box with two cells outgrows the shared-memory block; density 30: more
 * neighbours than the lists' first 32; 3000 tubes among 5000 cells: more tubes per cell than
 * the tube lists' first 8. */
static void rebuilds(void **unused)
{
    (void)unused;
    check_case("cells=8000", "box_capacity=1", "density=30", NULL);
    check_case("scenario=tubes", "cells=5000", "tubes=3000", NULL);
}

static void many_steps(void **unused)
{
    (void)unused;
    check_case("cells=4000", "steps=50", NULL, NULL);
    check_case("scenario=tumour", "cells=600", "steps=600", NULL);
}

static int ascending(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Cell k's run of l, as "[a b c]" cut to fit. */
static void list_text(const ag_lists *l, int k, char *out, size_t cap)
{
    size_t used = (size_t)snprintf(out, cap, "[");
    for (int e = l->start[k]; e < l->start[k + 1] && used < cap; e++)
        used += (size_t)snprintf(out + used, cap - used, e > l->start[k] ? " %u" : "%u",
                                 l->entry[e]);
    if (used < cap)
        snprintf(out + used, cap - used, "]");
}

/* Each cell's run of `got` sorted is the oracle's, with nothing twice: the neighbour lists equal
 * as sorted lists, the tube lists as sets. Fails naming the first cell that differs. */
static void assert_same_lists(const ag_model *m, const char *variant, const char *what,
                              const ag_step_lists *oracle, const ag_lists *want, ag_lists *got)
{
    for (int k = 0; k < oracle->ncells; k++) {
        int n = got->start[k + 1] - got->start[k];
        uint32_t *run = got->entry + got->start[k];
        qsort(run, (size_t)n, sizeof *run, ascending);
        for (int e = 1; e < n; e++)
            if (run[e] == run[e - 1])
                fail_msg("%s: %s: cell %u's %s list holds %u twice", m->scenario, variant,
                         oracle->id[k], what, run[e]);
        int w = want->start[k + 1] - want->start[k];
        if (n == w && memcmp(run, want->entry + want->start[k], (size_t)n * sizeof *run) == 0)
            continue;
        char gpu[512], all[512];
        list_text(got, k, gpu, sizeof gpu);
        list_text(want, k, all, sizeof all);
        fail_msg("%s: %s: cell %u's %s list differs: GPU %s, every pair %s", m->scenario,
                 variant, oracle->id[k], what, gpu, all);
    }
}

/* The series "capacity_rebuilds" of a stage's last run. */
static double rebuilds_of(const sb_variant *v, void *state)
{
    sb_report r;
    memset(&r, 0, sizeof r);
    v->ops->report(state, &r);
    for (int k = 0; k < r.nseries; k++)
        if (strcmp(r.series[k].name, "capacity_rebuilds") == 0)
            return r.series[k].y[0];
    fail_msg("%s reports no capacity_rebuilds", v->name);
    return 0;
}

/* One step of every co-processor stage that builds lists, its lists against the oracle's (the
 * ids of both in the model's order). Every case outgrows a first capacity (box slots, neighbour
 * or tube lists), so the lists compared are the rebuilt ones. */
static void check_lists(const char *a, const char *b, const char *c, const char *d, const char *e)
{
    const sb_params *p = angio_params(a, b, c, d, e, NULL);
    ag_model *m = angio_load(p);
    ag_step_lists oracle;
    angio_lists_brute(m, &oracle);
    int checked = 0;
    for (int v = 0; v < sb_workload_angio.nvariants; v++) {
        const sb_variant *var = &sb_workload_angio.variants[v];
        if (var->ops->run != ag_coproc_run)
            continue;
        sb_session s;
        if (sb_session_open(&s, &sb_workload_angio, var, m, p, &device, 1) != 0 ||
            var->ops->run(s.state) != 0)
            fail_msg("%s: %s: %s", m->scenario, var->name, sb_error());
        ag_step_lists got;
        int rc = ag_coproc_step_lists(s.state, &got);
        double rebuilds = rebuilds_of(var, s.state);
        sb_session_close(&s);
        if (rc != 0)
            fail_msg("%s: %s: lists: %s", m->scenario, var->name, sb_error());
        if (!got.has_neighbours && !got.has_tubes) {
            ag_step_lists_free(&got);
            continue;
        }
        assert_int_equal(got.ncells, oracle.ncells);
        assert_memory_equal(got.id, oracle.id, (size_t)got.ncells * sizeof *got.id);
        if (got.has_neighbours)
            assert_same_lists(m, var->name, "neighbour", &oracle, &oracle.neighbours,
                              &got.neighbours);
        if (got.has_tubes)
            assert_same_lists(m, var->name, "tube", &oracle, &oracle.tubes, &got.tubes);
        if (rebuilds < 1)
            fail_msg("%s: %s: no capacity outgrown: the case misses the rebuild path",
                     m->scenario, var->name);
        const char *which = !got.has_tubes        ? "neighbour"
                            : got.has_neighbours ? "neighbour and tube"
                                                 : "tube";
        printf("%s: %s: %s lists equal every pair's (%.0f rebuilds)\n", m->scenario, var->name,
               which, rebuilds);
        ag_step_lists_free(&got);
        checked++;
    }
    printf("%s: %d stages' lists checked (%d neighbour and %d tube entries)\n", m->scenario,
           checked, oracle.neighbours.start[m->ncells], oracle.tubes.start[m->ncells]);
    assert_true(checked >= 5); /* stages 2 to 6 */
    ag_step_lists_free(&oracle);
    angio_free(m, NULL);
}

/* Density 30: tens of neighbours, more than the lists' first 32; box_capacity=1: every box of
 * two cells outgrows the shared-memory block; 3000 tubes among 5000 cells: more tubes a cell
 * than the tube lists' first 8. */
static void lists_one_step(void **unused)
{
    (void)unused;
    check_lists("cells=8000", "density=30", "box_capacity=1", NULL, NULL);
    check_lists("scenario=tubes", "cells=20000", "tubes=300", "density=30", "box_capacity=1");
    check_lists("scenario=tubes", "cells=5000", "tubes=3000", "density=30", "box_capacity=1");
}

int main(void)
{
    if (sb_device_count() == 0) {
        printf("SKIPPED: %s\n", sb_no_device_reason());
        return 77;
    }
    device = 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_step),
        cmocka_unit_test(divisions_and_deaths),
        cmocka_unit_test(rebuilds),
        cmocka_unit_test(lists_one_step),
        cmocka_unit_test(many_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
