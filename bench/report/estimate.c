#include "estimate.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../cuda/base/error.h"
#include "../../harness/json.h"
#include "report.h"

typedef struct past_record {
    int run;      /* index into the runs given */
    char *name;   /* the benchmark's name */
    double cost;  /* seconds to make it */
    double one;   /* one run's */
} past_record;

struct sb_estimate {
    char dir[4096];
    past_record *records;
    int n, cap;
    const char *const *runs;
    int nruns;
};

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Where the committed baselines are: <exe>/../results/baselines (build/stagebench in a
 * checkout), else the source tree's. */
static void baselines_root(char *out, size_t cap)
{
    char exe[2048]; /* with the tail, within the callers' 4096 */
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        *strrchr(exe, '/') = '\0';
        snprintf(out, cap, "%s/../results/baselines", exe);
        if (is_dir(out))
            return;
    }
    snprintf(out, cap, "%s", SB_SOURCE_DIR "/results/baselines");
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The records file of run `run` in dir (NAME.json, else NAME.json.xz), or 0. */
static int run_file(const char *dir, const char *run, char *out, size_t cap)
{
    char pattern[4200];
    glob_t g;
    snprintf(pattern, sizeof pattern, "%s/%s.json", dir, run);
    if (sb_glob_records(pattern, &g) != 0)
        return 0;
    int found = g.gl_pathc > 0 && !sb_is_temp_file(g.gl_pathv[0]);
    if (found)
        snprintf(out, cap, "%s", g.gl_pathv[0]);
    globfree(&g);
    return found;
}

/* 1 when a records document was made by `stagebench study` of a file named as study_file (its
 * context's command: "study bench/studies/NAME.study ..."). */
static int made_by(json_t *doc, const char *study_file)
{
    const char *command = json_string_value(json_object_get(
        json_object_get(json_object_get(doc, "context"), "stagebench"), "command"));
    if (!command || strncmp(command, "study ", 6) != 0)
        return 0;
    const char *path = command + 6, *end = path + strcspn(path, " ");
    const char *name = path;
    for (const char *p = path; p < end; p++)
        if (*p == '/')
            name = p + 1;
    const char *want = base_name(study_file);
    return strlen(want) == (size_t)(end - name) && !strncmp(want, name, (size_t)(end - name));
}

/* 1 when dir holds a records file of a run; *ours: one made by this study. */
static int holds_runs(const char *dir, const char *study_file, const char *const *runs, int nruns,
                      int *ours)
{
    char path[4300];
    int holds = 0;
    *ours = 0;
    for (int i = 0; i < nruns && !*ours; i++) {
        if (!run_file(dir, runs[i], path, sizeof path))
            continue;
        holds = 1;
        json_t *doc = sb_json_load(path);
        *ours = doc && made_by(doc, study_file);
        if (!doc) /* not records: another folder's business, no error of this command's */
            sb_error_clear();
        json_decref(doc);
    }
    return holds;
}

