#include "compare.h"

#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "error.h"
#include "json.h"
#include "stats.h"

/* One benchmark of a records file: the samples of every entry that has its name (Google Benchmark
 * writes one entry per repetition; stagebench one entry holding every sample). */
typedef struct bench {
    const char *name;   /* borrowed from the loaded document */
    const char *status; /* "valid", or the first other status among its entries */
    double *samples;    /* seconds; only from valid entries */
    int n, cap;
    int matched;        /* the other file has a benchmark of this name */
} bench;

typedef struct records {
    const char *path;
    json_t *doc;
    bench *benches; /* in the file's order */
    int n, cap;
} records;

static bench *find_bench(const records *r, const char *name)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->benches[i].name, name) == 0)
            return &r->benches[i];
    return NULL;
}

static bench *find_or_add_bench(records *r, const char *name)
{
    bench *b = find_bench(r, name);
    if (b)
        return b;
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 16;
        bench *grown = realloc(r->benches, (size_t)cap * sizeof *grown);
        if (!grown) {
            sb_fail("%s: out of memory for %d benchmarks", r->path, cap);
            return NULL;
        }
        r->benches = grown;
        r->cap = cap;
    }
    b = &r->benches[r->n++];
    *b = (bench){.name = name, .status = "valid"};
    return b;
}

static int add_sample(const records *r, bench *b, double seconds)
{
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 64;
        double *grown = realloc(b->samples, (size_t)cap * sizeof *grown);
        if (!grown)
            return sb_fail("%s: out of memory for %d samples of %s", r->path, cap, b->name);
        b->samples = grown;
        b->cap = cap;
    }
    b->samples[b->n++] = seconds;
    return 0;
}

/* Seconds per Google Benchmark time unit; 0 for a unit it does not write. */
static double unit_seconds(const char *unit)
{
    static const struct {
        const char *name;
        double seconds;
    } units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i].name) == 0)
            return units[i].seconds;
    return 0;
}

/* Adds one entry of the "benchmarks" array: its stagebench samples when it has them, otherwise
 * its real_time as one sample. */
static int read_entry(records *r, size_t index, json_t *entry)
{
    const char *name = json_string_value(json_object_get(entry, "name"));
    if (!name)
        return sb_fail("%s: benchmarks[%zu] has no \"name\" string; compare records written by "
                       "stagebench run or Google Benchmark (--benchmark_format=json)",
                       r->path, index);
    /* Google Benchmark's aggregates (name_mean, name_stddev, ...) summarize iterations that are
     * in the file too; older versions write no run_type at all. */
    const char *run_type = json_string_value(json_object_get(entry, "run_type"));
    if (run_type && strcmp(run_type, "iteration") != 0)
        return 0;

    bench *b = find_or_add_bench(r, name);
    if (!b)
        return -1;
    json_t *stagebench = json_object_get(entry, "stagebench");
    const char *status = json_string_value(json_object_get(stagebench, "status"));
    if (!status)
        status = json_is_true(json_object_get(entry, "error_occurred")) ? "error" : "valid";
    if (strcmp(status, "valid") != 0) {
        if (strcmp(b->status, "valid") == 0)
            b->status = status;
        return 0;
    }

    json_t *samples = json_object_get(json_object_get(stagebench, "time"), "samples");
    if (json_is_array(samples)) {
        size_t i;
        json_t *sample;
        json_array_foreach(samples, i, sample) {
            if (!json_is_number(sample))
                return sb_fail("%s: %s: stagebench.time.samples[%zu] is not a number; "
                               "regenerate the file with stagebench run", r->path, name, i);
            if (add_sample(r, b, json_number_value(sample)) != 0)
                return -1;
        }
        return 0;
    }

    json_t *real_time = json_object_get(entry, "real_time");
    if (!json_is_number(real_time))
        return sb_fail("%s: %s has neither stagebench.time.samples nor a numeric real_time; "
                       "regenerate the file with stagebench run", r->path, name);
    /* Google Benchmark leaves time_unit out when it is its default, nanoseconds. */
    const char *unit = json_string_value(json_object_get(entry, "time_unit"));
    double scale = unit_seconds(unit ? unit : "ns");
    if (scale == 0)
        return sb_fail("%s: %s: unknown time_unit \"%s\" (expected ns, us, ms or s)", r->path,
                       name, unit);
    return add_sample(r, b, json_number_value(real_time) * scale);
}

static void free_records(records *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->benches[i].samples);
    free(r->benches);
    json_decref(r->doc);
}

