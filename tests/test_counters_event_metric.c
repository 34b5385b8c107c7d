/* The event-metric counter backend without a GPU (cuda/counters-event-metric.c): the default
 * set's perfworks names as legacy metrics per compute capability, names without an equivalent
 * and unknown ones refused with close matches; and SB_COUNTERS_BACKEND forcing a backend
 * (cuda/counters.c), which without a GPU says unavailable, naming the backend and why. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SB_COUNTERS_BACKEND /* for sb_event_metric_mapping and the backends' table */
#include "cuda/counters.h"
#include "cuda/devinfo.h"
#include "cuda/base/error.h"

static const struct {
    const char *name;
    int major, minor;
    const char *legacy;
} mapped[] = {
    /* the papers' K80 and GTX 970, a Pascal and a Volta */
    {"dram__bytes_read.sum", 3, 7, "dram_read_transactions*32"},
    {"dram__bytes_read.sum", 5, 2, "dram_read_transactions*32"},
    {"dram__bytes_read.sum", 6, 0, "dram_read_bytes or dram_read_transactions*32"},
    {"dram__bytes_write.sum", 3, 7, "dram_write_transactions*32"},
    {"dram__bytes_write.sum", 7, 0, "dram_write_bytes or dram_write_transactions*32"},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", 3, 7, "achieved_occupancy*100"},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", 6, 1, "achieved_occupancy*100"},
    {"lts__t_sector_hit_rate.pct", 3, 7, "l2_l1_read_hit_rate"},
    {"lts__t_sector_hit_rate.pct", 5, 2, "l2_tex_hit_rate or l2_tex_read_hit_rate"},
    {"lts__t_sector_hit_rate.pct", 7, 2, "l2_tex_hit_rate or l2_tex_read_hit_rate"},
    {"gpu__time_duration.sum", 3, 7, "CUDA events around each pass"},
    {"smsp__inst_executed.sum", 5, 2, "inst_executed"},
    {"smsp__inst_executed.sum", 7, 0, "inst_executed"},
    /* legacy names pass as they are: the device says whether it knows them */
    {"achieved_occupancy", 3, 7, "achieved_occupancy"},
    {"active_warps", 5, 2, "active_warps"},
};

static void perfworks_names_map_per_chip(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < sizeof mapped / sizeof mapped[0]; i++) {
        char out[256];
        int rc = sb_event_metric_mapping(mapped[i].name, mapped[i].major, mapped[i].minor, out,
                                         sizeof out);
        if (rc != 0)
            fail_msg("%s on %d.%d: rc %d: %s", mapped[i].name, mapped[i].major, mapped[i].minor, rc,
                     sb_error());
        if (strcmp(out, mapped[i].legacy) != 0)
            fail_msg("%s on %d.%d reads '%s', expected '%s'", mapped[i].name, mapped[i].major,
                     mapped[i].minor, out, mapped[i].legacy);
    }
}

/* Every default metric has a row for every chip the backend serves: mapped or said why not. */
static void default_set_covered_below_7_5(void **unused)
{
    (void)unused;
    static const int chips[][2] = {{3, 0}, {3, 5}, {3, 7}, {5, 0}, {5, 2}, {5, 3},
                                   {6, 0}, {6, 1}, {6, 2}, {7, 0}, {7, 2}};
    for (size_t c = 0; c < sizeof chips / sizeof chips[0]; c++)
        for (int i = 0; i < sb_ndefault_metrics; i++) {
            char out[256];
            int rc = sb_event_metric_mapping(sb_default_metrics[i], chips[c][0], chips[c][1], out,
                                             sizeof out);
            if (rc != 0 && rc != SB_COUNTERS_UNAVAILABLE)
                fail_msg("%s on %d.%d: %s", sb_default_metrics[i], chips[c][0], chips[c][1],
                         sb_error());
            assert_true(out[0] != '\0');
        }
}

