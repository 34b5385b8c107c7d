#include "compare.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <jansson.h>

#include "../cuda/base/error.h"
#include "json.h"
#include "stats.h"

/* One benchmark of a records file: the samples of every entry that has its name (Google Benchmark
 * writes one entry per repetition; stagebench one entry holding every sample, and with
 * --repetitions one entry per repetition), and each entry's own median: one per repetition. */
typedef struct bench {
    const char *name;   /* borrowed from the loaded document */
    const char *status; /* "valid", or the first other status among its entries */
    double *samples;    /* seconds; only from valid entries */
    int n, cap;
    double *reps; /* each valid entry's median, seconds */
    int nreps, repcap;
    int matched;          /* the other side has a benchmark of this name */
    const json_t *device; /* its GPU's object in the context's devices, NULL for CPU variants */
} bench;

/* One side of a comparison: a records file, or every records file of a directory. */
typedef struct records {
    const char *path;
    json_t **docs;
    int ndocs;
    bench *benches; /* in the files' order */
    int n, cap;
    int processes; /* some file's repetitions ran in separate processes */
    const char *device, *uuid, *commit; /* the first file's first GPU (name, UUID) and commit */
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

static int push(double **list, int *n, int *cap, double x, const char *path, const char *name)
{
    if (*n == *cap) {
        int grown_cap = *cap ? 2 * *cap : 64;
        double *grown = realloc(*list, (size_t)grown_cap * sizeof *grown);
        if (!grown)
            return sb_fail("%s: out of memory for %d values of %s", path, grown_cap, name);
        *list = grown;
        *cap = grown_cap;
    }
    (*list)[(*n)++] = x;
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

static double median_of(const double *x, int n)
{
    sb_stats s;
    sb_stats_compute(x, n, &s);
    return s.median;
}

/* Adds one entry of the "benchmarks" array: its stagebench samples when it has them, otherwise
 * its real_time as one sample; and its median as one repetition's. */
static int read_entry(records *r, const char *path, size_t index, json_t *entry,
                      const json_t *devices)
{
    const char *name = json_string_value(json_object_get(entry, "name"));
    if (!name)
        return sb_fail("%s: benchmarks[%zu] has no \"name\" string; compare records written by "
                       "stagebench run or Google Benchmark (--benchmark_format=json)",
                       path, index);
    /* Google Benchmark's aggregates (name_mean, name_stddev, ...) summarize iterations that are
     * in the file too; older versions write no run_type at all. */
    const char *run_type = json_string_value(json_object_get(entry, "run_type"));
    if (run_type && strcmp(run_type, "iteration") != 0)
        return 0;

    bench *b = find_or_add_bench(r, name);
    if (!b)
        return -1;
    json_t *stagebench = json_object_get(entry, "stagebench");
    json_t *device = json_object_get(stagebench, "device");
    if (!b->device && json_is_integer(device))
        b->device = json_array_get(devices, (size_t)json_integer_value(device));
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
        int first = b->n;
        json_array_foreach(samples, i, sample) {
            if (!json_is_number(sample))
                return sb_fail("%s: %s: stagebench.time.samples[%zu] is not a number; "
                               "regenerate the file with stagebench run", path, name, i);
            if (push(&b->samples, &b->n, &b->cap, json_number_value(sample), path, name) != 0)
                return -1;
        }
        if (b->n == first)
            return 0;
        return push(&b->reps, &b->nreps, &b->repcap, median_of(b->samples + first, b->n - first),
                    path, name);
    }

    json_t *real_time = json_object_get(entry, "real_time");
    if (!json_is_number(real_time))
        return sb_fail("%s: %s has neither stagebench.time.samples nor a numeric real_time; "
                       "regenerate the file with stagebench run", path, name);
    /* Google Benchmark leaves time_unit out when it is its default, nanoseconds. */
    const char *unit = json_string_value(json_object_get(entry, "time_unit"));
    double scale = unit_seconds(unit ? unit : "ns");
    if (scale == 0)
        return sb_fail("%s: %s: unknown time_unit \"%s\" (expected ns, us, ms or s)", path,
                       name, unit);
    double seconds = json_number_value(real_time) * scale;
    if (push(&b->samples, &b->n, &b->cap, seconds, path, name) != 0)
        return -1;
    return push(&b->reps, &b->nreps, &b->repcap, seconds, path, name);
}

static void free_records(records *r)
{
    for (int i = 0; i < r->n; i++) {
        free(r->benches[i].samples);
        free(r->benches[i].reps);
    }
    free(r->benches);
    for (int i = 0; i < r->ndocs; i++)
        json_decref(r->docs[i]);
    free(r->docs);
    memset(r, 0, sizeof *r);
}

static int is_calibration(const json_t *doc)
{
    return json_object_get(doc, "stagebench_calibration") != NULL;
}

static int load_file(records *r, const char *path, int in_directory)
{
    json_t *doc = sb_json_load(path);
    if (!doc)
        return -1;
    if (in_directory && is_calibration(doc)) { /* a baseline's folder may keep its calibration */
        json_decref(doc);
        return 0;
    }
    json_t **docs = realloc(r->docs, (size_t)(r->ndocs + 1) * sizeof *docs);
    if (!docs) {
        json_decref(doc);
        return sb_fail("%s: out of host memory", path);
    }
    r->docs = docs;
    r->docs[r->ndocs++] = doc;
    json_t *benchmarks = json_object_get(doc, "benchmarks");
    if (!json_is_array(benchmarks))
        return sb_fail("%s: not a stagebench/Google Benchmark records file (no \"benchmarks\" "
                       "array)", path);
    json_t *sb = json_object_get(json_object_get(doc, "context"), "stagebench");
    r->processes |= json_object_get(sb, "repetitions") != NULL;
    if (!r->device) {
        json_t *first = json_array_get(json_object_get(sb, "devices"), 0);
        r->device = json_string_value(json_object_get(first, "name"));
        r->uuid = json_string_value(json_object_get(first, "uuid"));
    }
    if (!r->commit)
        r->commit = json_string_value(json_object_get(sb, "git_commit"));
    size_t i;
    json_t *entry;
    json_array_foreach(benchmarks, i, entry)
        if (read_entry(r, path, i, entry, json_object_get(sb, "devices")) != 0)
            return -1;
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "x.rep3.json": a repetition's own file, merged into x.json by its run (one left behind is a
 * run cut off before its merge). */
static int is_repetition_file(const char *name)
{
    const char *rep = strstr(name, ".rep");
    if (!rep)
        return 0;
    rep += 4;
    if (*rep < '0' || *rep > '9')
        return 0;
    while (*rep >= '0' && *rep <= '9')
        rep++;
    return strcmp(rep, ".json") == 0;
}

/* A records file, or every *.json and *.json.xz of a directory in name order (repetitions' own
 * files left out). */
static int load_records(records *r, const char *path)
{
    *r = (records){.path = path};
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return load_file(r, path, 0);
    DIR *d = opendir(path);
    if (!d)
        return sb_fail("%s: cannot list the directory", path);
    char **names = NULL;
    int n = 0, rc = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!sb_is_json_name(e->d_name) || e->d_name[0] == '.' || is_repetition_file(e->d_name))
            continue;
        char **grown = realloc(names, (size_t)(n + 1) * sizeof *names);
        if (!grown || !(grown[n] = strdup(e->d_name))) {
            names = grown ? grown : names;
            rc = sb_fail("%s: out of host memory", path);
            break;
        }
        names = grown;
        n++;
    }
    closedir(d);
    if (names)
        qsort(names, (size_t)n, sizeof *names, compare_names);
    for (int i = 0; i < n && rc == 0; i++) {
        char file[4096];
        snprintf(file, sizeof file, "%s/%s", path, names[i]);
        rc = load_file(r, file, 1);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (rc == 0 && r->ndocs == 0)
        return sb_fail("%s: a directory without records files (*.json, *.json.xz)", path);
    return rc;
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

static void format_percent(double x, char *out, size_t cap)
{
    if (!isfinite(x))
        snprintf(out, cap, "inf");
    else
        snprintf(out, cap, x < 0.1 ? "%.1f%%" : "%.0f%%", 100 * x);
}

static const char *text_or_empty(const char *text)
{
    return text ? text : "";
}

static int is_valid(const bench *b)
{
    return strcmp(b->status, "valid") == 0;
}

/* Calibration */

int sb_calibration_load(sb_calibration *c, const char *path)
{
    memset(c, 0, sizeof *c);
    json_t *doc = sb_json_load(path);
    if (!doc)
        return -1;
    json_t *list = json_object_get(doc, "benchmarks");
    if (json_integer_value(json_object_get(doc, "stagebench_calibration")) != 1 ||
        !json_is_array(list)) {
        json_decref(doc);
        return sb_fail("%s: not a calibration file (make one with stagebench calibrate)", path);
    }
    snprintf(c->device, sizeof c->device, "%s",
             text_or_empty(json_string_value(json_object_get(doc, "device"))));
    c->benches = calloc(json_array_size(list) + 1, sizeof *c->benches);
    if (!c->benches) {
        json_decref(doc);
        return sb_fail("%s: out of host memory", path);
    }
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e) {
        const char *name = json_string_value(json_object_get(e, "name"));
        json_t *spread = json_object_get(e, "spread");
        json_int_t reps = json_integer_value(json_object_get(e, "repetitions"));
        if (!name || !json_is_number(spread) || json_number_value(spread) < 0 || reps < 2) {
            json_decref(doc);
            sb_calibration_free(c);
            return sb_fail("%s: benchmarks[%zu] needs a name, a spread >= 0 and repetitions >= 2 "
                           "(make the file with stagebench calibrate)", path, i);
        }
        sb_calibrated *b = &c->benches[c->n++];
        snprintf(b->name, sizeof b->name, "%s", name);
        b->spread = json_number_value(spread);
        b->repetitions = (int)reps;
        /* A calibration without the split (one session) knows the spread within alone. */
        json_t *within = json_object_get(e, "within");
        b->within = json_is_number(within) ? json_number_value(within) : b->spread;
        b->within_df = json_is_number(within)
                           ? (int)json_integer_value(json_object_get(e, "within_df"))
                           : b->repetitions - 1;
        b->between = json_number_value(json_object_get(e, "between"));
        b->between_df = (int)json_integer_value(json_object_get(e, "between_df"));
    }
    json_decref(doc);
    return 0;
}

