/* stagebench compare on records files made up here, in the schema's shape (results/SCHEMA.md),
 * and on Google Benchmark's plain JSON. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "harness/compare.h"
#include "cuda/base/error.h"
#include "harness/json.h"

#define SAMPLES 20

static char dir[] = "/tmp/sb_test_compare.XXXXXX";
static const sb_compare_options defaults = {.threshold = 0.05, .alpha = 0.05};

/* Timings of 1 ms * scale with under 1 % of jitter in an order set by seed: a spread like a
 * quiet GPU's, and no two of the n <= 23 samples alike (7 i mod 23 differs for each i). */
static void make_samples(double *x, int n, double scale, unsigned seed)
{
    for (int i = 0; i < n; i++)
        x[i] = 1e-3 * scale * (1 + 0.01 * ((i * 7 + seed * 13) % 23) / 23.0);
}

/* One benchmarks[] entry as stagebench run writes it (fields compare does not read left out). */
static json_t *stagebench_entry(const char *name, const char *status, const double *samples,
                                int n)
{
    json_t *list = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(list, json_real(samples[i]));
    double ms = n > 0 ? samples[0] * 1e3 : 0;
    return json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:f, s:f, s:s, s:{s:s, s:{s:o}}}",
                     "name", name, "run_name", name, "run_type", "iteration", "repetitions", 1,
                     "repetition_index", 0, "threads", 1, "iterations", n, "real_time", ms,
                     "cpu_time", ms, "time_unit", "ms", "stagebench", "status", status, "time",
                     "samples", list);
}

/* Writes {"context": {...}, "benchmarks": benchmarks} to dir/file (takes benchmarks); the
 * returned path stays valid for the next 7 calls, enough for one test's files. */
static const char *write_records(const char *file, json_t *benchmarks)
{
    static char paths[8][512];
    static int next;
    char *path = paths[next++ % 8];
    snprintf(path, sizeof paths[0], "%s/%s", dir, file);
    json_t *doc = json_pack("{s:{s:s}, s:o}", "context", "date", "2025-01-01T00:00:00+00:00",
                            "benchmarks", benchmarks);
    assert_non_null(doc);
    assert_int_equal(sb_json_write_atomic(path, doc), 0);
    json_decref(doc);
    return path;
}

/* Runs the comparison with `out` captured into text (freed by the caller). */
static int compare(const char *base, const char *new_path, const sb_compare_options *opt,
                   char **text)
{
    size_t len;
    FILE *out = open_memstream(text, &len);
    assert_non_null(out);
    int rc = sb_compare_files(base, new_path, opt, out);
    fclose(out);
    return rc;
}

/* One benchmark "k/v" with n samples at scale, in base and in new. */
static int compare_one(int n, double base_scale, double new_scale, const char *new_status,
                       const sb_compare_options *opt, char **text)
{
    double base[SAMPLES], newer[SAMPLES];
    make_samples(base, n, base_scale, 1);
    make_samples(newer, n, new_scale, 2);
    json_t *base_list = json_pack("[o]", stagebench_entry("k/v", "valid", base, n));
    json_t *new_list = json_pack("[o]", stagebench_entry("k/v", new_status, newer, n));
    return compare(write_records("base.json", base_list), write_records("new.json", new_list),
                   opt, text);
}

static void identical_runs(void **state)
{
    (void)state;
    double x[SAMPLES];
    make_samples(x, SAMPLES, 1, 1);
    json_t *list = json_pack("[o, o]", stagebench_entry("k/a", "valid", x, SAMPLES),
                             stagebench_entry("k/b", "valid", x, SAMPLES));
    const char *path = write_records("same.json", list);
    char *text;
    assert_int_equal(compare(path, path, &defaults, &text), 0);
    assert_non_null(strstr(text, "1.000x"));
    assert_non_null(strstr(text, "0 slower, 0 faster, 2 same"));
    free(text);
}

