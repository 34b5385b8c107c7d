/* The measurement loop and records with a made-up workload whose variants misbehave on purpose:
 * a wrong output is invalid (never timed), an error is failed, a refusal and a missing GPU are
 * skipped; the stopping rule says why it stopped; every finished record is on disk at once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/context.h"
#include "cuda/base/error.h"
#include "harness/json.h"
#include "harness/record.h"

typedef struct toy_state {
    int answer, fail_run;
} toy_state;

static int toy_setup_with(void **state, int answer, int fail_run)
{
    toy_state *s = malloc(sizeof *s);
    s->answer = answer;
    s->fail_run = fail_run;
    *state = s;
    return 0;
}
static int setup_right(sb_env *e, const void *m, void **s)
{
    (void)e, (void)m;
    return toy_setup_with(s, 42, 0);
}
static int setup_wrong(sb_env *e, const void *m, void **s)
{
    (void)e, (void)m;
    return toy_setup_with(s, 41, 0);
}
static int setup_broken(sb_env *e, const void *m, void **s)
{
    (void)e, (void)m;
    return toy_setup_with(s, 42, 1);
}
static int setup_refused(sb_env *e, const void *m, void **s)
{
    (void)e; (void)m; (void)s;
    sb_fail("needs 9 TiB of device memory for the universe, device 0 has 80 GiB");
    return SB_REFUSED;
}
static int toy_run(void *state)
{
    volatile double x = 0;
    for (int i = 0; i < 20000; i++)
        x += i;
    return ((toy_state *)state)->fail_run ? sb_fail("boom: the variant's own error") : 0;
}
static int toy_output(void *state, void *out)
{
    *(int *)out = ((toy_state *)state)->answer;
    return 0;
}
static void toy_teardown(void *state) { free(state); }

static const sb_variant_ops right = {setup_right, toy_run, toy_output, toy_teardown, NULL};
static const sb_variant_ops wrong = {setup_wrong, toy_run, toy_output, toy_teardown, NULL};
static const sb_variant_ops broken = {setup_broken, toy_run, toy_output, toy_teardown, NULL};
static const sb_variant_ops refused = {setup_refused, toy_run, toy_output, toy_teardown, NULL};
static const sb_variant variants[] = {
    {"reference", 0, "the oracle", "here", 0, &right, 0},
    {"right", 1, "same answer", "here", 0, &right, 0},
    {"wrong", 2, "off by one", "here", 0, &wrong, 0},
    {"broken", 3, "fails", "here", 0, &broken, 0},
    {"refused", 4, "does not fit", "here", 0, &refused, 0},
    {"needs-gpu", 5, "GPU only", "here", SB_NEEDS_GPU, &right, 0},
    {"needs-cdp", 6, "dynamic parallelism", "here", SB_NEEDS_CDP, &right, 0},
};
static const sb_param_decl params[] = {{"size", SB_PARAM_INT, "3", 1, 10, NULL, "size"}};
static void *out_new(const void *m) { (void)m; return calloc(1, sizeof(int)); }
static void out_poison(void *o) { *(int *)o = -1; }
static int out_equal(const void *m, const void *a, const void *b, char *why, size_t cap)
{
    (void)m;
    snprintf(why, cap, "answer %d, not %d", *(const int *)b, *(const int *)a);
    return *(const int *)a == *(const int *)b;
}
static void figures(const void *m, const void *o, sb_figures *f) { (void)m; (void)o; f->items = 1; }
static const sb_workload toy = {
    .name = "toy", .summary = "test", .item_unit = "answers", .params = params, .nparams = 1,
    .variants = variants, .nvariants = 7, .reference = "reference", .output_new = out_new,
    .output_poison = out_poison, .output_free = free, .output_equal = out_equal,
    .figures = figures};

static sb_params toy_params;

static sb_result measure(const char *name, const sb_measure_options *opt, const void *ref)
{
    sb_result res;
    int out = 0;
    assert_int_equal(sb_measure(&toy, sb_find_variant(&toy, name), NULL, &toy_params, NULL, 0,
                                NULL, ref, &out, opt, &res),
                     0);
    return res;
}

static void statuses_and_stopping(void **unused)
{
    (void)unused;
    sb_params_init(&toy_params, params, 1);
    sb_measure_options opt;
    sb_measure_defaults(&opt);
    opt.min_samples = 5;
    opt.min_time = 0;
    opt.max_noise = 1.0; /* any noise will do: stops on noise after 5 samples */
    int reference = 42;
    sb_result r = measure("right", &opt, &reference);
    assert_int_equal(r.status, SB_VALID);
    assert_string_equal(r.validation, "passed");
    assert_string_equal(r.stop_reason, "noise");
    assert_int_equal(r.nsamples, 5);
    assert_true(r.time.median > 0);
    sb_result_free(&r);

    opt.max_noise = 0;   /* never low enough */
    opt.timeout = 0.05;
    r = measure("right", &opt, &reference);
    assert_string_equal(r.stop_reason, "timeout");
    sb_result_free(&r);

    r = measure("wrong", &opt, &reference);
    assert_int_equal(r.status, SB_INVALID);
    assert_int_equal(r.nsamples, 0); /* never timed */
    assert_non_null(strstr(r.reason, "answer 41, not 42"));
    r = measure("broken", &opt, &reference);
    assert_int_equal(r.status, SB_FAILED);
    assert_non_null(strstr(r.reason, "boom"));
    r = measure("refused", &opt, &reference);
    assert_int_equal(r.status, SB_SKIPPED);
    assert_non_null(strstr(r.reason, "needs 9 TiB"));
    r = measure("needs-gpu", &opt, &reference);
    assert_int_equal(r.status, SB_SKIPPED);
    assert_non_null(strstr(r.reason, "GPU variant skipped"));
    /* a build without dynamic parallelism (cmake -DSB_CDP=OFF) runs what needs it, the host
     * launching in the device's place */
    r = measure("needs-cdp", &opt, &reference);
    assert_int_equal(r.status, SB_VALID);
    sb_result_free(&r);
}