void sb_calibration_free(sb_calibration *c)
{
    free(c->benches);
    memset(c, 0, sizeof *c);
}

static const sb_calibrated *find_calibrated(const sb_calibration *c, const char *name)
{
    for (int i = 0; c && i < c->n; i++)
        if (strcmp(c->benches[i].name, name) == 0)
            return &c->benches[i];
    return NULL;
}

static double calibrated_threshold(double spread, double floor)
{
    /* On the ratio scale: K times one repetition's spread of the log median. */
    double t = expm1(SB_CALIBRATION_K * spread);
    return t > floor ? t : floor;
}

/* The comparison */

enum test { TEST_NONE, TEST_WELCH, TEST_CALIBRATED, TEST_U };
static const char *const test_names[] = {"-", "welch", "t-cal", "U-samples"};

typedef struct row {
    const bench *was, *now;
    enum test test;
    double base_median, new_median, ratio, threshold;
    double p, p_adjusted;
    double se, df; /* of the log ratio, for the minimum detectable effect */
    double min_p;  /* the smallest p this test can give these sizes (the exact U test) */
    const char *verdict;
    /* A device comparison's interval of the ratio (device_interval) */
    enum { FROM_NONE, FROM_REPETITIONS, FROM_SAMPLES } from;
    int has_interval; /* 0: one sample each, or too few samples for the confidence */
    double low, high;
} row;