static void clearly_slower(void **state)
{
    (void)state;
    char *text;
    assert_int_equal(compare_one(SAMPLES, 1, 1.3, "valid", &defaults, &text), 1);
    assert_non_null(strstr(text, "SLOWER"));
    assert_non_null(strstr(text, "1 slower"));
    /* Base medians are about 1 ms, new about 1.3 ms. */
    assert_non_null(strstr(text, " ms "));
    free(text);
}

static void slower_within_threshold(void **state)
{
    (void)state;
    /* 3 % slower: the U test sees it (no overlap beyond the 1 % jitter), the threshold of 5 %
     * does not count it. */
    char *text;
    assert_int_equal(compare_one(SAMPLES, 1, 1.03, "valid", &defaults, &text), 0);
    assert_non_null(strstr(text, "same"));
    free(text);

    /* With a threshold of 2 % it is a regression. */
    sb_compare_options tight = {.threshold = 0.02, .alpha = 0.05};
    assert_int_equal(compare_one(SAMPLES, 1, 1.03, "valid", &tight, &text), 1);
    free(text);
}

static void slower_but_too_few_samples(void **state)
{
    (void)state;
    /* 2 vs 2: the smallest two-sided p is 2 / C(4, 2) = 1/3, never under alpha: the test cannot
     * find a change, so the verdict is "not tested", never "same". */
    char *text;
    assert_int_equal(compare_one(2, 1, 1.5, "valid", &defaults, &text), 0);
    assert_non_null(strstr(text, "0.333"));
    assert_non_null(strstr(text, "  not tested\n"));
    assert_non_null(strstr(text, "0 slower, 0 faster, 0 same, 1 not tested"));
    assert_non_null(strstr(text, "not tested: too few samples for the test ever to reach"));
    free(text);
}

static void one_sample_each(void **state)
{
    (void)state;
    /* One sample a side, the same time: no spread, no test; not "same". */
    char *text;
    assert_int_equal(compare_one(1, 1, 1, "valid", &defaults, &text), 0);
    assert_non_null(strstr(text, "  one sample each\n"));
    assert_non_null(strstr(text, "0 same, 1 not tested"));
    assert_non_null(strstr(text, "one sample each: no spread to test a ratio against"));
    assert_null(strstr(text, "not tested: too few"));
    free(text);
    /* The markdown table says it too. */
    sb_compare_options md = defaults;
    md.markdown = 1;
    assert_int_equal(compare_one(1, 1, 1.5, "valid", &md, &text), 0);
    assert_non_null(strstr(text, "| one sample each |"));
    free(text);
}

static void faster(void **state)
{
    (void)state;
    char *text;
    assert_int_equal(compare_one(SAMPLES, 1, 0.7, "valid", &defaults, &text), 0);
    assert_non_null(strstr(text, "faster"));
    assert_non_null(strstr(text, "1 faster"));
    free(text);
}

static void valid_to_invalid(void **state)
{
    (void)state;
    char *text;
    assert_int_equal(compare_one(SAMPLES, 1, 1, "invalid", &defaults, &text), 1);
    assert_non_null(strstr(text, "NOW-INVALID"));
    free(text);
}

static void invalid_in_base(void **state)
{
    (void)state;
    double x[SAMPLES];
    make_samples(x, SAMPLES, 1, 1);
    json_t *base_list = json_pack("[o]", stagebench_entry("k/v", "failed", NULL, 0));
    json_t *new_list = json_pack("[o]", stagebench_entry("k/v", "valid", x, SAMPLES));
    char *text;
    assert_int_equal(compare(write_records("base.json", base_list),
                             write_records("new.json", new_list),
                             &defaults, &text), 0);
    assert_non_null(strstr(text, "not-comparable"));
    free(text);
}