static void no_equivalent_says_why(void **unused)
{
    (void)unused;
    char out[256];
    int rc = sb_event_metric_mapping("sm__throughput.avg.pct_of_peak_sustained_elapsed", 3, 7, out,
                                     sizeof out);
    assert_int_equal(rc, SB_COUNTERS_UNAVAILABLE);
    assert_non_null(strstr(out, "no legacy metric"));
}

static void unknown_perfworks_names_refused_with_close_matches(void **unused)
{
    (void)unused;
    char out[256];
    sb_error_clear();
    int rc = sb_event_metric_mapping("dram__byts_read.sum", 5, 2, out, sizeof out);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(sb_error(), "'dram__byts_read.sum'"));
    assert_non_null(strstr(sb_error(), "close matches: dram__bytes_read.sum"));
    assert_non_null(strstr(sb_error(), "stagebench list --metrics"));
    /* a chip the table has no row for: the mapped names exist, not for it */
    sb_error_clear();
    rc = sb_event_metric_mapping("dram__bytes_read.sum", 9, 0, out, sizeof out);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(sb_error(), "compute capability 9.0"));
}

static void backends_cover_every_compute_capability(void **unused)
{
    (void)unused;
    for (int cc = 10; cc <= 120; cc++) {
        int serving = sb_counters_range_profiler.fits(cc / 10, cc % 10) +
                      sb_counters_event_metric.fits(cc / 10, cc % 10);
        if (serving != 1)
            fail_msg("compute capability %d.%d has %d backends", cc / 10, cc % 10, serving);
    }
    assert_true(sb_counters_event_metric.fits(3, 7));
    assert_true(sb_counters_event_metric.fits(7, 2));
    assert_true(sb_counters_range_profiler.fits(7, 5));
}

/* Forced onto a machine without a GPU, the event-metric backend is unavailable, and the message
 * names the forcing and the reason. On a GPU the backend answers for itself: unavailable where
 * CUPTI refuses the legacy API (CUDA 13, chips >= 7.5), or open. */
static void forced_event_metric_says_unavailable(void **unused)
{
    (void)unused;
    const char *names[] = {"dram__bytes_read.sum"};
    sb_counters *c = NULL;
    setenv("SB_COUNTERS_BACKEND", "event-metric", 1);
    sb_error_clear();
    int rc = sb_counters_open(&c, 0, names, 1);
    char message[2048];
    snprintf(message, sizeof message, "%s", sb_error());
    if (rc == 0)
        assert_string_equal(sb_counters_backend(c), "event-metric");
    sb_counters_close(c);
    unsetenv("SB_COUNTERS_BACKEND");
    printf("message: %s\n", rc == 0 ? "(opened)" : message);
    if (sb_device_count() == 0 || rc != 0) {
        assert_int_equal(rc, SB_COUNTERS_UNAVAILABLE);
        assert_non_null(strstr(message, "SB_COUNTERS_BACKEND=event-metric: "));
        assert_non_null(strstr(message, "unavailable"));
    }
}

static void forcing_an_unknown_backend_is_refused(void **unused)
{
    (void)unused;
    const char *names[] = {"dram__bytes_read.sum"};
    sb_counters *c = NULL;
    setenv("SB_COUNTERS_BACKEND", "nvprof", 1);
    int rc = sb_counters_open(&c, 0, names, 1);
    unsetenv("SB_COUNTERS_BACKEND");
    assert_int_equal(rc, -1);
    assert_null(c);
    assert_non_null(strstr(sb_error(), "SB_COUNTERS_BACKEND=nvprof"));
    assert_non_null(strstr(sb_error(), "range-profiler, event-metric"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(perfworks_names_map_per_chip),
        cmocka_unit_test(default_set_covered_below_7_5),
        cmocka_unit_test(no_equivalent_says_why),
        cmocka_unit_test(unknown_perfworks_names_refused_with_close_matches),
        cmocka_unit_test(backends_cover_every_compute_capability),
        cmocka_unit_test(forced_event_metric_says_unavailable),
        cmocka_unit_test(forcing_an_unknown_backend_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