static void log_of(const double *x, int n, double *out)
{
    for (int i = 0; i < n; i++)
        out[i] = log(x[i]);
}

/* Tests one matched benchmark; TEST_NONE when either side is not valid. */
static int test_row(row *w, const sb_compare_options *opt, const sb_calibration *cal)
{
    const bench *was = w->was, *now = w->now;
    if (!is_valid(was) || !is_valid(now) || was->n == 0 || now->n == 0)
        return 0;
    const sb_calibrated *c = find_calibrated(cal, was->name);
    double floor = opt->floor > 0 ? opt->floor : SB_COMPARE_FLOOR;
    w->threshold = c ? calibrated_threshold(c->spread, floor) : opt->threshold;
    if (was->nreps >= 2 && now->nreps >= 2) {
        double *a = malloc((size_t)(was->nreps + now->nreps) * sizeof *a);
        if (!a)
            return sb_fail("out of host memory");
        double *b = a + was->nreps;
        log_of(was->reps, was->nreps, a);
        log_of(now->reps, now->nreps, b);
        sb_ttest t;
        sb_spread_prior prior = {0};
        if (c)
            prior = (sb_spread_prior){c->within, c->within_df, c->between, c->between_df};
        int rc = sb_t_test(a, was->nreps, b, now->nreps, c ? &prior : NULL, &t);
        free(a);
        if (rc != 0)
            return -1;
        w->test = c ? TEST_CALIBRATED : TEST_WELCH;
        w->base_median = median_of(was->reps, was->nreps);
        w->new_median = median_of(now->reps, now->nreps);
        w->p = t.p;
        w->se = t.se;
        w->df = t.df;
        w->min_p = 0;
    } else {
        sb_utest u;
        if (sb_mann_whitney(was->samples, was->n, now->samples, now->n, &u) != 0)
            return -1;
        sb_stats sa, sn;
        sb_stats_compute(was->samples, was->n, &sa);
        sb_stats_compute(now->samples, now->n, &sn);
        w->test = TEST_U;
        w->base_median = sa.median;
        w->new_median = sn.median;
        w->p = u.p;
        /* The U test's efficiency against the t test under normal noise is 3/pi: it needs
         * pi/3 times the samples, so its detectable shift is sqrt(pi/3) times the t test's. */
        double noise = sqrt((sa.noise * sa.noise + sn.noise * sn.noise) / 2);
        w->se = noise * sqrt(1.0 / was->n + 1.0 / now->n) * sqrt(3.14159265358979323846 / 3);
        w->df = 1e9;
        w->min_p = u.exact ? sb_mann_whitney_min_p(was->n, now->n) : 0;
    }
    w->ratio = w->new_median / w->base_median;
    return 0;
}

/* The smallest true slow-down caught with 80 % power: the log ratio must clear both the test
 * at alpha (the level each benchmark gets, Bonferroni's alpha / m being Holm's worst case) and
 * the threshold. */
static double detectable_effect(const row *w, double alpha_each)
{
    if (w->min_p > alpha_each)
        return INFINITY; /* even complete separation is not significant at these sizes */
    double power = sb_t_quantile(0.2, w->df);
    double by_test = (sb_t_quantile(alpha_each / 2, w->df) + power) * w->se;
    double by_threshold = log1p(w->threshold) + power * w->se;
    return expm1(by_test > by_threshold ? by_test : by_threshold);
}

/* What a GPU's records say of its throughput: measured DRAM bandwidth, SM count x clock, and
 * that over the FP32:FP64 ratio (FP64 throughput). 0 where the context lacks the field. */
typedef struct device_rates {
    double dram, sm_clock, fp64;
} device_rates;

static device_rates rates_of(const json_t *d)
{
    double sms = json_number_value(json_object_get(d, "sm_count"));
    double mhz = json_number_value(json_object_get(d, "sm_clock_max_mhz"));
    double fp64 = json_number_value(json_object_get(d, "single_to_double_perf_ratio"));
    return (device_rates){json_number_value(json_object_get(d, "peak_dram_bytes_per_second")),
                          sms * mhz, fp64 > 0 ? sms * mhz / fp64 : 0};
}

/* A device comparison's interval of a tested row's ratio at `confidence`: from the
 * repetitions' medians when both sides have 2 or more (Welch's t on their logs), else from the
 * samples of one process each (the Mann-Whitney interval of the shift in log time); none with
 * one sample each, or too few samples for the confidence. */