static void missing_and_new(void **state)
{
    (void)state;
    double x[SAMPLES];
    make_samples(x, SAMPLES, 1, 1);
    json_t *base_list = json_pack("[o, o]", stagebench_entry("k/kept", "valid", x, SAMPLES),
                                  stagebench_entry("k/dropped", "valid", x, SAMPLES));
    json_t *new_list = json_pack("[o, o]", stagebench_entry("k/kept", "valid", x, SAMPLES),
                                 stagebench_entry("k/added", "valid", x, SAMPLES));
    char *text;
    assert_int_equal(compare(write_records("base.json", base_list),
                             write_records("new.json", new_list),
                             &defaults, &text), 0);
    assert_non_null(strstr(text, "missing: k/dropped\n"));
    assert_non_null(strstr(text, "new: k/added\n"));
    assert_non_null(strstr(text, "1 same"));
    assert_non_null(strstr(text, "1 new, 1 missing"));
    free(text);
}

static void no_benchmarks_array(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/other.json", dir);
    json_t *doc = json_pack("{s:i}", "schema", 1);
    assert_int_equal(sb_json_write_atomic(path, doc), 0);
    json_decref(doc);
    char *text;
    assert_int_equal(compare(path, path, &defaults, &text), -1);
    assert_non_null(strstr(sb_error(), "other.json"));
    assert_non_null(strstr(sb_error(), "no \"benchmarks\" array"));
    free(text);
}

static void not_json(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    const char *words = "name,median_s\nk/v,0.001\n";
    assert_int_equal(sb_write_atomic(path, words, strlen(words)), 0);
    double x[SAMPLES];
    make_samples(x, SAMPLES, 1, 1);
    const char *good = write_records("good.json", json_pack("[o]", stagebench_entry(
                                                                "k/v", "valid", x, SAMPLES)));
    char *text;
    /* Either side: the message names the bad file. */
    assert_int_equal(compare(good, path, &defaults, &text), -1);
    assert_non_null(strstr(sb_error(), "notes.txt"));
    free(text);
    assert_int_equal(compare(path, good, &defaults, &text), -1);
    free(text);

    char absent[600];
    snprintf(absent, sizeof absent, "%s/absent.json", dir);
    assert_int_equal(compare(good, absent, &defaults, &text), -1);
    assert_non_null(strstr(sb_error(), "absent.json"));
    free(text);
}

/* Google Benchmark with --benchmark_repetitions: one "iteration" entry per repetition, then the
 * aggregates, times in its time_unit and no stagebench object. */
static json_t *google_benchmark_entries(const char *name, double scale, unsigned seed)
{
    double x[SAMPLES];
    make_samples(x, SAMPLES, scale, seed);
    json_t *list = json_array();
    for (int i = 0; i < SAMPLES; i++)
        json_array_append_new(list, json_pack("{s:s, s:s, s:i, s:f, s:f, s:s}", "name", name,
                                              "run_type", "iteration", "iterations", 1000,
                                              "real_time", x[i] * 1e9, "cpu_time", x[i] * 1e9,
                                              "time_unit", "ns"));
    char mean_name[128];
    snprintf(mean_name, sizeof mean_name, "%s_mean", name);
    json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:f, s:s}", "name", mean_name,
                                          "run_type", "aggregate", "aggregate_name", "mean",
                                          "real_time", 1e6 * scale, "time_unit", "ns"));
    return list;
}

static void plain_google_benchmark(void **state)
{
    (void)state;
    const char *base = write_records("gb_base.json", google_benchmark_entries("BM_Sort/64", 1, 1));
    const char *slower = write_records("gb_new.json", google_benchmark_entries("BM_Sort/64", 1.3,
                                                                              2));
    char *text;
    assert_int_equal(compare(base, slower, &defaults, &text), 1);
    assert_non_null(strstr(text, "BM_Sort/64"));
    assert_non_null(strstr(text, "SLOWER"));
    /* 20 repetitions each: the test is over the repetitions (Welch's t on their logs), and
     * Google Benchmark's repetitions share one process. */
    assert_non_null(strstr(text, "welch"));
    assert_non_null(strstr(text, "repetitions of one process"));
    /* The aggregates are not benchmarks of their own. */
    assert_null(strstr(text, "_mean"));
    assert_non_null(strstr(text, "0 new, 0 missing"));
    free(text);

    assert_int_equal(compare(base, base, &defaults, &text), 0);
    free(text);
}

