/* A record's floors (stagebench.floors, docs/limits.md "Floors"): each floor as the share of the
 * time it would take alone, the bound the larger measured share names; each workload's problem
 * floor from its model's sizes; and a noisy stage's note (stagebench.noise_note). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda/base/error.h"
#include "harness/context.h"
#include "harness/json.h"
#include "harness/record.h"
#include "variants/angio/model.h"

extern const sb_workload sb_workload_rdme, sb_workload_angio, sb_workload_motility,
    sb_workload_procell;

static const sb_variant_ops no_ops = {NULL, NULL, NULL, NULL, NULL};
static const sb_variant gpu_variant = {"gpu", 1, "on the GPU", "here", SB_NEEDS_GPU, &no_ops, 1};
static const sb_param_decl decls[] = {{"size", SB_PARAM_INT, "3", 1, 10, NULL, "size"}};
static const sb_noisy_stage noisy[] = {{"gpu", "a host round trip every step"}, {NULL, NULL}};
static const sb_workload toy = {.name = "toy", .summary = "test", .item_unit = "items",
                                .params = decls, .nparams = 1, .variants = &gpu_variant,
                                .nvariants = 1, .reference = "gpu", .noisy = noisy};
static sb_params toy_params;

/* A valid GPU record of a 2 ms run (steady 1.6 ms) on a device of 1 TB/s and 1e12 warp
 * instructions a second, whose problem floor is 1 GB and whose design moves 1.6 GB. */
static void made_up(sb_result *res, double dram_bytes, double warp_instructions)
{
    memset(res, 0, sizeof *res);
    sb_params_init(&toy_params, decls, 1);
    res->workload = &toy;
    res->variant = &gpu_variant;
    res->params = &toy_params;
    snprintf(res->name, sizeof res->name, "toy/gpu");
    res->status = SB_VALID;
    res->validation = "passed";
    res->against = "gpu";
    res->stop_reason = "noise";
    res->time.median = res->wall.median = 2e-3;
    res->peak_bw = 1e12;
    res->issue_rate = 1e12;
    res->problem.bytes = 1e9;
    snprintf(res->problem.what, sizeof res->problem.what, "the made-up problem");
    res->report.bytes_moved = 1.6e9;
    res->report.steady.seconds = 1.6e-3;
    res->report.steady.bytes = 1.28e9;
    res->activity.status = "off";
    res->counters.status = "off";
    if (dram_bytes > 0) {
        static const char *const names[] = {"gpu__time_duration.sum", "dram__bytes_read.sum",
                                            "dram__bytes_write.sum", "smsp__inst_executed.sum"};
        double values[] = {2e6, dram_bytes / 2, dram_bytes / 2, warp_instructions};
        res->counters.status = "collected";
        res->counters.n = 4;
        for (int i = 0; i < 4; i++) {
            snprintf(res->counters.names[i], SB_METRIC_NAME, "%s", names[i]);
            res->counters.values[i] = values[i];
        }
    }
}

/* The record's floors object, as written to disk and read back. */
static json_t *written_floors(const sb_result *res, json_t **doc)
{
    char dir[] = "/tmp/test_floors_XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/run.json", dir);
    sb_measure_options opt;
    sb_measure_defaults(&opt);
    sb_records rec;
    assert_int_equal(sb_records_open(&rec, path, sb_context_json(0, NULL, NULL, 0, &opt), &toy), 0);
    assert_int_equal(sb_records_add(&rec, res), 0);
    sb_records_close(&rec);
    *doc = sb_json_load(path);
    assert_non_null(*doc);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    json_t *b = json_array_get(json_object_get(*doc, "benchmarks"), 0);
    json_t *floors = json_object_get(json_object_get(b, "stagebench"), "floors");
    assert_non_null(floors);
    return floors;
}

static double at(json_t *floors, const char *key)
{
    json_t *v = json_object_get(floors, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void assert_near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-9 * fabs(want)))
        fail_msg("%.12g, expected %.12g", got, want);
}

/* 1 GB at 1 TB/s is 1 ms: half of the 2 ms run, 62.5 % of the 1.6 ms step loop; the design's
 * 1.6 GB is 80 %; 1.2 GB of DRAM in the counters' 2 ms is 60 %, 1.8e9 instructions at 1e12 a
 * second 90 %: issue-bound. The design's 1.28 GB of the step loop is 80 % of it. */
static void shares_of_the_time(void **unused)
{
    (void)unused;
    sb_result res;
    made_up(&res, 1.2e9, 1.8e9);
    json_t *doc, *f = written_floors(&res, &doc);
    assert_near(at(f, "problem_bytes"), 1e9);
    assert_string_equal(json_string_value(json_object_get(f, "problem")), "the made-up problem");
    assert_near(at(f, "problem_pct"), 50);
    assert_near(at(f, "problem_steady_pct"), 62.5);
    assert_near(at(f, "design_pct"), 80);
    assert_near(at(f, "design_steady_pct"), 80);
    assert_near(at(f, "dram_pct"), 60);
    assert_near(at(f, "issue_pct"), 90);
    assert_near(at(f, "warp_instructions"), 1.8e9);
    assert_string_equal(json_string_value(json_object_get(f, "bound")), "issue");
    json_decref(doc);

    made_up(&res, 1.9e9, 0.2e9); /* DRAM 95 %, issue 10 % */
    f = written_floors(&res, &doc);
    assert_string_equal(json_string_value(json_object_get(f, "bound")), "dram");
    json_decref(doc);

    made_up(&res, 0.4e9, 0.6e9); /* 20 % and 30 %: neither floor is near the time */
    f = written_floors(&res, &doc);
    assert_string_equal(json_string_value(json_object_get(f, "bound")), "latency");
    json_decref(doc);

    made_up(&res, 1.2e9, 1.8e9); /* four GPUs: the bytes' floors at four times the peak */
    res.ndevices = 4;
    f = written_floors(&res, &doc);
    assert_near(at(f, "problem_pct"), 12.5);
    assert_near(at(f, "design_pct"), 20);
    assert_near(at(f, "dram_pct"), 60); /* the timed GPU's own counters */
    json_decref(doc);
}