static int device_interval(row *w, double confidence)
{
    const bench *was = w->was, *now = w->now;
    int reps = was->nreps >= 2 && now->nreps >= 2;
    const double *x = reps ? was->reps : was->samples, *y = reps ? now->reps : now->samples;
    int nx = reps ? was->nreps : was->n, ny = reps ? now->nreps : now->n;
    w->from = reps ? FROM_REPETITIONS : FROM_SAMPLES;
    w->has_interval = 0;
    if (nx == 1 && ny == 1)
        return 0;
    double *a = malloc((size_t)(nx + ny) * sizeof *a);
    if (!a)
        return sb_fail("out of host memory");
    double *b = a + nx;
    log_of(x, nx, a);
    log_of(y, ny, b);
    int rc = 0;
    if (reps) {
        sb_ttest t;
        rc = sb_t_test(a, nx, b, ny, NULL, &t);
        if (rc == 0) {
            double half = sb_t_quantile((1 - confidence) / 2, t.df) * t.se;
            w->low = exp(t.diff - half);
            w->high = exp(t.diff + half);
            w->has_interval = 1;
        }
    } else {
        rc = sb_shift_interval(a, nx, b, ny, confidence, &w->low, &w->high);
        if (rc == 0) {
            w->low = exp(w->low);
            w->high = exp(w->high);
            w->has_interval = 1;
        }
        rc = rc < 0 ? -1 : 0; /* 1: too few samples, no interval */
    }
    free(a);
    return rc;
}

/* "5036940" of a commit ("5036940+dirty" of a tree with changes), "GPU-9eb79ae8" of a UUID:
 * enough to tell two apart. */
static void short_id(const char *id, int keep, char *out, size_t cap)
{
    snprintf(out, cap, "%.*s%s", keep, id ? id : "?", id && strstr(id, "+dirty") ? "+dirty" : "");
}

/* What a device comparison's rows came to: where their intervals came from, and which ran on a
 * GPU. */
typedef struct device_tally {
    int from_reps, from_samples, one_sample, too_few, invalid, gpu, cpu;
} device_tally;

/* Base and new on different GPUs (the records' contexts name two devices): no regression
 * verdict, as the ratio is the devices' difference (and any change of code between the records'
 * builds). Per benchmark: the medians, their ratio (new / base) with its interval and where the
 * interval comes from; for GPU benchmarks, the ratio each bound predicts (a stage bound by DRAM
 * takes the inverse ratio of the measured bandwidths; by instruction issue, of SM count x
 * clock; by FP64 arithmetic, of that over the FP32:FP64 ratio) and the bound whose prediction
 * is nearest (in log ratio). */

static int print_device_comparison(FILE *out, row *rows, int nrows, int width,
                                   const records *base, const records *newer,
                                   const sb_compare_options *opt, device_tally *n)
{
    static const char *const bounds[] = {"dram", "sm x clock", "fp64"};
    int markdown = opt->markdown;
    double confidence = 1 - opt->alpha;
    char base_uuid[32], new_uuid[32], base_commit[32], new_commit[32], level[32];
    short_id(base->uuid, 12, base_uuid, sizeof base_uuid);
    short_id(newer->uuid, 12, new_uuid, sizeof new_uuid);
    short_id(base->commit, 7, base_commit, sizeof base_commit);
    short_id(newer->commit, 7, new_commit, sizeof new_commit);
    snprintf(level, sizeof level, "%g %% interval", 100 * confidence);

    fprintf(out, "%sdevice comparison%s: base ran on %s (%s), new on %s (%s); time ratio new / "
            "base per benchmark, no regression verdict\n",
            markdown ? "**" : "", markdown ? "**" : "", base->device, base_uuid, newer->device,
            new_uuid);
    if (base->commit && newer->commit && strcmp(base->commit, newer->commit) != 0)
        fprintf(out, "%sbuilt at two commits (base %s, new %s): each ratio mixes the devices' "
                "difference with the code's change\n", markdown ? "\n" : "", base_commit,
                new_commit);
    else if (base->commit && newer->commit)
        fprintf(out, "%sboth built at commit %s: the ratios are the devices' difference\n",
                markdown ? "\n" : "", base_commit);
    if (markdown)
        fprintf(out, "\n| benchmark | base | new | ratio | %s | from | dram | "
                "sm x clock | fp64 | follows |\n|---|---:|---:|---:|---:|---|---:|---:|---:|---|\n",
                level);
    else
        fprintf(out, "\n%-*s  %10s  %10s  %8s  %15s  %-15s  %8s  %10s  %8s  %s\n", width,
                "benchmark", "base", "new", "ratio", level, "from", "dram", "sm x clock", "fp64",
                "follows");
    for (int i = 0; i < nrows; i++) {
        row *w = &rows[i];
        char base_text[32] = "-", new_text[32] = "-", ratio[32] = "-", interval[48] = "-";
        char from[48] = "-", text[3][32] = {"-", "-", "-"}, follows[64] = "-";
        if (!is_valid(w->was) || !is_valid(w->now) || w->test == TEST_NONE) {
            if (!is_valid(w->was) || !is_valid(w->now))
                snprintf(from, sizeof from, "%s: %s", !is_valid(w->was) ? "base" : "new",
                         !is_valid(w->was) ? w->was->status : w->now->status);
            else
                snprintf(from, sizeof from, "no time recorded");
            n->invalid++;
        } else {
            if (device_interval(w, confidence) != 0)
                return -1;
            format_time(w->base_median, base_text, sizeof base_text);
            format_time(w->new_median, new_text, sizeof new_text);
            snprintf(ratio, sizeof ratio, "%.3fx", w->ratio);
            int nx = w->from == FROM_REPETITIONS ? w->was->nreps : w->was->n;
            int ny = w->from == FROM_REPETITIONS ? w->now->nreps : w->now->n;
            snprintf(from, sizeof from, "%s %d+%d",
                     w->from == FROM_REPETITIONS ? "repetitions" : "samples", nx, ny);
            if (w->has_interval) {
                snprintf(interval, sizeof interval, "%.3f-%.3fx", w->low, w->high);
                if (w->from == FROM_REPETITIONS)
                    n->from_reps++;
                else
                    n->from_samples++;
            } else if (nx == 1 && ny == 1) {
                snprintf(interval, sizeof interval, "one sample each");
                n->one_sample++;
            } else {
                snprintf(interval, sizeof interval, "too few samples");
                n->too_few++;
            }
            if (w->was->device && w->now->device) {
                n->gpu++;
                device_rates a = rates_of(w->was->device), b = rates_of(w->now->device);
                double predicted[3] = {
                    a.dram > 0 && b.dram > 0 ? a.dram / b.dram : NAN,
                    a.sm_clock > 0 && b.sm_clock > 0 ? a.sm_clock / b.sm_clock : NAN,
                    a.fp64 > 0 && b.fp64 > 0 ? a.fp64 / b.fp64 : NAN};
                int nearest = -1;
                for (int k = 0; k < 3; k++)
                    if (isfinite(predicted[k]) &&
                        (nearest < 0 || fabs(log(w->ratio / predicted[k])) <
                                            fabs(log(w->ratio / predicted[nearest]))))
                        nearest = k;
                /* Bounds that predict the same ratio cannot be told apart by this pair. */
                snprintf(follows, sizeof follows, "%s", nearest >= 0 ? bounds[nearest] : "-");
                for (int k = 0; nearest >= 0 && k < 3; k++)
                    if (k != nearest && isfinite(predicted[k]) &&
                        fabs(log(predicted[k] / predicted[nearest])) < 0.01)
                        snprintf(follows + strlen(follows), sizeof follows - strlen(follows),
                                 " = %s", bounds[k]);
                for (int k = 0; k < 3; k++)
                    if (isfinite(predicted[k]))
                        snprintf(text[k], sizeof text[k], "%.3fx", predicted[k]);
            } else {
                snprintf(follows, sizeof follows, "- (CPU stage)");
                n->cpu++;
            }
        }
        if (markdown)
            fprintf(out, "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", w->was->name,
                    base_text, new_text, ratio, interval, from, text[0], text[1], text[2],
                    follows);
        else
            fprintf(out, "%-*s  %10s  %10s  %8s  %15s  %-15s  %8s  %10s  %8s  %s\n", width,
                    w->was->name, base_text, new_text, ratio, interval, from, text[0], text[1],
                    text[2], follows);
    }
    if (markdown)
        fputc('\n', out);
    return 0;
}