/* One benchmark as `stagebench run --repetitions n` writes it: an entry per repetition, each
 * with its own samples, at scale x factor[k] (the repetition's own level), and the aggregates. */
static json_t *repetition_entries(json_t *list, const char *name, double scale,
                                  const double *factor, int n)
{
    for (int k = 0; k < n; k++) {
        double x[SAMPLES];
        make_samples(x, SAMPLES, scale * factor[k], (unsigned)k);
        json_t *e = stagebench_entry(name, "valid", x, SAMPLES);
        json_object_set_new(e, "repetitions", json_integer(n));
        json_object_set_new(e, "repetition_index", json_integer(k));
        json_array_append_new(list, e);
    }
    char median[256];
    snprintf(median, sizeof median, "%s_median", name);
    json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:f, s:s}", "name", median, "run_type",
                                          "aggregate", "aggregate_name", "median", "real_time",
                                          scale * 1e3, "time_unit", "ms"));
    return list;
}

/* Five repetitions whose levels differ by up to 1 %: the spread between processes. */
static const double levels[] = {1.000, 1.004, 0.997, 1.010, 1.002};
static const double other_levels[] = {1.006, 0.999, 1.003, 0.995, 1.008};

static void repetitions_are_the_test_unit(void **state)
{
    (void)state;
    const char *base = write_records("rep_base.json",
                                     repetition_entries(json_array(), "k/r", 1, levels, 5));
    const char *slower = write_records("rep_slow.json",
                                       repetition_entries(json_array(), "k/r", 1.04,
                                                          other_levels, 5));
    const char *same = write_records("rep_same.json",
                                     repetition_entries(json_array(), "k/r", 1, other_levels, 5));
    char *text;
    sb_compare_options tight = {.threshold = 0.02, .alpha = 0.05};
    assert_int_equal(compare(base, slower, &tight, &text), 1);
    assert_non_null(strstr(text, "welch"));
    assert_non_null(strstr(text, "SLOWER"));
    /* The median of the repetitions' medians: about 1.04 ms. */
    assert_non_null(strstr(text, "1.04"));
    free(text);
    /* A-vs-A: the samples of each process would call these different (20 samples a side, each
     * process a level of its own); the repetitions do not. */
    assert_int_equal(compare(base, same, &tight, &text), 0);
    assert_non_null(strstr(text, "0 slower, 0 faster, 1 same"));
    free(text);
}

static void holm_keeps_many_benchmarks_quiet(void **state)
{
    (void)state;
    /* 20 benchmarks; one is 3.5 % slower with a raw p near 0.01 (5 repetitions of 1 % spread a
     * side): significant alone, not among 20 (Holm multiplies it by 20). */
    static const double spread[] = {1.00, 1.01, 1.02, 1.03, 1.04};
    json_t *base = json_array(), *newer = json_array();
    for (int i = 0; i < 20; i++) {
        char name[32];
        snprintf(name, sizeof name, "k/b%02d", i);
        repetition_entries(base, name, 1, spread, 5);
        repetition_entries(newer, name, i == 7 ? 1.035 : 1, spread, 5);
    }
    const char *b = write_records("many_base.json", base), *n = write_records("many_new.json",
                                                                             newer);
    char *text;
    sb_compare_options tight = {.threshold = 0.02, .alpha = 0.05};
    assert_int_equal(compare(b, n, &tight, &text), 0);
    assert_non_null(strstr(text, "0 slower, 0 faster, 20 same"));
    assert_non_null(strstr(text, "Holm-adjusted"));
    free(text);
    tight.no_correction = 1;
    assert_int_equal(compare(b, n, &tight, &text), 1);
    assert_non_null(strstr(text, "1 slower"));
    free(text);
}

