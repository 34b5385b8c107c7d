/* GPU test: every GPU stage of angio against cpu-reference. After one step each cell's force,
 * exchange and pressure within 1e-4 (the summation order differs), the pair counts within one
 * pair at the range's edge, every tube's TAF; after many steps the populations in the band.
 * Boxes fuller than the block (box_capacity=1 and a dense lattice) and lists fuller than their
 * first capacity force every rebuild path. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "cuda/devinfo.h"
#include "angio_fixture.h"

static int device;

static void check_case(const char *a, const char *b, const char *c, const char *d)
{
    const sb_params *p = angio_params(a, b, c, d, NULL);
    ag_model *m = angio_load(p);
    ag_output *ref = angio_run("cpu-reference", m, p, NULL);
    int checked = 0;
    for (int v = 0; v < sb_workload_angio.nvariants; v++) {
        const sb_variant *var = &sb_workload_angio.variants[v];
        if (!(var->needs & SB_NEEDS_GPU))
            continue;
        ag_output *got = angio_run(var->name, m, p, &device);
        angio_assert_equal(m, ref, got, var->name);
        sb_workload_angio.output_free(got);
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

int main(void)
{
    if (sb_device_count() == 0) {
        printf("SKIPPED: %s\n", sb_no_device_reason());
        return 77;
    }
    device = 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_step),
        cmocka_unit_test(rebuilds),
        cmocka_unit_test(many_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