static int names_order(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Seconds to make one record: warm-up, validation and counter passes at one run's median wall
 * time each, and the samples' own (each sample the mean of runs_per_sample runs). */
static double record_cost(json_t *sb, int warmup_default, double *one)
{
    json_t *wall = json_object_get(sb, "wall"), *x;
    json_t *rps = json_object_get(sb, "runs_per_sample");
    json_t *warmup = json_object_get(sb, "warmup_runs");
    json_t *counters = json_object_get(sb, "counters");
    const char *counted = json_string_value(json_object_get(counters, "status"));
    double median = json_number_value(json_object_get(wall, "median")), sampled = 0;
    size_t i;
    json_array_foreach(json_object_get(wall, "samples"), i, x)
        sampled += json_number_value(x);
    /* records older than runs_per_sample and warmup_runs ran one run a sample, and the warm-up
     * their context's measurement names */
    double per_sample = json_is_integer(rps) ? (double)json_integer_value(rps) : 1;
    double runs = (json_is_integer(warmup) ? (double)json_integer_value(warmup) : warmup_default) +
                  1 /* validation */ +
                  (counted && !strcmp(counted, "collected")
                       ? (double)json_integer_value(json_object_get(counters, "passes"))
                       : 0);
    *one = median;
    return sampled * per_sample + runs * median;
}

static void load_run(sb_estimate *e, int run)
{
    char path[4300];
    if (!run_file(e->dir, e->runs[run], path, sizeof path))
        return;
    json_t *doc = sb_json_load(path), *b;
    if (!doc) { /* a reference that cannot be read gives no estimate, nothing worse */
        sb_error_clear();
        return;
    }
    json_t *m = json_object_get(
        json_object_get(json_object_get(doc, "context"), "stagebench"), "measurement");
    json_t *w = json_object_get(m, "warmup_runs");
    int warmup = json_is_integer(w) ? (int)json_integer_value(w) : 1;
    size_t i;
    json_array_foreach(json_object_get(doc, "benchmarks"), i, b) {
        json_t *sb = json_object_get(b, "stagebench");
        const char *name = json_string_value(json_object_get(b, "name"));
        if (!json_is_object(sb) || !name) /* repetitions' aggregates have no stagebench */
            continue;
        if (e->n == e->cap) {
            int cap = e->cap ? 2 * e->cap : 256;
            past_record *r = realloc(e->records, (size_t)cap * sizeof *r);
            if (!r)
                break;
            e->records = r, e->cap = cap;
        }
        past_record *r = &e->records[e->n];
        if (!(r->name = strdup(name)))
            break;
        r->run = run;
        r->cost = record_cost(sb, warmup, &r->one);
        e->n++;
    }
    json_decref(doc);
}

/* The records of dir, when they hold enough of the study's points: some of those of a folder
 * the study made, most of another's (a folder of `stagebench run` records that happen to share a
 * run's name, such as h200/kernels-timed/tumour.json.xz, holds a point or two of angio-paper's
 * tumour run and would estimate the rest from them). */
static sb_estimate *try_folder(const char *dir, const char *const *runs, int nruns, int ours,
                               double (*coverage)(const sb_estimate *, void *), void *ctx)
{
    sb_estimate *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    snprintf(e->dir, sizeof e->dir, "%s", dir);
    for (size_t len = strlen(e->dir); len > 1 && e->dir[len - 1] == '/';) /* said as DIR/ */
        e->dir[--len] = '\0';
    e->runs = runs;
    e->nruns = nruns;
    for (int i = 0; i < nruns; i++)
        load_run(e, i);
    double share = e->n > 0 ? coverage(e, ctx) : 0;
    if (ours ? share > 0 : share >= 0.5)
        return e;
    sb_estimate_close(e);
    return NULL;
}

/* The first folder of `parent`, by name, whose records serve (try_folder): first among those
 * this study made (their context's command names it), then among the others that hold records
 * of runs of the same names (made by `stagebench run` with the study's points, as the goals'). */
static sb_estimate *search(const char *parent, const char *study_file, const char *const *runs,
                           int nruns, double (*coverage)(const sb_estimate *, void *), void *ctx)
{
    DIR *d = opendir(parent);
    char *names[512];
    int n = 0, ours[512];
    sb_estimate *e = NULL;
    for (struct dirent *x; d && n < 512 && (x = readdir(d));)
        if (x->d_name[0] != '.' && (names[n] = strdup(x->d_name)))
            n++;
    if (d)
        closedir(d);
    qsort(names, (size_t)n, sizeof *names, names_order);
    for (int i = 0; i < n; i++) {
        char dir[4096];
        int holds = (size_t)snprintf(dir, sizeof dir, "%s/%s", parent, names[i]) < sizeof dir &&
                    is_dir(dir) && holds_runs(dir, study_file, runs, nruns, &ours[i]);
        if (!holds) {
            free(names[i]);
            names[i] = NULL;
        }
    }
    for (int pass = 1; pass >= 0 && !e; pass--)
        for (int i = 0; i < n && !e; i++)
            if (names[i] && ours[i] == pass) {
                char dir[4096];
                snprintf(dir, sizeof dir, "%s/%s", parent, names[i]);
                e = try_folder(dir, runs, nruns, pass, coverage, ctx);
            }
    for (int i = 0; i < n; i++)
        free(names[i]);
    return e;
}

sb_estimate *sb_estimate_open(const char *study_file, const char *const *runs, int nruns,
                              const char *given, const char *gpu_name, int gpus,
                              double (*coverage)(const sb_estimate *, void *), void *ctx,
                              char *why, size_t cap, int *error)
{
    sb_estimate *e = NULL;
    int ours;
    *error = 0;
    if (given) {
        struct stat st;
        int there = stat(given, &st) == 0;
        if (!there || !S_ISDIR(st.st_mode)) {
            *error = 1;
            sb_fail("--estimate-from %s: %s (give the folder of a run of this study, e.g. "
                    "results/baselines/<device>/<study>/, or a device's folder)",
                    given, there ? "not a folder" : strerror(errno));
            return NULL;
        }
        if (holds_runs(given, study_file, runs, nruns, &ours))
            e = try_folder(given, runs, nruns, 1, coverage, ctx); /* named: some points do */
        else
            e = search(given, study_file, runs, nruns, coverage, ctx);
        if (!e) {
            *error = 1;
            sb_fail("--estimate-from %s: no records of %s's points there (%s.json or .json.xz, "
                    "...) nor in a folder of it; give the folder of a run of this study",
                    given, base_name(study_file), runs[0]);
        }
        return e;
    }
    if (gpus == 0) {
        snprintf(why, cap, "no reference records for this study on this machine (no GPU here, "
                           "and results/baselines/ holds GPUs' records; --estimate-from DIR names "
                           "a folder of them)");
        return NULL;
    }
    /* The device's folder as bench/scripts/ci-gate names it; several GPUs of one host as
     * "<slug>-x<N>" or "<model>-x<N>" (h200-x4, h100-x2), then the one-GPU folder. */
    char root[4096], slug[128], model[128], candidates[3][4400];
    int ncand = 0;
    baselines_root(root, sizeof root);
    sb_device_slug(gpu_name, slug, sizeof slug);
    snprintf(model, sizeof model, "%.*s", (int)strcspn(slug, "-"), slug);
    if (gpus > 1) {
        snprintf(candidates[ncand++], sizeof candidates[0], "%s/%s-x%d", root, slug, gpus);
        snprintf(candidates[ncand++], sizeof candidates[0], "%s/%s-x%d", root, model, gpus);
    }
    snprintf(candidates[ncand++], sizeof candidates[0], "%s/%s", root, slug);
    for (int i = 0; i < ncand && !e; i++)
        if (is_dir(candidates[i]))
            e = search(candidates[i], study_file, runs, nruns, coverage, ctx);
    if (!e)
        snprintf(why, cap, "no reference records for this study in %s/ (%s; --estimate-from DIR "
                           "names a folder)",
                 candidates[ncand - 1], gpu_name);
    return e;
}

const char *sb_estimate_dir(const sb_estimate *e)
{
    return e->dir;
}

double sb_estimate_record(const sb_estimate *e, const char *run, const char *name,
                          double *one_run)
{
    for (int i = 0; i < e->n; i++)
        if (!strcmp(e->runs[e->records[i].run], run) && !strcmp(e->records[i].name, name)) {
            if (one_run)
                *one_run = e->records[i].one;
            return e->records[i].cost;
        }
    return NAN;
}

void sb_estimate_close(sb_estimate *e)
{
    if (!e)
        return;
    for (int i = 0; i < e->n; i++)
        free(e->records[i].name);
    free(e->records);
    free(e);
}
