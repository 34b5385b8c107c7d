/* GPU test: every GPU variant of ProCell is bitwise equal to cpu-reference over seeds x start
 * modes x type sets (two dividing types; quiescent ones) x phi_min from the data and given, with
 * level budgets that force restarts from the host; and on the real data when it is there. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "cuda/devinfo.h"
#include "cuda/base/error.h"
#include "procell_fixture.h"

static const char *gpu_variants[] = {"host-loop",     "dynamic-parallelism", "bounding",
                                     "depth-inference", "gpu-histogram",     "subtree-dfs",
                                     "multi-gpu",       "split-trees"};
static int devices[SB_MAX_DEVICES], ndevices;

/* Whether this build has the variant: what it needs may be compiled out for the architectures
 * asked (split-trees before compute capability 7.0). */
static int built(const char *variant)
{
    return !sb_build_lacks(sb_find_variant(&sb_workload_procell, variant)->needs);
}

static void check_all(const pc_model *m, const char *what)
{
    pc_output ref;
    char why[512];
    if (fixture_run("cpu-reference", m, NULL, 0, &ref) != 0)
        fail_msg("%s: cpu-reference: %s", what, sb_error());
    for (size_t v = 0; v < sizeof gpu_variants / sizeof *gpu_variants; v++) {
        pc_output got;
        int multi = strcmp(gpu_variants[v], "multi-gpu") == 0;
        if (!built(gpu_variants[v]))
            continue;
        if (fixture_run(gpu_variants[v], m, devices, multi ? ndevices : 1, &got) != 0)
            fail_msg("%s: %s: %s", what, gpu_variants[v], sb_error());
        if (!sb_workload_procell.output_equal(m, &ref, &got, why, sizeof why))
            fail_msg("%s: %s differs from cpu-reference: %s", what, gpu_variants[v], why);
        pc_output_free(&got);
    }
    pc_output_free(&ref);
}

static void synthetic_populations(void **unused)
{
    (void)unused;
    pc_histogram_row rows[300];
    const char *types[] = {"m4", "m2", "m3"};
    const char *budgets[] = {"0.25", "0.001"}; /* GiB: the second forces shallow levels */
    int cases = 0;
    for (uint32_t seed = 1; seed <= 3; seed++)
        for (int async = 0; async <= 1; async++)
            for (int t = 0; t < 3; t++) {
                fixture_rows(rows, 300, seed, 12);
                double phi_min = (seed + t) % 2 ? 11.0 : -1; /* given, or from the data */
                double t_max = t == 2 ? 504 : 240;
                pc_model *m = fixture_model(rows, 300, types[t], NULL, t_max, phi_min, async,
                                            seed, 1);
                assert_non_null(m);
                sb_params_set((sb_params *)fixture_params(), "level_memory_gib",
                              budgets[(seed + async) % 2]);
                char what[160];
                snprintf(what, sizeof what, "seed %u, %s start, %s, phi_min %g, t_max %g", seed,
                         async ? "async" : "sync", types[t], m->rules.phi_min, t_max);
                check_all(m, what);
                fixture_free(m);
                cases++;
            }
    int n_built = 0;
    for (size_t v = 0; v < sizeof gpu_variants / sizeof *gpu_variants; v++)
        n_built += built(gpu_variants[v]);
    printf("%d cases x %d GPU variants bitwise equal to cpu-reference (%d compiled out)\n", cases,
           n_built, (int)(sizeof gpu_variants / sizeof *gpu_variants) - n_built);
}

static void real_histogram(void **unused)
{
    (void)unused;
    const char *dir = getenv("SB_SHARED_DATA");
    char path[1024];
    snprintf(path, sizeof path, "%s/AML9_Exp3_t10d_UT1_BM_GFPpos.txt",
             dir ? dir : "../shared/data/procell");
    FILE *probe = fopen(path, "r");
    if (!probe)
        skip();
    fclose(probe);
    pc_histogram_row *rows;
    int n;
    assert_int_equal(pc_parse_histogram(path, &rows, &n), 0);
    pc_model *m = fixture_model(rows, n, "m4", NULL, 240, 11.0, 1, 1, 1);
    assert_non_null(m);
    sb_params_set((sb_params *)fixture_params(), "level_memory_gib", "4");
    check_all(m, "UT1_BM, m4, t_max 240");
    fixture_free(m);
    free(rows);
}

int main(void)
{
    ndevices = sb_device_count();
    if (ndevices == 0) {
        printf("SKIPPED: %s\n", sb_no_device_reason());
        return 77;
    }
    for (int i = 0; i < ndevices && i < SB_MAX_DEVICES; i++)
        devices[i] = i;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(synthetic_populations),
        cmocka_unit_test(real_histogram),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