static void calibration_sets_thresholds(void **state)
{
    (void)state;
    char a_dir[600], b_dir[600], cal[600], a_file[700], b_file[700];
    snprintf(a_dir, sizeof a_dir, "%s/half-a", dir);
    snprintf(b_dir, sizeof b_dir, "%s/half-b", dir);
    snprintf(cal, sizeof cal, "%s/calibration.json", dir);
    snprintf(a_file, sizeof a_file, "%s/01-k.json", a_dir);
    snprintf(b_file, sizeof b_file, "%s/01-k.json", b_dir);
    json_t *doc = json_pack("{s:{}, s:o}", "context", "benchmarks",
                            repetition_entries(json_array(), "k/c", 1, levels, 5));
    assert_int_equal(sb_json_write_atomic(a_file, doc), 0);
    json_decref(doc);
    doc = json_pack("{s:{}, s:o}", "context", "benchmarks",
                    repetition_entries(json_array(), "k/c", 1, other_levels, 5));
    assert_int_equal(sb_json_write_atomic(b_file, doc), 0);
    json_decref(doc);

    const char *paths[] = {a_dir, b_dir};
    char *text;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    assert_int_equal(sb_calibrate_files(paths, 2, 0.01, cal, out), 0);
    fclose(out);
    assert_non_null(strstr(text, "k/c"));
    free(text);

    sb_calibration c;
    assert_int_equal(sb_calibration_load(&c, cal), 0);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.benches[0].repetitions, 10);
    /* the spread of the ten levels' logs: about 0.45 %, so the threshold is the 1 % floor */
    assert_true(c.benches[0].spread > 0.003 && c.benches[0].spread < 0.006);
    sb_calibration_free(&c);

    /* 3 % slower: over the calibrated 1 % threshold and significant with the pooled spread. */
    const char *slower = write_records("cal_slow.json",
                                       repetition_entries(json_array(), "k/c", 1.03, levels, 5));
    sb_compare_options with_cal = {.threshold = 0.05, .alpha = 0.05, .calibration = cal};
    assert_int_equal(compare(a_dir, slower, &with_cal, &text), 1);
    assert_non_null(strstr(text, "t-cal"));
    assert_non_null(strstr(text, "SLOWER"));
    assert_non_null(strstr(text, "1.0%"));
    free(text);
    /* Directories on both sides, and an A-vs-A under the calibration. */
    assert_int_equal(compare(a_dir, b_dir, &with_cal, &text), 0);
    free(text);
    /* The markdown table, for a pull request. */
    with_cal.markdown = 1;
    assert_int_equal(compare(a_dir, slower, &with_cal, &text), 1);
    assert_non_null(strstr(text, "| benchmark | base | new |"));
    assert_non_null(strstr(text, "**SLOWER**"));
    free(text);

    /* A records file is not a calibration. */
    with_cal.calibration = slower;
    assert_int_equal(compare(a_dir, slower, &with_cal, &text), -1);
    assert_non_null(strstr(sb_error(), "not a calibration file"));
    free(text);
}

static void too_few_samples_cannot_detect(void **state)
{
    (void)state;
    char *text;
    /* 2 vs 2 samples: the exact U test's smallest p is 1/3, so no slow-down is detectable. */
    assert_int_equal(compare_one(2, 1, 1.5, "valid", &defaults, &text), 0);
    assert_non_null(strstr(text, "inf"));
    assert_non_null(strstr(text, "U-samples"));
    free(text);
}

/* Records of a GPU: "k/dram-bound" and "k/issue-bound" with n samples each (or, with reps > 1,
 * reps repetitions of n samples, at levels 1 +- 0.5 %), "k/cpu" (no device) at 1 ms; the GPU's
 * facts in the context. */