static void print_row(FILE *out, int markdown, int width, const char *name, const char *base,
                      const char *newer, const char *ratio, const char *threshold,
                      const char *mde, const char *test, const char *p, const char *verdict)
{
    if (markdown)
        fprintf(out, "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s%s%s |\n", name, base, newer,
                ratio, threshold, mde, test, p, strcmp(verdict, "SLOWER") &&
                strcmp(verdict, "NOW-INVALID") ? "" : "**", verdict,
                strcmp(verdict, "SLOWER") && strcmp(verdict, "NOW-INVALID") ? "" : "**");
    else
        fprintf(out, "%-*s  %10s  %10s  %8s  %6s  %6s  %-9s  %9s  %s\n", width, name, base, newer,
                ratio, threshold, mde, test, p, verdict);
}

/* What the verdicts came to: the summary line and the exit status. */
typedef struct tally {
    int slower, faster, same, now_invalid, not_comparable, missing, added;
    int untested, one_sample; /* no test that could find a change (one_sample: of those, one
                                 sample a side) */
    int used[4]; /* the tests that gave a verdict (enum test) */
} tally;

/* Each benchmark of base that new has too, tested, into rows (base's order); *width: the
 * longest name. */
static int match_rows(records *base, records *newer, const sb_compare_options *opt,
                      const sb_calibration *cal, row *rows, int *nrows, int *width)
{
    for (int i = 0; i < base->n; i++) {
        bench *was = &base->benches[i], *now = find_bench(newer, was->name);
        if (!now)
            continue;
        was->matched = now->matched = 1;
        if ((int)strlen(was->name) > *width)
            *width = (int)strlen(was->name);
        rows[*nrows] = (row){.was = was, .now = now};
        if (test_row(&rows[*nrows], opt, cal) != 0)
            return -1;
        (*nrows)++;
    }
    return 0;
}

/* Each row's verdict (adjusted: the tested rows' p-values, in order) and its line of the
 * table. */