/* Without counters the measured shares and the bound are null, the rest still there; a record
 * that is not valid states no shares. */
static void unmeasured_is_null(void **unused)
{
    (void)unused;
    sb_result res;
    made_up(&res, 0, 0);
    json_t *doc, *f = written_floors(&res, &doc);
    assert_near(at(f, "problem_pct"), 50);
    assert_true(json_is_null(json_object_get(f, "dram_pct")));
    assert_true(json_is_null(json_object_get(f, "issue_pct")));
    assert_true(json_is_null(json_object_get(f, "bound")));
    json_decref(doc);

    made_up(&res, 1.2e9, 1.8e9);
    res.status = SB_INVALID;
    f = written_floors(&res, &doc);
    assert_true(json_is_null(json_object_get(f, "problem_pct")));
    assert_true(json_is_null(json_object_get(f, "bound")));
    json_decref(doc);
}

/* A noisy stage's record says why above SB_QUIET_NOISE (stagebench.noise_note), not below. */
static void noise_note_above_one_percent(void **unused)
{
    (void)unused;
    sb_result res;
    made_up(&res, 0, 0);
    res.time.noise = 0.02;
    json_t *doc;
    written_floors(&res, &doc);
    json_t *sb = json_object_get(json_array_get(json_object_get(doc, "benchmarks"), 0), "stagebench");
    assert_string_equal(json_string_value(json_object_get(sb, "noise_note")),
                        "a host round trip every step");
    json_decref(doc);
    res.time.noise = 0.005;
    written_floors(&res, &doc);
    sb = json_object_get(json_array_get(json_object_get(doc, "benchmarks"), 0), "stagebench");
    assert_true(json_is_null(json_object_get(sb, "noise_note")));
    json_decref(doc);
}

/* A workload's floor for the model its parameters load. */
static sb_problem_floor floor_of(const sb_workload *w, const char *const *assignments)
{
    sb_params p;
    sb_params_init(&p, w->params, w->nparams);
    for (int i = 0; assignments[i]; i++)
        if (sb_params_assign(&p, assignments[i]) != 0)
            fail_msg("%s: %s", assignments[i], sb_error());
    void *model = NULL;
    if (w->load(&p, &model) != 0)
        fail_msg("%s: %s", w->name, sb_error());
    sb_problem_floor f = {0};
    assert_non_null(w->problem_floor);
    w->problem_floor(model, &f);
    w->free_model(model);
    printf("%s: %.6g bytes: %s\n", w->name, f.bytes, f.what);
    return f;
}

/* RDME: 8 B a site a step (packed32), 33 B in byte16 (two 16-byte sites and the type byte);
 * E. coli (1 x 1 x 2 um) at 16 nm is 63 x 63 x 125 sites. */
static void rdme_one_pass_a_step(void **unused)
{
    (void)unused;
    const char *packed[] = {"steps=3", NULL};
    sb_problem_floor f = floor_of(&sb_workload_rdme, packed);
    assert_near(f.bytes, 8.0 * 63 * 63 * 125 * 3);
    assert_non_null(strstr(f.what, "8 B a site"));
    const char *byte16[] = {"steps=2", "site_format=byte16", NULL};
    f = floor_of(&sb_workload_rdme, byte16);
    assert_near(f.bytes, 33.0 * 63 * 63 * 125 * 2);
}

/* Angio: a cell's lasting state (everything before this step's force) in and out a step. */
static void angio_cells_a_step(void **unused)
{
    (void)unused;
    const char *a[] = {"cells=4096", "steps=5", NULL};
    sb_problem_floor f = floor_of(&sb_workload_angio, a);
    assert_near(f.bytes, 5.0 * 4096 * 2 * offsetof(ag_cell, f));
}

/* Motility and ProCell state one; ProCell's is the two histograms, bytes to kilobytes. */
static void the_others_state_one(void **unused)
{
    (void)unused;
    const char *m[] = {"outer=16", "steps=2", NULL};
    sb_problem_floor f = floor_of(&sb_workload_motility, m);
    assert_true(f.bytes > 2.0 * 4 * 2 * 16 * 16 * 16); /* more than Psi alone */
    /* a histogram of two rows: 16 B each read, and one 8-byte bin written per value reached */
    char path[] = "/tmp/test_floors_XXXXXX", histogram[64];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *h = fdopen(fd, "w");
    fprintf(h, "10 5\n40 3\n");
    fclose(h);
    snprintf(histogram, sizeof histogram, "histogram=%s", path);
    const char *p[] = {histogram, "t_max=240", NULL};
    f = floor_of(&sb_workload_procell, p);
    unlink(path);
    assert_true(f.bytes >= 2 * 16 + 8 && f.bytes < 1e3);
    assert_non_null(strstr(f.what, "(2 rows)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shares_of_the_time),
        cmocka_unit_test(unmeasured_is_null),
        cmocka_unit_test(noise_note_above_one_percent),
        cmocka_unit_test(rdme_one_pass_a_step),
        cmocka_unit_test(angio_cells_a_step),
        cmocka_unit_test(the_others_state_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
