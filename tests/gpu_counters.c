/* GPU test: hardware counters through CUPTI over a copy whose traffic is known, the message for a
 * misspelt metric, and misuse of the pass protocol. Where the machine cannot give counters (no
 * permission, no backend for the chip, vGPU) the test says why and is skipped, never passed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include "cuda/counters.h"
#include "cuda/devinfo.h"
#include "cuda/base/error.h"

int counters_copy_alloc(size_t n, float **in, float **out);
int counters_copy(const float *in, float *out, size_t n);
int counters_copy_landed(const float *out, size_t n);
void counters_copy_free(float *in, float *out);

static const int device = 0;
static float *d_in, *d_out;
static size_t nfloats; /* per buffer */

/* Buffers many times the L2: what stays in L2 across the range's ends (dirty lines not yet
 * written back, input left over from the previous pass) is then a few % of the traffic. */
static int group_setup(void **unused)
{
    (void)unused;
    sb_device_info info;
    if (sb_device_query(device, &info) != 0) {
        printf("%s\n", sb_error());
        return -1;
    }
    size_t bytes = 32 * (size_t)(info.l2_bytes > 0 ? info.l2_bytes : 50 << 20);
    if (bytes < ((size_t)256 << 20))
        bytes = (size_t)256 << 20;
    if (bytes > info.memory_bytes / 4)
        bytes = info.memory_bytes / 4;
    bytes &= ~(((size_t)1 << 20) - 1);
    nfloats = bytes / sizeof(float);
    if (counters_copy_alloc(nfloats, &d_in, &d_out) != 0 || counters_copy(d_in, d_out, nfloats)) {
        printf("%s\n", sb_error()); /* the copy above also warms up: module load stays out */
        return -1;
    }
    printf("copy: %zu MiB in, %zu MiB out (L2 %d MiB)\n", bytes >> 20, bytes >> 20,
           info.l2_bytes >> 20);
    return 0;
}

static int group_teardown(void **unused)
{
    (void)unused;
    counters_copy_free(d_in, d_out);
    return 0;
}

static int metric_index(const char *name)
{
    for (int i = 0; i < sb_ndefault_metrics; i++)
        if (strcmp(sb_default_metrics[i], name) == 0)
            return i;
    fail_msg("%s is not in the default set", name);
    return -1;
}