static void judge_rows(FILE *out, row *rows, int nrows, const double *adjusted, double alpha_each,
                       const sb_compare_options *opt, int name_width, tally *n)
{
    if (opt->markdown)
        fprintf(out, "| benchmark | base | new | ratio | threshold | mde | test | p | verdict |\n"
                     "|---|---:|---:|---:|---:|---:|---|---:|---|\n");
    else
        print_row(out, 0, name_width, "benchmark", "base", "new", "ratio", "thresh", "mde",
                  "test", "p", "verdict");
    for (int i = 0, k = 0; i < nrows; i++) {
        row *w = &rows[i];
        char base_text[32] = "-", new_text[32] = "-", ratio_text[32] = "-", p_text[32] = "-";
        char threshold_text[32] = "-", mde_text[32] = "-";
        if (w->was->n > 0 && is_valid(w->was))
            format_time(w->test != TEST_NONE ? w->base_median : median_of(w->was->samples,
                                                                           w->was->n),
                        base_text, sizeof base_text);
        if (w->now->n > 0 && is_valid(w->now))
            format_time(w->test != TEST_NONE ? w->new_median : median_of(w->now->samples,
                                                                          w->now->n),
                        new_text, sizeof new_text);
        if (!is_valid(w->was)) {
            w->verdict = "not-comparable";
            n->not_comparable++;
        } else if (!is_valid(w->now)) {
            w->verdict = "NOW-INVALID";
            n->now_invalid++;
        } else if (w->test == TEST_NONE) {
            w->verdict = "not-comparable"; /* valid, but without a single time */
            n->not_comparable++;
        } else {
            w->p_adjusted = adjusted[k++];
            n->used[w->test] = 1;
            snprintf(ratio_text, sizeof ratio_text, "%.3fx", w->ratio);
            snprintf(p_text, sizeof p_text, "%.3g", w->p_adjusted);
            format_percent(w->threshold, threshold_text, sizeof threshold_text);
            double mde = detectable_effect(w, alpha_each);
            format_percent(mde, mde_text, sizeof mde_text);
            /* A change counts only when it is both large (threshold) and unlikely to be noise
             * (alpha). "same" needs a test that could have found a change: with one sample a
             * side, or too few for the test ever to reach alpha (mde inf), it is not tested. */
            if (w->ratio > 1 + w->threshold && w->p_adjusted < opt->alpha) {
                w->verdict = "SLOWER";
                n->slower++;
            } else if (w->ratio < 1 - w->threshold && w->p_adjusted < opt->alpha) {
                w->verdict = "faster";
                n->faster++;
            } else if (w->was->n == 1 && w->now->n == 1) {
                w->verdict = "one sample each";
                n->untested++;
                n->one_sample++;
            } else if (!isfinite(mde)) {
                w->verdict = "not tested";
                n->untested++;
            } else {
                w->verdict = "same";
                n->same++;
            }
        }
        print_row(out, opt->markdown, name_width, w->was->name, base_text, new_text, ratio_text,
                  threshold_text, mde_text, test_names[w->test], p_text, w->verdict);
    }
    if (opt->markdown)
        fputc('\n', out);
}

/* The benchmarks of one file only. */
static void print_unmatched(FILE *out, const records *base, const records *newer, int markdown,
                            tally *n)
{
    for (int i = 0; i < base->n; i++) {
        if (!base->benches[i].matched) {
            fprintf(out, markdown ? "- missing: `%s`\n" : "missing: %s\n", base->benches[i].name);
            n->missing++;
        }
    }
    for (int i = 0; i < newer->n; i++) {
        if (!newer->benches[i].matched) {
            fprintf(out, markdown ? "- new: `%s`\n" : "new: %s\n", newer->benches[i].name);
            n->added++;
        }
    }
    if (markdown && (n->missing || n->added))
        fputc('\n', out);
}

/* The counts, then what each test used and each column means, and a warning where the two ran
 * on different devices. */
static void print_summary(FILE *out, const tally *n, const records *base, const records *newer,
                          const sb_compare_options *opt, const sb_calibration *cal, int ntested)
{
    fprintf(out, "%d slower, %d faster, %d same, %d not tested, %d now-invalid, %d "
            "not-comparable, %d new, %d missing\n", n->slower, n->faster, n->same, n->untested,
            n->now_invalid, n->not_comparable, n->added, n->missing);
    if (n->used[TEST_WELCH])
        fprintf(out, "welch: Welch's t test on the log of each repetition's median (%s)\n",
                base->processes && newer->processes ? "repetitions in separate processes"
                                                    : "repetitions of one process, as Google "
                                                      "Benchmark runs them");
    if (n->used[TEST_CALIBRATED])
        fprintf(out, "t-cal: t test on the log of each repetition's median: the spread within a "
                "session pooled with the calibration's, plus its spread between sessions "
                "(%s%s%s)\n",
                opt->calibration, cal->device[0] ? ", " : "", cal->device);
    if (n->used[TEST_U])
        fprintf(out, "U-samples: Mann-Whitney U test over the samples of one process each (they "
                "understate the noise between runs: use --repetitions)\n");
    if (ntested > 0)
        fprintf(out, "p: %s, family-wise alpha %g; thresh: %s; mde: the smallest slow-down "
                "caught with 80 %% power at these sizes\n",
                opt->no_correction ? "each benchmark's own (no correction)"
                                   : ntested > 1 ? "Holm-adjusted over the benchmarks compared"
                                                 : "one benchmark, no adjustment needed",
                opt->alpha,
                opt->calibration ? "max(floor, e^(2 x calibrated spread) - 1), else --threshold"
                                 : "--threshold");
    if (n->untested > n->one_sample)
        fprintf(out, "not tested: too few samples for the test ever to reach p < alpha at "
                "these sizes (mde inf): the ratio is shown, but neither a change nor its "
                "absence is measured (more samples, or --repetitions)\n");
    if (n->one_sample)
        fprintf(out, "one sample each: no spread to test a ratio against (more samples, or "
                "--repetitions)\n");
    /* One kind of GPU (the name), two cards (the UUID): compared as one device. */
    if (base->device && newer->device && base->uuid && newer->uuid &&
        strcmp(base->uuid, newer->uuid) != 0)
        fprintf(out, "note: base and new ran on two cards of one kind (%s; %s and %s), compared "
                "as one device: a card's own difference (clocks, cooling) counts as a change; "
                "stagebench gate runs both builds on one card\n", base->device, base->uuid,
                newer->uuid);
}

/* Under a device comparison's table (and its missing and new benchmarks): the counts, and what
 * the columns mean. */