/* Each finished record is on disk (JSON and CSV) before the next one starts. */
static void records_are_written_as_they_finish(void **unused)
{
    (void)unused;
    char dir[] = "/tmp/test_measure_XXXXXX", path[256], csv[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/sub/run.json", dir);
    snprintf(csv, sizeof csv, "%s/sub/run.csv", dir);
    sb_params_init(&toy_params, params, 1);
    sb_measure_options opt;
    sb_measure_defaults(&opt);
    opt.min_samples = 3;
    opt.min_time = 0;
    opt.max_noise = 1;
    sb_records rec;
    assert_int_equal(sb_records_open(&rec, path, sb_context_json(0, NULL, NULL, 0, &opt), &toy), 0);
    int reference = 42;
    const char *names[] = {"right", "wrong", "broken"};
    const char *statuses[] = {"valid", "invalid", "failed"};
    for (int i = 0; i < 3; i++) {
        sb_result r = measure(names[i], &opt, &reference);
        assert_int_equal(sb_records_add(&rec, &r), 0);
        sb_result_free(&r);
        json_t *doc = sb_json_load(path);
        assert_non_null(doc);
        json_t *list = json_object_get(doc, "benchmarks");
        assert_int_equal(json_array_size(list), i + 1);
        json_t *last = json_object_get(json_array_get(list, (size_t)i), "stagebench");
        assert_string_equal(json_string_value(json_object_get(last, "status")), statuses[i]);
        json_decref(doc);
        assert_int_equal(access(csv, R_OK), 0);
    }
    sb_records_close(&rec);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* A message may quote the one before it (sb_error()) and keeps it whole. */
static void errors_may_quote_the_last_one(void **unused)
{
    (void)unused;
    sb_fail("hardware counters unavailable on device %d: %s", 0, "no backend");
    sb_fail("--metrics: cannot be read: %s", sb_error());
    const char *quoted = "--metrics: cannot be read: hardware counters unavailable on device 0: "
                         "no backend";
    assert_string_equal(sb_error(), quoted);
    sb_fail_context("run %s", sb_error());
    char want[512];
    snprintf(want, sizeof want, "run %s: %s", quoted, quoted);
    assert_string_equal(sb_error(), want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(statuses_and_stopping),
        cmocka_unit_test(records_are_written_as_they_finish),
        cmocka_unit_test(errors_may_quote_the_last_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