static const char *device_records(const char *file, const char *device, const char *uuid,
                                  const char *commit, double bandwidth, double dram_scale,
                                  double issue_scale, int n, int reps)
{
    json_t *list = json_array();
    static const char *const names[] = {"k/dram-bound", "k/issue-bound", "k/cpu"};
    const double scales[] = {dram_scale, issue_scale, 1};
    for (int k = 0; k < 3; k++)
        for (int r = 0; r < reps; r++) {
            double x[SAMPLES];
            make_samples(x, n, scales[k] * (1 + 0.005 * (r % 3 - 1)), (unsigned)(k + r));
            json_t *e = stagebench_entry(names[k], "valid", x, n);
            if (k < 2)
                json_object_set_new(json_object_get(e, "stagebench"), "device",
                                    json_integer(0));
            if (reps > 1) {
                json_object_set_new(e, "repetitions", json_integer(reps));
                json_object_set_new(e, "repetition_index", json_integer(r));
            }
            json_array_append_new(list, e);
        }
    static char paths[4][512];
    static int next;
    char *path = paths[next++ % 4];
    snprintf(path, sizeof paths[0], "%s/%s", dir, file);
    json_t *doc = json_pack(
        "{s:{s:{s:s, s:[{s:s, s:s, s:i, s:i, s:f, s:i}]}}, s:o}", "context", "stagebench",
        "git_commit", commit, "devices", "name", device, "uuid", uuid, "sm_count", 132,
        "sm_clock_max_mhz", 1980, "peak_dram_bytes_per_second", bandwidth,
        "single_to_double_perf_ratio", 2, "benchmarks", list);
    assert_non_null(doc);
    if (reps > 1) /* as stagebench run --repetitions writes it */
        json_object_set_new(json_object_get(json_object_get(doc, "context"), "stagebench"),
                            "repetitions", json_integer(reps));
    assert_int_equal(sb_json_write_atomic(path, doc), 0);
    json_decref(doc);
    return path;
}

/* The line of `name` in the text after `from`, up to its end. */
static const char *line_of(const char *text, const char *from, const char *name)
{
    const char *start = strstr(text, from);
    assert_non_null(start);
    char want[128];
    snprintf(want, sizeof want, "\n%s ", name);
    const char *line = strstr(start, want);
    assert_non_null(line);
    return line + 1;
}

/* `needle` within the line that starts at `line`. */
static int line_has(const char *line, const char *needle)
{
    const char *end = strchr(line, '\n'), *at = strstr(line, needle);
    return at && (!end || at < end);
}