static void print_device_summary(FILE *out, const device_tally *n, const tally *u,
                                 const sb_compare_options *opt)
{
    double level = 100 * (1 - opt->alpha);
    const char *item = opt->markdown ? "- " : "";
    fprintf(out, "%d compared: %d with an interval from repetitions, %d from samples, %d one "
            "sample each, %d too few samples; %d not valid on a side, %d new, %d missing\n",
            n->from_reps + n->from_samples + n->one_sample + n->too_few, n->from_reps,
            n->from_samples, n->one_sample, n->too_few, n->invalid, u->added, u->missing);
    if (opt->markdown)
        fputc('\n', out);
    fprintf(out, "%sratio: new / base, of the medians (of the repetitions' medians where both "
            "sides have 2 or more repetitions, else of the samples); interval: its %g %% "
            "confidence interval, each benchmark's own\n", item, level);
    if (n->from_reps)
        fprintf(out, "%sfrom repetitions: Welch's t on the log of each repetition's median\n",
                item);
    if (n->from_samples || n->too_few)
        fprintf(out, "%sfrom samples: the Mann-Whitney interval of the shift in log time over "
                "the samples of one process each (they understate the noise between runs: use "
                "--repetitions)%s\n", item,
                n->too_few ? "; too few samples: these counts cannot give the interval (3 and 3 "
                             "give 90 % at most)"
                           : "");
    if (n->one_sample)
        fprintf(out, "%sone sample each: no spread to form an interval from; the ratio is of "
                "two single times\n", item);
    if (n->gpu)
        fprintf(out, "%spredicted: a DRAM-bound stage scales with the measured peak bandwidth, "
                "an issue-bound one with SM count x clock, an FP64-bound one with that over the "
                "FP32:FP64 ratio (from the records' contexts); follows: the bound whose "
                "prediction is nearest the measured ratio\n", item);
    if (n->cpu)
        fprintf(out, "%sCPU stage: ran on the hosts' CPUs, which the records do not describe: "
                "no bound predicted\n", item);
    if (opt->calibration)
        fprintf(out, "%s--calibration: not used (a device comparison gives no verdict)\n", item);
}

int sb_compare_files(const char *base_path, const char *new_path, const sb_compare_options *opt,
                     FILE *out)
{
    records base = {0}, newer = {0};
    sb_calibration cal = {0};
    row *rows = NULL;
    double *p = NULL, *adjusted = NULL;
    int rc = -1;
    if (load_records(&base, base_path) != 0 || load_records(&newer, new_path) != 0)
        goto done;
    if (opt->calibration && sb_calibration_load(&cal, opt->calibration) != 0)
        goto done;

    int name_width = (int)strlen("benchmark"), nrows = 0;
    rows = calloc((size_t)base.n + 1, sizeof *rows);
    p = calloc((size_t)base.n + 1, sizeof *p);
    adjusted = calloc((size_t)base.n + 1, sizeof *adjusted);
    if (!rows || !p || !adjusted) {
        sb_fail("out of host memory");
        goto done;
    }
    if (match_rows(&base, &newer, opt, opt->calibration ? &cal : NULL, rows, &nrows,
                   &name_width) != 0)
        goto done;

    /* Two kinds of GPU (the contexts' first devices' names differ): a device comparison, no
     * verdict. */
    if (base.device && newer.device && strcmp(base.device, newer.device) != 0) {
        tally unmatched = {0};
        device_tally d = {0};
        if (print_device_comparison(out, rows, nrows, name_width, &base, &newer, opt, &d) != 0)
            goto done;
        print_unmatched(out, &base, &newer, opt->markdown, &unmatched);
        print_device_summary(out, &d, &unmatched, opt);
        rc = 0;
        goto done;
    }

    /* Holm over the benchmarks that were tested: with many benchmarks, some p-values fall under
     * alpha by chance alone; Holm keeps the chance of any false alarm in the whole table at
     * alpha. */
    int ntested = 0;
    for (int i = 0; i < nrows; i++)
        if (rows[i].test != TEST_NONE)
            p[ntested++] = rows[i].p;
    if (opt->no_correction)
        memcpy(adjusted, p, (size_t)ntested * sizeof *p);
    else
        sb_holm(p, ntested, adjusted);
    double alpha_each = opt->no_correction || ntested == 0 ? opt->alpha : opt->alpha / ntested;

    tally n = {0};
    judge_rows(out, rows, nrows, adjusted, alpha_each, opt, name_width, &n);
    print_unmatched(out, &base, &newer, opt->markdown, &n);
    print_summary(out, &n, &base, &newer, opt, &cal, ntested);
    rc = n.slower > 0 || n.now_invalid > 0;

done:
    free(rows);
    free(p);
    free(adjusted);
    sb_calibration_free(&cal);
    free_records(&newer);
    free_records(&base);
    return rc;
}

/* stagebench calibrate */

