/* GPU test: what the harness records beside time. CUPTI's activity records of a ProCell
 * host-loop run agree with the harness' tracked allocator and transfer counters; the counter
 * pass collects the default metrics (where this machine lets counters be read), and an unknown
 * metric name is refused with close matches before anything runs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>

#include "cuda/devinfo.h"
#include "cuda/base/error.h"
#include "harness/profile.h"
#include "procell_fixture.h"

static double metric_value(const sb_counter_result *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->names[i], name) == 0)
            return c->values[i];
    return NAN;
}

/* host-loop on a population large enough for several generations and a real final sort. */
static void measure_host_loop(const sb_measure_options *opt, sb_result *res, pc_model **model)
{
    pc_histogram_row rows[300];
    fixture_rows(rows, 300, 7, 40);
    pc_model *m = fixture_model(rows, 300, "m4", NULL, 240, 11.0, 1, 7, 20);
    assert_non_null(m);
    pc_output ref, out;
    assert_int_equal(pc_output_init(&ref, m), 0);
    assert_int_equal(pc_output_init(&out, m), 0);
    const sb_variant *cpu = sb_find_variant(&sb_workload_procell, "cpu-reference");
    const sb_variant *v = sb_find_variant(&sb_workload_procell, "host-loop");
    assert_int_equal(sb_run_once(&sb_workload_procell, cpu, m, fixture_params(), NULL, 0, &ref), 0);
    int device = 0;
    sb_device_info info;
    assert_int_equal(sb_device_query(0, &info), 0);
    assert_int_equal(sb_measure(&sb_workload_procell, v, m, fixture_params(), &device, 1, &info,
                                &ref, &out, opt, res),
                     0);
    if (res->status != SB_VALID)
        fail_msg("host-loop: %s: %s", sb_status_name(res->status), res->reason);
    pc_output_free(&ref);
    pc_output_free(&out);
    *model = m;
}

static void quick(sb_measure_options *opt)
{
    sb_measure_defaults(opt);
    opt->min_samples = 3;
    opt->min_time = 0;
    opt->timeout = 1;
}

static void activity_agrees_with_tracked_counts(void **unused)
{
    (void)unused;
    sb_measure_options opt;
    quick(&opt);
    opt.counters = SB_COUNTERS_OFF;
    sb_result res;
    pc_model *m;
    measure_host_loop(&opt, &res, &m);
    const sb_activity_result *a = &res.activity;
    if (strcmp(a->status, "collected") != 0) {
        print_message("activity records unavailable here: %s\n", a->reason);
        sb_result_free(&res);
        fixture_free(m);
        skip();
    }
    print_message("host-loop: %lld kernels; h2d %lld, d2h %lld bytes; device peak %lld "
                  "(tracked %zu)\n",
                  a->run.kernels, a->run.h2d, a->run.d2h, a->device_peak_bytes,
                  res.peak_tracked_bytes);
    if (!a->agrees)
        fail_msg("CUPTI and the tracked counts disagree: %s", a->disagreement);
    assert_true(a->run.kernels > 2); /* roots, generations, sort, encode */
    assert_true(a->run.h2d > 0 && a->run.d2h > 0);
    assert_int_equal(a->run.h2d, (long long)res.transfers.h2d);
    assert_int_equal(a->run.d2h, (long long)res.transfers.d2h);
    assert_int_equal(a->device_peak_bytes, (long long)res.peak_tracked_bytes);
    assert_true(a->run.allocations > 0 && a->run.allocations == a->run.frees);
    assert_true(a->setup.allocations > 0);
    assert_string_equal(res.counters.status, "off");
    sb_result_free(&res);
    fixture_free(m);
}

static void default_counters_are_collected(void **unused)
{
    (void)unused;
    sb_measure_options opt;
    quick(&opt);
    sb_result res;
    pc_model *m;
    measure_host_loop(&opt, &res, &m);
    const sb_counter_result *c = &res.counters;
    if (strcmp(c->status, "collected") != 0) {
        print_message("counters %s here: %s\n", c->status, c->reason);
        assert_string_equal(c->status, "unavailable"); /* never a silent failure */
        sb_result_free(&res);
        fixture_free(m);
        skip();
    }
    assert_int_equal(c->n, sb_ndefault_metrics);
    print_message("host-loop counters: %d passes (%s replay, %s)\n", c->passes, c->replay,
                  c->backend);
    for (int i = 0; i < c->n; i++) {
        print_message("  %-52s %.6g\n", c->names[i], c->values[i]);
        assert_true(isfinite(c->values[i]));
    }
    assert_true(c->passes >= 1);
    assert_true(metric_value(c, "gpu__time_duration.sum") > 0);
    assert_true(metric_value(c, "dram__bytes_read.sum") + metric_value(c, "dram__bytes_write.sum") >
                0);
    double occupancy = metric_value(c, "sm__warps_active.avg.pct_of_peak_sustained_active");
    assert_true(occupancy > 0 && occupancy <= 100);
    sb_result_free(&res);
    fixture_free(m);
}

static void unknown_metric_is_refused_with_close_matches(void **unused)
{
    (void)unused;
    sb_measure_options opt;
    quick(&opt);
    opt.counters = SB_COUNTERS_REQUIRED;
    opt.nmetrics = 1;
    snprintf(opt.metrics[0], SB_METRIC_NAME, "dram__byts_read.sum");
    sb_counters *c = NULL;
    const char *probe = sb_default_metrics[0];
    int rc = sb_counters_open(&c, 0, &probe, 1);
    if (rc == SB_COUNTERS_UNAVAILABLE) {
        print_message("counters unavailable here: %s\n", sb_error());
        skip();
    }
    assert_int_equal(rc, 0);
    sb_counters_close(c);
    assert_int_equal(sb_profile_check(&opt, 0), -1);
    print_message("%s\n", sb_error());
    assert_non_null(strstr(sb_error(), "dram__bytes_read"));
}

int main(void)
{
    if (sb_device_count() == 0) {
        printf("SKIPPED: %s\n", sb_no_device_reason());
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(activity_agrees_with_tracked_counts),
        cmocka_unit_test(default_counters_are_collected),
        cmocka_unit_test(unknown_metric_is_refused_with_close_matches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