/* Closes the counters before failing, so that a failed test leaves no profiler enabled. */
#define CHECK_RC(call, c)                                                                          \
    do {                                                                                           \
        if ((call) != 0) {                                                                         \
            char why_[2048];                                                                       \
            snprintf(why_, sizeof why_, "%s", sb_error());                                         \
            sb_counters_close(c);                                                                  \
            fail_msg("%s: %s", #call, why_);                                                       \
        }                                                                                          \
    } while (0)

static void default_metrics_on_a_copy(void **unused)
{
    (void)unused;
    sb_counters *c = NULL;
    if (sb_counters_open(&c, device, sb_default_metrics, sb_ndefault_metrics) != 0)
        fail_msg("sb_counters_open: %s", sb_error());
    struct cudaDeviceProp prop;
    assert_int_equal(cudaGetDeviceProperties(&prop, device), cudaSuccess);
    /* the range profiler from Turing on, CUPTI's legacy Event/Metric API before */
    assert_string_equal(sb_counters_backend(c), 10 * prop.major + prop.minor >= 75
                                                    ? "range-profiler"
                                                    : "event-metric");
    assert_string_equal(sb_counters_replay(c), "user");
    int passes = sb_counters_passes(c);
    assert_true(passes >= 1);
    int done = 0, pass = 0;
    while (!done) {
        if (pass == 4 * passes + 4) {
            sb_counters_close(c);
            fail_msg("still not done after %d passes (%d planned)", pass, passes);
        }
        CHECK_RC(sb_counters_begin_pass(c), c);
        CHECK_RC(counters_copy(d_in, d_out, nfloats), c);
        CHECK_RC(sb_counters_end_pass(c, &done), c);
        pass++;
    }
    double v[SB_MAX_METRICS];
    CHECK_RC(sb_counters_values(c, v), c);
    sb_counters_close(c);
    printf("%d pass(es), %d planned\n", pass, passes);
    for (int i = 0; i < sb_ndefault_metrics; i++)
        printf("  %-52s %.6g\n", sb_default_metrics[i], v[i]);
    assert_true(counters_copy_landed(d_out, nfloats));

    double bytes = (double)nfloats * sizeof(float);
    double t = v[metric_index("gpu__time_duration.sum")];
    double rd = v[metric_index("dram__bytes_read.sum")];
    double wr = v[metric_index("dram__bytes_write.sum")];
    double occ = v[metric_index("sm__warps_active.avg.pct_of_peak_sustained_active")];
    for (int i = 0; i < sb_ndefault_metrics; i++)
        if (!isfinite(v[i]))
            fail_msg("%s is %g", sb_default_metrics[i], v[i]);
    if (!(t > 0))
        fail_msg("gpu__time_duration.sum %g ns: not positive", t);
    if (fabs(rd - bytes) > 0.10 * bytes)
        fail_msg("dram__bytes_read.sum %.4g, the copy read %.4g bytes (off by %.1f %%)", rd, bytes,
                 100 * (rd - bytes) / bytes);
    if (fabs(wr - bytes) > 0.10 * bytes)
        fail_msg("dram__bytes_write.sum %.4g, the copy wrote %.4g bytes (off by %.1f %%)", wr,
                 bytes, 100 * (wr - bytes) / bytes);
    if (!(occ > 0 && occ <= 100 + 1e-6))
        fail_msg("achieved occupancy %g %%: not in (0, 100]", occ);
}

static void misspelt_metric_names_close_matches(void **unused)
{
    (void)unused;
    const char *names[] = {"gpu__time_duration.sum", "dram__byts_read.sum"};
    sb_counters *c = NULL;
    sb_error_clear();
    int rc = sb_counters_open(&c, device, names, 2);
    printf("message: %s\n", sb_error());
    sb_counters_close(c);
    assert_int_equal(rc, -1);
    assert_null(c);
    assert_non_null(strstr(sb_error(), "dram__byts_read.sum"));
    assert_non_null(strstr(sb_error(), "dram__bytes_read"));
    assert_non_null(strstr(sb_error(), "stagebench list --metrics"));
}

static void passes_in_order(void **unused)
{
    (void)unused;
    const char *names[] = {"gpu__time_duration.sum"};
    sb_counters *c = NULL;
    double v[1];
    int done = 0;
    if (sb_counters_open(&c, device, names, 1) != 0)
        fail_msg("sb_counters_open: %s", sb_error());
    int early = sb_counters_values(c, v);            /* no pass yet */
    int unbegun = sb_counters_end_pass(c, &done);    /* end without begin */
    CHECK_RC(sb_counters_begin_pass(c), c);
    int twice = sb_counters_begin_pass(c);           /* begin while one is open */
    CHECK_RC(counters_copy(d_in, d_out, nfloats), c);
    CHECK_RC(sb_counters_end_pass(c, &done), c);
    while (!done) {
        CHECK_RC(sb_counters_begin_pass(c), c);
        CHECK_RC(counters_copy(d_in, d_out, nfloats), c);
        CHECK_RC(sb_counters_end_pass(c, &done), c);
    }
    int extra = sb_counters_begin_pass(c);           /* every pass was submitted */
    CHECK_RC(sb_counters_values(c, v), c);
    sb_counters_close(c);
    assert_int_equal(early, -1);
    assert_int_equal(unbegun, -1);
    assert_int_equal(twice, -1);
    assert_int_equal(extra, -1);
    assert_true(v[0] > 0);
}

static void list_names_the_default_metrics(void **unused)
{
    (void)unused;
    FILE *f = tmpfile();
    assert_non_null(f);
    if (sb_counters_list(device, f) != 0) {
        fclose(f);
        fail_msg("sb_counters_list: %s", sb_error());
    }
    rewind(f);
    char line[512];
    long lines = 0;
    int seen[3] = {0, 0, 0};
    const char *want[3] = {"dram__bytes_read.sum", "gpu__time_duration.sum",
                           "lts__t_sector_hit_rate.pct"};
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (lines < 5)
            printf("  %s\n", line);
        lines++;
        for (int k = 0; k < 3; k++)
            seen[k] |= strcmp(line, want[k]) == 0;
    }
    fclose(f);
    printf("%ld metric names\n", lines);
    for (int k = 0; k < 3; k++)
        if (!seen[k])
            fail_msg("the list lacks %s", want[k]);
}

int main(void)
{
    if (sb_device_count() == 0) {
        printf("SKIPPED: %s\n", sb_no_device_reason());
        return 77;
    }
    /* a machine that cannot give counters skips the test, saying why */
    sb_counters *probe = NULL;
    int rc = sb_counters_open(&probe, device, sb_default_metrics, sb_ndefault_metrics);
    sb_counters_close(probe);
    if (rc == SB_COUNTERS_UNAVAILABLE) {
        printf("SKIPPED: %s\n", sb_error());
        return 77;
    }
    if (rc != 0)
        printf("opening the default metrics failed: %s\n", sb_error()); /* the tests fail too */
    printf("CUPTI %s\n", sb_cupti_version());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_metrics_on_a_copy),
        cmocka_unit_test(misspelt_metric_names_close_matches),
        cmocka_unit_test(passes_in_order),
        cmocka_unit_test(list_names_the_default_metrics),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