int sb_calibrate_files(const char *const *paths, int npaths, double floor, const char *out_path,
                       FILE *out)
{
    records *sides = calloc((size_t)npaths, sizeof *sides);
    json_t *list = json_array(), *sources = json_array(), *doc = NULL;
    double *logs = NULL;
    int rc = -1, width = (int)strlen("benchmark");
    if (!sides || !list || !sources) {
        sb_fail("out of host memory");
        goto done;
    }
    if (floor <= 0)
        floor = SB_COMPARE_FLOOR;
    size_t most = 0;
    for (int s = 0; s < npaths; s++) {
        if (load_records(&sides[s], paths[s]) != 0)
            goto done;
        json_array_append_new(sources, json_string(paths[s]));
        for (int i = 0; i < sides[s].n; i++) {
            most += (size_t)sides[s].benches[i].nreps;
            if ((int)strlen(sides[s].benches[i].name) > width)
                width = (int)strlen(sides[s].benches[i].name);
        }
    }
    if (!(logs = malloc((most + 1) * sizeof *logs))) {
        sb_fail("out of host memory");
        goto done;
    }
    fprintf(out, "%-*s  %4s  %10s  %7s  %7s  %7s  %7s  %s\n", width, "benchmark", "reps",
            "median", "spread", "within", "between", "thresh",
            npaths > 1 ? "A-vs-A (2nd / 1st median)" : "");
    int skipped = 0;
    for (int i = 0; i < sides[0].n; i++) {
        const bench *first = &sides[0].benches[i];
        int n = 0, groups = 0, within_df = 0;
        double within_squares = 0, group_means[64], inverse_sizes = 0;
        for (int s = 0; s < npaths; s++) {
            const bench *b = s == 0 ? first : find_bench(&sides[s], first->name);
            int start = n;
            for (int k = 0; b && is_valid(b) && k < b->nreps; k++)
                logs[n++] = log(b->reps[k]);
            if (n == start || groups == 64)
                continue;
            sb_stats g;
            sb_stats_compute(logs + start, n - start, &g);
            group_means[groups++] = g.mean;
            within_squares += (n - start - 1) * g.stdev * g.stdev;
            within_df += n - start - 1;
            inverse_sizes += 1.0 / (n - start);
        }
        if (n < 2 || !is_valid(first) || within_df == 0) {
            skipped++;
            continue;
        }
        /* Each path is a session (a run of N repetitions, as a CI run is). The spread of one
         * repetition splits into the spread within a session and that of the sessions' levels:
         * the variance of the sessions' means beyond what the within spread gives a mean of
         * their sizes (one-way random effects, method of moments). */
        sb_stats st, means;
        sb_stats_compute(logs, n, &st);
        sb_stats_compute(group_means, groups, &means);
        double within = sqrt(within_squares / within_df);
        double between2 = means.stdev * means.stdev - within * within * inverse_sizes / groups;
        double between = groups > 1 && between2 > 0 ? sqrt(between2) : 0;
        double median = exp(st.median), threshold = calibrated_threshold(st.stdev, floor);
        char median_text[32], spread_text[32], within_text[32], between_text[32];
        char threshold_text[32], avsa[64] = "";
        format_time(median, median_text, sizeof median_text);
        snprintf(spread_text, sizeof spread_text, "%.2f%%", 100 * st.stdev);
        snprintf(within_text, sizeof within_text, "%.2f%%", 100 * within);
        snprintf(between_text, sizeof between_text, "%.2f%%", 100 * between);
        snprintf(threshold_text, sizeof threshold_text, "%.2f%%", 100 * threshold);
        json_t *e = json_pack("{s:s, s:i, s:f, s:f, s:f, s:i, s:f, s:i, s:i, s:f}", "name",
                              first->name, "repetitions", n, "median_s", median, "spread",
                              st.stdev, "within", within, "within_df", within_df, "between",
                              between, "between_df", groups - 1, "sessions", groups,
                              "threshold", threshold);
        const bench *second = npaths > 1 ? find_bench(&sides[1], first->name) : NULL;
        if (second && is_valid(second) && second->nreps > 0 && first->nreps > 0) {
            double ratio = median_of(second->reps, second->nreps) /
                           median_of(first->reps, first->nreps);
            snprintf(avsa, sizeof avsa, "%.4fx", ratio);
            json_object_set_new(e, "a_vs_a_ratio", json_real(ratio));
        }
        json_array_append_new(list, e);
        fprintf(out, "%-*s  %4d  %10s  %7s  %7s  %7s  %7s  %s\n", width, first->name, n,
                median_text, spread_text, within_text, between_text, threshold_text, avsa);
    }
    if (json_array_size(list) == 0) {
        sb_fail("%s: no benchmark has 2 or more valid repetitions to calibrate from (run with "
                "--repetitions N)", paths[0]);
        goto done;
    }
    doc = json_pack("{s:i, s:s, s:s, s:s, s:s, s:f, s:f, s:O, s:O}", "stagebench_calibration", 1,
                    "method", "spread: standard deviation of the log of each repetition's "
                    "median (one repetition a process) over every session (a path given); "
                    "within: pooled within sessions; between: of the sessions' levels beyond "
                    "within (random effects, moments); threshold: max(floor, exp(k spread) - 1)",
                    "device", sides[0].device ? sides[0].device : "",
                    "git_commit", sides[0].commit ? sides[0].commit : "", "date",
                    text_or_empty(json_string_value(
                        json_object_get(json_object_get(sides[0].docs[0], "context"), "date"))),
                    "k", SB_CALIBRATION_K, "floor", floor, "sources", sources, "benchmarks",
                    list);
    if (!doc || sb_json_write_atomic(out_path, doc) != 0) {
        if (!doc)
            sb_fail("cannot encode the calibration");
        goto done;
    }
    fprintf(out, "calibration of %zu benchmarks (%d without 2 valid repetitions left out), floor "
            "%.2f%%: %s\n", json_array_size(list), skipped, 100 * floor, out_path);
    rc = 0;
done:
    for (int s = 0; sides && s < npaths; s++)
        free_records(&sides[s]);
    free(sides);
    free(logs);
    json_decref(doc);
    json_decref(list);
    json_decref(sources);
    return rc;
}
