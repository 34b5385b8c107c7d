/* GPU test: dynamic parallelism with a fan-out far beyond CUDA's default pending-launch limit
 * (2048). The stage raises the limit from its plan and counts every device launch; the run must
 * launch them all, run every child block, and still equal the reference. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "cuda/devinfo.h"
#include "cuda/base/error.h"
#include "procell_fixture.h"

static void fan_out_beyond_default_limit(void **unused)
{
    (void)unused;
    pc_histogram_row rows[600];
    fixture_rows(rows, 600, 21, 200); /* ~60,000 roots: ~235 blocks at level 0 */
    pc_model *m = fixture_model(rows, 600, "m4", NULL, 240, -1, 1, 21, 1);
    assert_non_null(m);
    /* 0.3 GiB holds levels X_0..X_6 of 60,000 cells: 235 * (2^5 - 1) = 7,285 child grids per
     * batch, every one needed (no bounding) */
    sb_params_set((sb_params *)fixture_params(), "level_memory_gib", "0.3");
    sb_device_info info;
    assert_int_equal(sb_device_query(0, &info), 0);
    pc_output ref;
    assert_int_equal(fixture_run("cpu-reference", m, NULL, 0, &ref), 0);
    const sb_variant *v = sb_find_variant(&sb_workload_procell, "dynamic-parallelism");
    sb_measure_options opt;
    sb_measure_defaults(&opt);
    opt.min_samples = 1;
    opt.min_time = 0;
    opt.max_noise = 1;
    int device = 0;
    pc_output out;
    pc_output_init(&out, m);
    sb_result res;
    assert_int_equal(sb_measure(&sb_workload_procell, v, m, fixture_params(), &device, 1, &info,
                                &ref, &out, &opt, &res),
                     0);
    if (res.status != SB_VALID)
        fail_msg("dynamic-parallelism: %s: %s", sb_status_name(res.status), res.reason);
    printf("%.0f device launches in one run (default pending-launch limit: 2048)\n",
           res.report.device_launches);
    assert_true(res.report.device_launches > 2048);
    sb_result_free(&res);
    pc_output_free(&out);
    pc_output_free(&ref);
    fixture_free(m);
}

int main(void)
{
#ifdef SB_NO_CDP
    printf("SKIPPED: this build has no dynamic parallelism (cmake -DSB_CDP=OFF): the host "
           "launches each level, there is no pending-launch pool to fill\n");
    return 77;
#endif
    if (sb_device_count() == 0) {
        printf("SKIPPED: %s\n", sb_no_device_reason());
        return 77;
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(fan_out_beyond_default_limit)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