static void across_devices(void **state)
{
    (void)state;
    /* The new GPU has 1.5x the bandwidth and the same SMs and clock: a DRAM-bound stage takes
     * 1/1.5 of the time, an issue-bound one 1.3x as long (a slower card, or a change of code):
     * a device comparison, no verdict, exit 0. */
    const char *a = device_records("gpu_a.json", "GPU A", "GPU-aaaa", "1111111", 3e12, 1, 1,
                                   SAMPLES, 1);
    const char *b = device_records("gpu_b.json", "GPU B", "GPU-bbbb", "1111111", 4.5e12,
                                   1 / 1.5, 1.3, SAMPLES, 1);
    char *text;
    assert_int_equal(compare(a, b, &defaults, &text), 0);
    assert_non_null(strstr(text, "device comparison: base ran on GPU A (GPU-aaaa), new on GPU B "
                                 "(GPU-bbbb)"));
    assert_non_null(strstr(text, "no regression verdict"));
    assert_non_null(strstr(text, "both built at commit 1111111"));
    assert_null(strstr(text, "SLOWER"));
    assert_null(strstr(text, "same"));
    const char *line = line_of(text, "95 % interval", "k/dram-bound");
    assert_true(line_has(line, "0.667x"));
    assert_true(line_has(line, "samples 20+20"));
    assert_true(line_has(line, "dram\n"));
    line = line_of(text, "95 % interval", "k/issue-bound");
    assert_true(line_has(line, "1.300x"));
    /* SM count x clock and FP64 predict the same 1x on these two: both are named. */
    assert_true(line_has(line, "sm x clock = fp64"));
    /* the interval: about the measured 1.3, well clear of 1 (1 % of jitter a side) */
    double low = 0, high = 0;
    const char *interval = strstr(line, "1.300x"); /* the ratio, then its interval */
    assert_non_null(interval);
    assert_int_equal(sscanf(interval + 6, " %lf-%lfx", &low, &high), 2);
    assert_true(low > 1.28 && low <= 1.3 && high >= 1.3 && high < 1.32);
    line = line_of(text, "95 % interval", "k/cpu");
    assert_true(line_has(line, "- (CPU stage)"));
    assert_non_null(strstr(text, "3 compared: 0 with an interval from repetitions, 3 from "
                                 "samples, 0 one sample each, 0 too few samples"));
    assert_non_null(strstr(text, "from samples: the Mann-Whitney interval"));
    free(text);

    /* Markdown, for a pull request. */
    sb_compare_options md = defaults;
    md.markdown = 1;
    assert_int_equal(compare(a, b, &md, &text), 0);
    assert_non_null(strstr(text, "| benchmark | base | new | ratio | 95 % interval | from | dram "
                                 "| sm x clock | fp64 | follows |"));
    assert_non_null(strstr(text, "| `k/cpu` |"));
    assert_non_null(strstr(text, "- ratio: new / base"));
    free(text);

    /* A stage that failed on the new GPU: said in its row, still no verdict and exit 0. */
    json_t *doc = json_load_file(b, 0, NULL);
    assert_non_null(doc);
    json_t *cpu = json_object_get(json_array_get(json_object_get(doc, "benchmarks"), 2),
                                  "stagebench");
    json_object_set_new(cpu, "status", json_string("failed"));
    char failed[600];
    snprintf(failed, sizeof failed, "%s/gpu_b_failed.json", dir);
    assert_int_equal(sb_json_write_atomic(failed, doc), 0);
    json_decref(doc);
    assert_int_equal(compare(a, failed, &defaults, &text), 0);
    assert_true(line_has(line_of(text, "95 % interval", "k/cpu"), "new: failed"));
    assert_non_null(strstr(text, "2 compared: 0 with an interval from repetitions, 2 from "
                                 "samples, 0 one sample each, 0 too few samples; 1 not valid on "
                                 "a side"));
    assert_null(strstr(text, "INVALID"));
    free(text);

    /* One GPU on both sides: the ordinary comparison, with its verdicts. */
    assert_int_equal(compare(a, a, &defaults, &text), 0);
    assert_null(strstr(text, "device comparison"));
    assert_non_null(strstr(text, "0 slower, 0 faster, 3 same"));
    free(text);
}

static void across_devices_few_samples(void **state)
{
    (void)state;
    /* 3 samples a side: no 95 % interval (min to max has 90 %), said so, never "same"; one
     * sample a side: "one sample each"; two commits: said to mix code and device. */
    const char *a3 = device_records("few_a.json", "GPU A", "GPU-aaaa", "1111111", 3e12, 1, 1, 3,
                                    1);
    const char *b3 = device_records("few_b.json", "GPU B", "GPU-bbbb", "2222222", 3e12, 1.23,
                                    0.73, 3, 1);
    char *text;
    assert_int_equal(compare(a3, b3, &defaults, &text), 0);
    assert_non_null(strstr(text, "built at two commits (base 1111111, new 2222222)"));
    const char *line = line_of(text, "95 % interval", "k/dram-bound");
    assert_true(line_has(line, "too few samples"));
    assert_true(line_has(line, "samples 3+3"));
    assert_non_null(strstr(text, "0 from samples, 0 one sample each, 3 too few samples"));
    assert_non_null(strstr(text, "3 and 3 give 90 % at most"));
    assert_null(strstr(text, "same"));
    free(text);

    const char *a1 = device_records("one_a.json", "GPU A", "GPU-aaaa", "1111111", 3e12, 1, 1, 1,
                                    1);
    const char *b1 = device_records("one_b.json", "GPU B", "GPU-bbbb", "1111111", 3e12, 1, 1, 1,
                                    1);
    assert_int_equal(compare(a1, b1, &defaults, &text), 0);
    line = line_of(text, "95 % interval", "k/issue-bound");
    assert_true(line_has(line, "one sample each"));
    assert_true(line_has(line, "1.000x"));
    assert_non_null(strstr(text, "3 one sample each"));
    assert_null(strstr(text, "same"));
    free(text);
}