static int load_records(records *r, const char *path)
{
    *r = (records){.path = path};
    r->doc = sb_json_load(path);
    if (!r->doc)
        return -1;
    json_t *benchmarks = json_object_get(r->doc, "benchmarks");
    if (!json_is_array(benchmarks))
        return sb_fail("%s: not a stagebench/Google Benchmark records file (no \"benchmarks\" "
                       "array)", path);
    size_t i;
    json_t *entry;
    json_array_foreach(benchmarks, i, entry)
        if (read_entry(r, i, entry) != 0)
            return -1;
    return 0;
}

/* "12.35 ms": the unit that puts the value in [1, 1000), four or five significant digits. */
static void format_time(double seconds, char *out, size_t cap)
{
    static const struct {
        const char *name;
        double seconds;
    } units[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
    size_t u = 0;
    while (u + 1 < sizeof units / sizeof units[0] && seconds < units[u].seconds)
        u++;
    double v = seconds / units[u].seconds;
    snprintf(out, cap, v < 10 ? "%.3f %s" : v < 100 ? "%.2f %s" : "%.1f %s", v, units[u].name);
}

static int is_valid(const bench *b)
{
    return strcmp(b->status, "valid") == 0;
}

int sb_compare_files(const char *base_path, const char *new_path, const sb_compare_options *opt,
                     FILE *out)
{
    records base, newer = {0};
    int rc = -1;
    if (load_records(&base, base_path) != 0 || load_records(&newer, new_path) != 0)
        goto done;

    int name_width = (int)strlen("benchmark");
    for (int i = 0; i < base.n; i++) {
        bench *was = &base.benches[i], *now = find_bench(&newer, was->name);
        if (!now)
            continue;
        was->matched = now->matched = 1;
        if ((int)strlen(was->name) > name_width)
            name_width = (int)strlen(was->name);
    }

    int slower = 0, faster = 0, same = 0, now_invalid = 0, not_comparable = 0;
    int missing = 0, added = 0;
    fprintf(out, "%-*s  %10s  %10s  %8s  %9s  %s\n", name_width, "benchmark", "base", "new",
            "ratio", "p", "verdict");
    for (int i = 0; i < base.n; i++) {
        bench *was = &base.benches[i];
        if (!was->matched)
            continue;
        bench *now = find_bench(&newer, was->name);
        sb_stats base_stats, new_stats;
        sb_stats_compute(was->samples, was->n, &base_stats);
        sb_stats_compute(now->samples, now->n, &new_stats);
        char base_text[32] = "-", new_text[32] = "-", ratio_text[32] = "-", p_text[32] = "-";
        if (was->n > 0)
            format_time(base_stats.median, base_text, sizeof base_text);
        if (now->n > 0)
            format_time(new_stats.median, new_text, sizeof new_text);

        const char *verdict;
        if (!is_valid(was)) {
            verdict = "not-comparable";
            not_comparable++;
        } else if (!is_valid(now)) {
            verdict = "NOW-INVALID";
            now_invalid++;
        } else {
            sb_utest test;
            if (sb_mann_whitney(was->samples, was->n, now->samples, now->n, &test) != 0)
                goto done;
            double ratio = new_stats.median / base_stats.median;
            snprintf(ratio_text, sizeof ratio_text, "%.3fx", ratio);
            snprintf(p_text, sizeof p_text, "%.3g", test.p);
            /* A change counts only when it is both large (threshold) and unlikely to be noise
             * (alpha): with few samples even a large ratio is "same". */
            if (ratio > 1 + opt->threshold && test.p < opt->alpha) {
                verdict = "SLOWER";
                slower++;
            } else if (ratio < 1 - opt->threshold && test.p < opt->alpha) {
                verdict = "faster";
                faster++;
            } else {
                verdict = "same";
                same++;
            }
        }
        fprintf(out, "%-*s  %10s  %10s  %8s  %9s  %s\n", name_width, was->name, base_text,
                new_text, ratio_text, p_text, verdict);
    }

    for (int i = 0; i < base.n; i++) {
        if (!base.benches[i].matched) {
            fprintf(out, "missing: %s\n", base.benches[i].name);
            missing++;
        }
    }
    for (int i = 0; i < newer.n; i++) {
        if (!newer.benches[i].matched) {
            fprintf(out, "new: %s\n", newer.benches[i].name);
            added++;
        }
    }
    fprintf(out, "%d slower, %d faster, %d same, %d now-invalid, %d not-comparable, %d new, "
            "%d missing\n", slower, faster, same, now_invalid, not_comparable, added, missing);
    rc = slower > 0 || now_invalid > 0;

done:
    free_records(&newer);
    free_records(&base);
    return rc;
}