static void across_devices_repetitions(void **state)
{
    (void)state;
    /* Five repetitions a side: the interval is over the repetitions' medians (Welch's t). */
    const char *a = device_records("rep_a.json", "GPU A", "GPU-aaaa", "1111111", 3e12, 1, 1,
                                   SAMPLES, 5);
    const char *b = device_records("rep_b.json", "GPU B", "GPU-bbbb", "1111111", 3e12, 1, 1.2,
                                   SAMPLES, 5);
    char *text;
    assert_int_equal(compare(a, b, &defaults, &text), 0);
    const char *line = line_of(text, "95 % interval", "k/issue-bound");
    assert_true(line_has(line, "repetitions 5+5"));
    double low = 0, high = 0;
    const char *interval = strstr(line, "x "); /* after the ratio, its interval */
    assert_non_null(interval);
    assert_int_equal(sscanf(interval + 1, " %lf-%lfx", &low, &high), 2);
    assert_true(low > 1.18 && low < 1.2 && high > 1.2 && high < 1.22);
    assert_non_null(strstr(text, "3 with an interval from repetitions"));
    assert_non_null(strstr(text, "from repetitions: Welch's t"));
    free(text);
}

static void two_cards_of_one_kind(void **state)
{
    (void)state;
    /* One name, two UUIDs: one kind of GPU, compared as one device (verdicts, exit 1 on a
     * slow-down), with a note naming both cards. */
    const char *a = device_records("card_a.json", "GPU A", "GPU-aaaa", "1111111", 3e12, 1, 1,
                                   SAMPLES, 1);
    const char *b = device_records("card_b.json", "GPU A", "GPU-cccc", "1111111", 3e12, 1, 1.3,
                                   SAMPLES, 1);
    char *text;
    assert_int_equal(compare(a, b, &defaults, &text), 1);
    assert_null(strstr(text, "device comparison"));
    assert_non_null(strstr(text, "SLOWER"));
    assert_non_null(strstr(text, "note: base and new ran on two cards of one kind (GPU A; "
                                 "GPU-aaaa and GPU-cccc)"));
    free(text);
    /* The same card: no note. */
    assert_int_equal(compare(a, a, &defaults, &text), 0);
    assert_null(strstr(text, "two cards"));
    free(text);
}

static int make_dir(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static int remove_dir(void **state)
{
    (void)state;
    return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identical_runs),
        cmocka_unit_test(clearly_slower),
        cmocka_unit_test(slower_within_threshold),
        cmocka_unit_test(slower_but_too_few_samples),
        cmocka_unit_test(one_sample_each),
        cmocka_unit_test(faster),
        cmocka_unit_test(valid_to_invalid),
        cmocka_unit_test(invalid_in_base),
        cmocka_unit_test(missing_and_new),
        cmocka_unit_test(no_benchmarks_array),
        cmocka_unit_test(not_json),
        cmocka_unit_test(plain_google_benchmark),
        cmocka_unit_test(repetitions_are_the_test_unit),
        cmocka_unit_test(holm_keeps_many_benchmarks_quiet),
        cmocka_unit_test(calibration_sets_thresholds),
        cmocka_unit_test(too_few_samples_cannot_detect),
        cmocka_unit_test(across_devices),
        cmocka_unit_test(across_devices_few_samples),
        cmocka_unit_test(across_devices_repetitions),
        cmocka_unit_test(two_cards_of_one_kind),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
