/* stagebench plot: figures from records through gnuplot.
 *
 * The kept records are reduced to one gnuplot data block per variant, written to <prefix>.dat;
 * a script from plots/ draws <prefix>.png and <prefix>.svg from it. The C side decides what is
 * plotted (filters, x axis, speed-ups); the scripts decide how it looks. A study's data figure
 * is the exception: its script reads the records' CSV view and the output dumps itself, for
 * columns and outputs no generic kind plots (e.g. a kymograph from a dump). */
#include "plot.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "../../cuda/base/error.h"
#include "../../harness/json.h"

#ifndef SB_SOURCE_DIR
#define SB_SOURCE_DIR "."
#endif

/* One valid benchmark that passed the filters; the strings live in the loaded documents. */
typedef struct record {
    const char *input; /* the file it came from */
    const char *name;  /* the benchmark's name, for messages */
    const char *variant;
    const char *machine; /* its file's first GPU, as a short name (h100-80gb-hbm3), or "cpu" */
    int stage;
    json_t *params;
    json_t *sb; /* its "stagebench" object */
} record;

/* One row of a data block. TIME: x, median, min, max, caution. SPEEDUP: x, speed-up, baseline
 * median, median, caution. SERIES: x, y. COUNTERS (the block's one row): DRAM % of peak,
 * occupancy %, DRAM bytes read + written, the variant's own floor of bytes (NaN where it does
 * not count them). caution: 1 where the point's record (or its baseline's) is to be read with
 * care (sb_record_caution: one sample, or noise above SB_CAUTION_NOISE), else 0. */
typedef struct point {
    double col[5];
    const record *rec; /* TIME and SPEEDUP: where it came from, for messages */
} point;

/* One variant (on one machine, when the records come from several): one data block, one line
 * in the figure. */
typedef struct line {
    const char *variant;
    const char *machine; /* NULL: records of one machine */
    char label[192];     /* the legend's word: variant, or variant@machine */
    int stage;           /* for the default order */
    int npoints;
    point *points;
} line;

typedef struct plot {
    const sb_plot_request *req;
    char inputs[1024]; /* the input names, for messages */
    json_t **docs;
    int ndocs;
    char (*machines)[96]; /* per document: its records' machine */
    int by_machine;       /* the records come from more than one machine: a line per both */
    record *recs;
    int nrecs;
    line *lines;
    int nlines;
    int ncols;
    int cautions, caution_of; /* points (TIME, SPEEDUP) or records (DATA) to read with care, of
                                 how many */
    char x_name[1024];
    char columns[2048];
    char what[2048]; /* the default title, after the workload's name */
    char title[4096], xlabel[1024], ylabel[1024];
    char first_csv[4096]; /* DATA: the first input's CSV view */
    char *csvfiles;       /* DATA: every input's, as gnuplot words */
    char csv_tmp[4096];   /* DATA: where CSV views unpacked from an extras.tar.xz went ("": none) */
} plot;

static int find_program(const char *name, char *out, size_t cap);
static int run_program(const char *program, char *const argv[], char *err, size_t cap);

static const char *const kind_names[] = {"time", "speedup", "series", "counters", "data"};

const char *sb_plot_kind_name(sb_plot_kind kind)
{
    return (unsigned)kind < sizeof kind_names / sizeof kind_names[0] ? kind_names[kind] : "?";
}
static const char *const kind_scripts[] = {"time.gp", "speedup.gp", "series.gp", "counters.gp",
                                           NULL};

const char *sb_plots_dir(void)
{
    static char dir[4096];
    char exe[4096], probe[4200];

    const char *env = getenv("STAGEBENCH_PLOTS");
    if (env && *env) {
        snprintf(dir, sizeof dir, "%s", env);
        return dir;
    }
    /* An installed or built binary finds the scripts beside it: <bin>/../plots. */
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        *strrchr(exe, '/') = '\0';
        int len = snprintf(dir, sizeof dir, "%s/../plots", exe);
        snprintf(probe, sizeof probe, "%s/time.gp", dir);
        if (len < (int)sizeof dir && access(probe, R_OK) == 0)
            return dir;
    }
    snprintf(dir, sizeof dir, "%s", SB_SOURCE_DIR "/plots");
    return dir;
}

/* ---- Filters ------------------------------------------------------------------------------ */

/* Whether name is one of the comma-separated words of list. */
static int in_list(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *s = list; *s;) {
        size_t n = strcspn(s, ",");
        if (n == len && strncmp(s, name, len) == 0)
            return 1;
        s += n + (s[n] == ',');
    }
    return 0;
}

static const char *param_text(json_t *params, const char *name)
{
    return json_string_value(json_object_get(params, name));
}

static int same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int check_where(const char *where)
{
    for (const char *s = where; *s;) {
        size_t n = strcspn(s, ",");
        const char *eq = memchr(s, '=', n);
        if (!eq || eq == s)
            return sb_fail("--where '%s': expected name=value,name=value (e.g. t_max=240)",
                           where);
        s += n + (s[n] == ',');
    }
    return 0;
}

/* Whether params has every name=value of where, compared as text. */
static int where_matches(const char *where, json_t *params)
{
    for (const char *s = where; *s;) {
        size_t n = strcspn(s, ",");
        const char *eq = memchr(s, '=', n);
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(eq - s), s);
        const char *want = eq + 1, *have = param_text(params, name);
        size_t want_len = n - (size_t)(want - s);
        if (!have || strlen(have) != want_len || strncmp(have, want, want_len) != 0)
            return 0;
        s += n + (s[n] == ',');
    }
    return 1;
}

static int wanted_variant(const sb_plot_request *r, const char *variant)
{
    if (r->kind == SB_PLOT_SPEEDUP && strcmp(variant, r->baseline) == 0)
        return 1;
    return !r->variants || in_list(r->variants, variant);
}

/* ---- Loading ------------------------------------------------------------------------------ */

/* "NVIDIA H100 80GB HBM3" -> "h100-80gb-hbm3" (as bench/scripts/ci-gate names a baseline), from the
 * records' context; "cpu" for a machine without a GPU. */
static void machine_name(const json_t *doc, char *out, size_t cap)
{
    const char *name = json_string_value(json_object_get(
        json_array_get(json_object_get(json_object_get(json_object_get(doc, "context"),
                                                       "stagebench"),
                                       "devices"),
                       0),
        "name"));
    if (!name) {
        snprintf(out, cap, "cpu");
        return;
    }
    if (strncmp(name, "NVIDIA ", 7) == 0)
        name += 7;
    size_t n = 0;
    for (const char *c = name; *c && n + 1 < cap; c++) {
        char ch = (char)tolower((unsigned char)*c);
        if (isalnum((unsigned char)ch) || ch == '.')
            out[n++] = ch;
        else if (n > 0 && out[n - 1] != '-')
            out[n++] = '-';
    }
    while (n > 0 && out[n - 1] == '-')
        n--;
    out[n] = '\0';
}

static void describe_inputs(plot *p)
{
    size_t used = 0;
    for (int i = 0; i < p->req->ninputs && used < sizeof p->inputs; i++)
        used += (size_t)snprintf(p->inputs + used, sizeof p->inputs - used, "%s%s",
                                 i ? ", " : "", p->req->inputs[i]);
}

static void add_record(plot *p, const record *rec)
{
    if ((p->nrecs & (p->nrecs - 1)) == 0) { /* grows at 0, 1, 2, 4, 8... */
        p->recs = realloc(p->recs, (size_t)(p->nrecs ? 2 * p->nrecs : 1) * sizeof *p->recs);
        if (!p->recs)
            abort();
    }
    p->recs[p->nrecs++] = *rec;
}

/* The variant's name as the records spell it (any status), or NULL when no record has it. */
static const char *find_variant(const plot *p, const char *name, size_t len)
{
    for (int i = 0; i < p->ndocs; i++) {
        size_t j;
        json_t *bench;
        json_array_foreach(json_object_get(p->docs[i], "benchmarks"), j, bench) {
            const char *v = json_string_value(
                json_object_get(json_object_get(bench, "stagebench"), "variant"));
            if (v && strlen(v) == len && strncmp(v, name, len) == 0)
                return v;
        }
    }
    return NULL;
}

/* A name in --variants or --baseline that no record has is a typo, not a variant that failed. */
static int check_variant_names(const plot *p)
{
    const sb_plot_request *r = p->req;

    if (r->kind == SB_PLOT_SPEEDUP && !find_variant(p, r->baseline, strlen(r->baseline)))
        return sb_fail("%s: no records of variant '%s' (--baseline takes a name `stagebench "
                       "list` shows)", p->inputs, r->baseline);
    for (const char *s = r->variants; s && *s;) {
        size_t n = strcspn(s, ",");
        if (!find_variant(p, s, n))
            return sb_fail("%s: no records of variant '%.*s' (--variants takes the names "
                           "`stagebench list` shows)", p->inputs, (int)n, s);
        s += n + (s[n] == ',');
    }
    return 0;
}

static int load_records(plot *p)
{
    const sb_plot_request *r = p->req;

    p->docs = calloc((size_t)r->ninputs, sizeof *p->docs);
    p->machines = calloc((size_t)r->ninputs + 1, sizeof *p->machines);
    if (!p->docs || !p->machines)
        return sb_fail("%s: out of host memory", p->inputs);
    for (int i = 0; i < r->ninputs; i++) {
        json_t *doc = sb_json_load(r->inputs[i]);
        if (!doc)
            return -1;
        p->docs[p->ndocs++] = doc;
        machine_name(doc, p->machines[i], sizeof p->machines[i]);
        p->by_machine |= i > 0 && strcmp(p->machines[i], p->machines[0]) != 0;
        json_t *benchmarks = json_object_get(doc, "benchmarks");
        if (!json_is_array(benchmarks))
            return sb_fail("%s: no \"benchmarks\" array: not a stagebench records file",
                           r->inputs[i]);
        size_t j;
        json_t *bench;
        json_array_foreach(benchmarks, j, bench) {
            json_t *sb = json_object_get(bench, "stagebench");
            record rec = {
                .input = r->inputs[i],
                .name = json_string_value(json_object_get(bench, "name")),
                .variant = json_string_value(json_object_get(sb, "variant")),
                .machine = p->machines[i],
                .stage = (int)json_integer_value(json_object_get(sb, "stage")),
                .params = json_object_get(sb, "params"),
                .sb = sb,
            };
            const char *status = json_string_value(json_object_get(sb, "status"));
            if (!rec.variant || !status || strcmp(status, "valid") != 0)
                continue;
            if (!wanted_variant(r, rec.variant) || (r->where && !where_matches(r->where,
                                                                               rec.params)))
                continue;
            if (!rec.name)
                rec.name = rec.variant;
            add_record(p, &rec);
        }
    }
    if (check_variant_names(p) != 0)
        return -1;
    if (p->nrecs == 0)
        return sb_fail("%s: no valid records%s%s%s%s (records whose stagebench.status is not "
                       "\"valid\" are never plotted)", p->inputs,
                       r->variants ? " of " : "", r->variants ? r->variants : "",
                       r->where ? " with " : "", r->where ? r->where : "");
    return 0;
}

/* ---- Lines -------------------------------------------------------------------------------- */

/* Whether rec belongs on the line of (variant, machine); machine NULL: any machine. */
static int on_line(const record *rec, const char *variant, const char *machine)
{
    return strcmp(rec->variant, variant) == 0 && (!machine || strcmp(rec->machine, machine) == 0);
}

static line *find_line(const plot *p, const char *variant, const char *machine)
{
    for (int i = 0; i < p->nlines; i++)
        if (strcmp(p->lines[i].variant, variant) == 0 &&
            (!machine || strcmp(p->lines[i].machine, machine) == 0))
            return &p->lines[i];
    return NULL;
}

static void add_line(plot *p, const char *variant, const char *machine, int stage)
{
    line *l = &p->lines[p->nlines++];
    *l = (line){.variant = variant, .machine = p->by_machine ? machine : NULL, .stage = stage};
    snprintf(l->label, sizeof l->label, "%s%s%s", variant, l->machine ? "@" : "",
             l->machine ? l->machine : "");
}

static int by_stage_then_name(const void *a, const void *b)
{
    const line *x = a, *y = b;
    if (x->stage != y->stage)
        return x->stage < y->stage ? -1 : 1;
    return strcmp(x->label, y->label);
}

/* One line per variant: --variants in its order, else every kept variant by stage then name.
 * A speed-up plot leaves its baseline out unless asked for: it would be the line at 1. */
static int order_lines(plot *p)
{
    const sb_plot_request *r = p->req;
    size_t most = (size_t)p->nrecs + 1; /* lines: one per record, or per listed name */

    for (const char *c = r->variants; c && *c; c++)
        most += *c == ',';
    p->lines = calloc(most, sizeof *p->lines);
    if (!p->lines)
        return sb_fail("out of host memory plotting %s", p->inputs);
    if (r->variants) {
        for (const char *s = r->variants; *s;) {
            size_t n = strcspn(s, ",");
            const char *variant = find_variant(p, s, n); /* there: check_variant_names */
            for (int m = 0; m < (p->by_machine ? p->ndocs : 1); m++)
                if (!find_line(p, variant, p->by_machine ? p->machines[m] : NULL))
                    add_line(p, variant, p->machines[m], 0);
            s += n + (s[n] == ',');
        }
        return 0;
    }
    for (int i = 0; i < p->nrecs; i++) {
        const record *rec = &p->recs[i];
        if (r->kind == SB_PLOT_SPEEDUP && strcmp(rec->variant, r->baseline) == 0)
            continue;
        if (!find_line(p, rec->variant, p->by_machine ? rec->machine : NULL))
            add_line(p, rec->variant, rec->machine, rec->stage);
    }
    qsort(p->lines, (size_t)p->nlines, sizeof *p->lines, by_stage_then_name);
    return 0;
}

static void append_point(line *l, const point *pt)
{
    if ((l->npoints & (l->npoints - 1)) == 0) { /* grows at 0, 1, 2, 4, 8... */
        l->points = realloc(l->points, (size_t)(l->npoints ? 2 * l->npoints : 1) *
                                           sizeof *l->points);
        if (!l->points)
            abort();
    }
    l->points[l->npoints++] = *pt;
}

/* Two records for one point would be drawn as one; a run over several devices, or two runs
 * (two GPUs) given together, are the usual cause. */
static int add_unique_point(line *l, const point *pt)
{
    for (int i = 0; i < l->npoints; i++)
        if (l->points[i].col[0] == pt->col[0])
            return sb_fail("two valid records for one point: %s (%s) and %s (%s): plot one run "
                           "and one device at a time, or narrow with --where",
                           l->points[i].rec->name, l->points[i].rec->input, pt->rec->name,
                           pt->rec->input);
    append_point(l, pt);
    return 0;
}

static int by_x(const void *a, const void *b)
{
    const point *x = a, *y = b;
    return (x->col[0] > y->col[0]) - (x->col[0] < y->col[0]);
}

/* ---- Time and speed-up -------------------------------------------------------------------- */

/* Whether the parameter's text differs between records; a missing one differs from any value. */
static int param_differs(const record *recs, int n, const char *name)
{
    const char *first = param_text(recs[0].params, name);
    for (int i = 1; i < n; i++)
        if (!same_text(first, param_text(recs[i].params, name)))
            return 1;
    return 0;
}

/* The names of the parameters (but except) that differ between records, as "a, b" in out;
 * returns how many. */
static int varying_params(const record *recs, int n, const char *except, char *out, size_t cap)
{
    int count = 0;
    size_t used = 0;

    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        const char *name;
        json_t *value;
        json_object_foreach(recs[i].params, name, value) {
            int considered = except && strcmp(name, except) == 0;
            for (int j = 0; j < i && !considered; j++) /* met in an earlier record */
                considered = json_object_get(recs[j].params, name) != NULL;
            if (considered || !param_differs(recs, n, name))
                continue;
            if (used < cap)
                used += (size_t)snprintf(out + used, cap - used, "%s%s", count ? ", " : "",
                                         name);
            count++;
        }
    }
    return count;
}

/* The x axis: --x, or the one parameter that varies. Every other parameter must be the same in
 * all records, else points of different settings would join in one line. */
static int choose_x(plot *p)
{
    const sb_plot_request *r = p->req;
    char varying[1024];
    int n = varying_params(p->recs, p->nrecs, r->x_param, varying, sizeof varying);

    if (r->x_param && n > 0)
        return sb_fail("%s: the records differ in %s besides %s: keep one value of each with "
                       "--where NAME=VALUE", p->inputs, varying, r->x_param);
    if (!r->x_param && n == 0)
        return sb_fail("%s: no parameter varies between the records: nothing for the x axis "
                       "(--x names one)", p->inputs);
    if (!r->x_param && n > 1)
        return sb_fail("%s: parameters %s all vary: --x picks the one for the x axis "
                       "(--where fixes the others)", p->inputs, varying);
    snprintf(p->x_name, sizeof p->x_name, "%s", r->x_param ? r->x_param : varying);
    return 0;
}

/* A record as a time point: x, median, min, max. */
static int time_point(const plot *p, const record *rec, point *pt)
{
    const char *text = param_text(rec->params, p->x_name);
    static const char *const stats[] = {"median", "min", "max"};
    char *end;

    if (!text)
        return sb_fail("%s: %s has no parameter %s (--x names a parameter of the workload)",
                       rec->input, rec->name, p->x_name);
    pt->col[0] = strtod(text, &end);
    if (end == text || *end || !isfinite(pt->col[0]))
        return sb_fail("%s: %s: %s=%s is not a number: the x axis needs a numeric parameter "
                       "(--x picks another)", rec->input, rec->name, p->x_name, text);
    json_t *time = json_object_get(rec->sb, "time");
    for (int i = 0; i < 3; i++) {
        json_t *v = json_object_get(time, stats[i]);
        if (!json_is_number(v))
            return sb_fail("%s: %s has no stagebench.time.%s: not a complete valid record",
                           rec->input, rec->name, stats[i]);
        pt->col[1 + i] = json_number_value(v);
    }
    pt->col[4] = sb_record_caution(rec->sb);
    pt->rec = rec;
    return 0;
}

static int time_line(const plot *p, line *l)
{
    for (int i = 0; i < p->nrecs; i++) {
        point pt;
        if (!on_line(&p->recs[i], l->variant, l->machine))
            continue;
        if (time_point(p, &p->recs[i], &pt) != 0 || add_unique_point(l, &pt) != 0)
            return -1;
    }
    if (l->npoints > 1)
        qsort(l->points, (size_t)l->npoints, sizeof *l->points, by_x);
    return 0;
}

/* Replaces each time point by baseline median / median at the same x (the other parameters are
 * the same everywhere: choose_x made sure); points the baseline lacks are left out. */
static void speedup_line(const line *base, line *l)
{
    int kept = 0;
    for (int i = 0; i < l->npoints; i++) {
        point *pt = &l->points[i];
        for (int j = 0; j < base->npoints; j++) {
            if (base->points[j].col[0] != pt->col[0])
                continue;
            double median = pt->col[1], base_median = base->points[j].col[1];
            pt->col[1] = base_median / median;
            pt->col[2] = base_median;
            pt->col[3] = median;
            pt->col[4] = pt->col[4] > 0 || base->points[j].col[4] > 0;
            l->points[kept++] = *pt;
            break;
        }
    }
    l->npoints = kept;
}

static int fill_time_lines(plot *p)
{
    const sb_plot_request *r = p->req;

    if (choose_x(p) != 0)
        return -1;
    for (int i = 0; i < p->nlines; i++)
        if (time_line(p, &p->lines[i]) != 0)
            return -1;
    p->ncols = 5;
    snprintf(p->xlabel, sizeof p->xlabel, "%s", p->x_name);
    if (r->kind == SB_PLOT_TIME) {
        snprintf(p->columns, sizeof p->columns, "%s median_s min_s max_s caution", p->x_name);
        snprintf(p->what, sizeof p->what, "median time vs %s", p->x_name);
        snprintf(p->ylabel, sizeof p->ylabel, "time (s): median, min..max");
        return 0;
    }

    /* Each machine's lines against that machine's baseline. */
    int rc = 0;
    for (int m = 0; rc == 0 && m < (p->by_machine ? p->ndocs : 1); m++) {
        const char *machine = p->by_machine ? p->machines[m] : NULL;
        int seen = 0;
        for (int k = 0; machine && k < m; k++)
            seen |= strcmp(p->machines[k], machine) == 0;
        if (seen)
            continue;
        line base = {.variant = r->baseline, .machine = machine};
        rc = time_line(p, &base);
        if (rc == 0 && base.npoints == 0)
            rc = sb_fail("%s: the baseline variant '%s' has no valid records%s%s%s%s (--baseline "
                         "names a variant with valid records)", p->inputs, r->baseline,
                         machine ? " on " : "", machine ? machine : "",
                         r->where ? " with " : "", r->where ? r->where : "");
        for (int i = 0; rc == 0 && i < p->nlines; i++)
            if (!machine || strcmp(p->lines[i].machine, machine) == 0)
                speedup_line(&base, &p->lines[i]);
        free(base.points);
    }
    snprintf(p->columns, sizeof p->columns, "%s speedup baseline_median_s median_s caution",
             p->x_name);
    snprintf(p->what, sizeof p->what, "speed-up over %s vs %s", r->baseline, p->x_name);
    snprintf(p->ylabel, sizeof p->ylabel, "speed-up over %s (median times)", r->baseline);
    return rc;
}

/* ---- One point: series and counters ------------------------------------------------------- */

/* The record of `variant` among recs[0..n): NULL when there is none, and NULL with the error
 * "two valid records <what>: ..." (*rc = -1) when there are two: a series or a bar shows one
 * record, and two runs or two devices given together are the usual cause. */
static const record *only_record_of(const record *recs, int n, const line *l,
                                    const char *what, int *rc)
{
    const record *found = NULL;
    for (int i = 0; i < n; i++) {
        if (!on_line(&recs[i], l->variant, l->machine))
            continue;
        if (found) {
            *rc = sb_fail("two valid records %s: %s (%s) and %s (%s): plot one run and one "
                          "device at a time", what, found->name, found->input, recs[i].name,
                          recs[i].input);
            return NULL;
        }
        found = &recs[i];
    }
    return found;
}

/* ---- Series ------------------------------------------------------------------------------- */

static json_t *find_series(const record *rec, const char *name)
{
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(rec->sb, "series"), i, s)
        if (same_text(json_string_value(json_object_get(s, "name")), name))
            return s;
    return NULL;
}

static int series_line(const record *rec, json_t *series, line *l)
{
    json_t *xs = json_object_get(series, "x"), *ys = json_object_get(series, "y");
    size_t n = json_array_size(xs);

    if (!json_is_array(xs) || !json_is_array(ys) || json_array_size(ys) != n)
        return sb_fail("%s: %s: series %s needs x[] and y[] of one length", rec->input,
                       rec->name, json_string_value(json_object_get(series, "name")));
    for (size_t i = 0; i < n; i++) {
        json_t *x = json_array_get(xs, i), *y = json_array_get(ys, i);
        if (!json_is_number(x) || !json_is_number(y))
            return sb_fail("%s: %s: series %s has a value that is not a number at [%zu]",
                           rec->input, rec->name,
                           json_string_value(json_object_get(series, "name")), i);
        point pt = {.col = {json_number_value(x), json_number_value(y)}};
        append_point(l, &pt);
    }
    return 0;
}

/* The series comes from one point of a sweep: every record carrying it must have the same
 * parameters, and each variant one such record. */
static int fill_series_lines(plot *p)
{
    const char *name = p->req->series;
    record *with = calloc((size_t)p->nrecs, sizeof *with);
    const char *x_name = NULL;
    char varying[1024];
    int nwith = 0, rc = 0;

    for (int i = 0; i < p->nrecs; i++)
        if (find_series(&p->recs[i], name))
            with[nwith++] = p->recs[i];
    if (nwith == 0)
        rc = sb_fail("%s: no valid record has a series '%s' (stagebench.series[].name; e.g. "
                     "device_bytes_by_generation)", p->inputs, name);
    else if (varying_params(with, nwith, NULL, varying, sizeof varying) > 0)
        rc = sb_fail("%s: the records with series %s differ in %s: pick one point with "
                     "--where NAME=VALUE", p->inputs, name, varying);
    for (int i = 0; rc == 0 && i < p->nlines; i++) {
        const record *found =
            only_record_of(with, nwith, &p->lines[i], "for one series", &rc);
        if (found) {
            json_t *series = find_series(found, name);
            rc = series_line(found, series, &p->lines[i]);
            if (!x_name)
                x_name = json_string_value(json_object_get(series, "x_name"));
        }
    }
    free(with);
    if (rc != 0)
        return -1;
    p->ncols = 2;
    snprintf(p->xlabel, sizeof p->xlabel, "%s", x_name ? x_name : "x");
    snprintf(p->ylabel, sizeof p->ylabel, "%s", name);
    snprintf(p->columns, sizeof p->columns, "%s %s", p->xlabel, name);
    snprintf(p->what, sizeof p->what, "%s", name);
    return 0;
}

/* ---- Hardware counters -------------------------------------------------------------------- */

static const char *counters_text(const record *rec, const char *key)
{
    const char *text = json_string_value(json_object_get(json_object_get(rec->sb, "counters"),
                                                         key));
    return text && *text ? text : NULL;
}

/* The kept records' distinct counter statuses, as "unavailable: <reason>; not-applicable: ...",
 * to say why there is nothing to draw. Records from before counters have no status. */
static void describe_counter_statuses(const plot *p, char *out, size_t cap)
{
    size_t used = 0;

    out[0] = '\0';
    for (int i = 0; i < p->nrecs && used < cap; i++) {
        const char *status = counters_text(&p->recs[i], "status");
        const char *reason = counters_text(&p->recs[i], "reason");
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = same_text(status, counters_text(&p->recs[j], "status")) &&
                   same_text(reason, counters_text(&p->recs[j], "reason"));
        if (!seen)
            used += (size_t)snprintf(out + used, cap - used, "%s%s%s%s", used ? "; " : "",
                                     status ? status : "not recorded", reason ? ": " : "",
                                     reason ? reason : "");
    }
}

/* "a=1,b=2" for the names "a, b" with rec's values: an example of --where that keeps one point. */
static void where_example(const record *rec, const char *names, char *out, size_t cap)
{
    size_t used = 0;

    out[0] = '\0';
    for (const char *s = names; *s && used < cap;) {
        size_t n = strcspn(s, ",");
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)n, s);
        const char *value = param_text(rec->params, name);
        used += (size_t)snprintf(out + used, cap - used, "%s%s=%s", used ? "," : "", name,
                                 value ? value : "VALUE");
        s += n + (s[n] == ',');
        s += *s == ' ';
    }
}

/* A record as its bars, into col: DRAM % of peak, achieved occupancy, DRAM bytes, and the
 * variant's own floor of bytes (NaN where it does not count them: no floor bar). */
static int counters_bars(const record *rec, double col[4])
{
    static const char *const needed[][2] = {
        {"derived", "dram_pct_peak"},
        {"metrics", "sm__warps_active.avg.pct_of_peak_sustained_active"}, /* achieved occupancy */
        {"derived", "dram_bytes"},                                         /* read + written */
    };
    json_t *counters = json_object_get(rec->sb, "counters");

    for (int i = 0; i < 3; i++) {
        json_t *v = json_object_get(json_object_get(counters, needed[i][0]), needed[i][1]);
        if (!json_is_number(v))
            return sb_fail("%s: %s: stagebench.counters.%s.%s is missing or null, and the "
                           "counters figure needs it: stagebench run --metrics default on a GPU "
                           "records it (with the device's measured peak)", rec->input,
                           rec->name, needed[i][0], needed[i][1]);
        col[i] = json_number_value(v);
    }
    json_t *floor = json_object_get(json_object_get(rec->sb, "derived"), "bytes_moved");
    col[3] = json_is_number(floor) ? json_number_value(floor) : NAN;
    return 0;
}

/* One bar group per variant whose counters were collected; the figure compares variants, so all
 * those records must be at one parameter point, and each variant have one. */
static int fill_counters_lines(plot *p)
{
    record *with = calloc((size_t)p->nrecs, sizeof *with);
    char text[2048], example[2048];
    int nwith = 0, rc = 0;

    for (int i = 0; i < p->nrecs; i++)
        if (same_text(counters_text(&p->recs[i], "status"), "collected"))
            with[nwith++] = p->recs[i];
    if (nwith == 0) {
        describe_counter_statuses(p, text, sizeof text);
        rc = sb_fail("no record in %s has hardware counters (status: %s); run stagebench run "
                     "with --metrics default on a GPU", p->inputs, text);
    } else if (varying_params(with, nwith, NULL, text, sizeof text) > 0) {
        where_example(&with[0], text, example, sizeof example);
        rc = sb_fail("%s: the records with hardware counters differ in %s, and a bar chart has "
                     "one value per variant: keep one point with --where (e.g. --where %s)",
                     p->inputs, text, example);
    }
    for (int i = 0; rc == 0 && i < p->nlines; i++) {
        const record *found = only_record_of(with, nwith, &p->lines[i],
                                             "with hardware counters for one variant", &rc);
        point pt = {.col = {0}};
        if (found && (rc = counters_bars(found, pt.col)) == 0)
            append_point(&p->lines[i], &pt);
    }
    free(with);
    if (rc != 0)
        return -1;
    p->ncols = 4;
    snprintf(p->xlabel, sizeof p->xlabel, "variant");
    snprintf(p->ylabel, sizeof p->ylabel, "hardware counters");
    snprintf(p->columns, sizeof p->columns,
             "dram_pct_peak occupancy_pct dram_bytes bytes_moved (NaN: not counted)");
    snprintf(p->what, sizeof p->what, "hardware counters per variant");
    return 0;
}

/* ---- Output ------------------------------------------------------------------------------- */

/* Variants without points (no baseline at their x, no series, no counters) have nothing to
 * draw. */
static int drop_empty_lines(plot *p)
{
    int kept = 0;
    for (int i = 0; i < p->nlines; i++) {
        if (p->lines[i].npoints > 0)
            p->lines[kept++] = p->lines[i];
        else
            free(p->lines[i].points);
    }
    p->nlines = kept;
    if (kept == 0 && p->req->kind == SB_PLOT_SPEEDUP)
        return sb_fail("%s: no variant has a time at a %s where the baseline %s has one: "
                       "run them at the same points", p->inputs, p->x_name, p->req->baseline);
    if (kept == 0)
        return sb_fail("%s: the series %s has no points", p->inputs, p->req->series);
    return 0;
}

/* What is to be read with care (sb_record_caution): the points of a time or speed-up figure
 * (their caution column), or the records a data figure's script reads. Series and counters
 * figures show no times: none. */
static void count_cautions(plot *p)
{
    p->cautions = p->caution_of = 0;
    if (p->req->kind == SB_PLOT_DATA) {
        for (int i = 0; i < p->nrecs; i++)
            p->cautions += sb_record_caution(p->recs[i].sb);
        p->caution_of = p->nrecs;
        return;
    }
    if (p->req->kind != SB_PLOT_TIME && p->req->kind != SB_PLOT_SPEEDUP)
        return;
    for (int i = 0; i < p->nlines; i++)
        for (int j = 0; j < p->lines[i].npoints; j++)
            p->cautions += p->lines[i].points[j].col[4] > 0;
    for (int i = 0; i < p->nlines; i++)
        p->caution_of += p->lines[i].npoints;
}

/* The workload leads the default title; a --where filter ends it. */
static void finish_title(plot *p)
{
    const sb_plot_request *r = p->req;
    const char *workload = json_string_value(json_object_get(p->recs[0].sb, "workload"));

    if (r->title)
        snprintf(p->title, sizeof p->title, "%s", r->title);
    else
        snprintf(p->title, sizeof p->title, "%s: %s%s%s%s", workload ? workload : "?", p->what,
                 r->where ? " (" : "", r->where ? r->where : "", r->where ? ")" : "");
}

/* One gnuplot data block per line, in line order: `index i` in a script is lines[i]. */
static int write_data(const plot *p, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    if (!f)
        return sb_fail("cannot write %s: %s", path, strerror(errno));
    fprintf(f, "# stagebench plot: %s\n# from: %s\n", p->title, p->inputs);
    fprintf(f, "# one block per variant (gnuplot index 0..%d); columns: %s\n", p->nlines - 1,
            p->columns);
    for (int i = 0; i < p->nlines; i++) {
        const line *l = &p->lines[i];
        fprintf(f, "%s# index %d: %s\n", i ? "\n\n" : "", i, l->label);
        for (int j = 0; j < l->npoints; j++)
            for (int c = 0; c < p->ncols; c++)
                fprintf(f, "%.10g%c", l->points[j].col[c], c + 1 < p->ncols ? ' ' : '\n');
    }
    fclose(f);
    int rc = sb_write_atomic(path, text, len);
    free(text);
    return rc;
}

/* A gnuplot string: single quotes, where '' is a quote. */
static void gp_string(FILE *f, const char *value)
{
    fputc('\'', f);
    for (const char *c = value; *c; c++) {
        if (*c == '\'')
            fputc('\'', f);
        fputc(*c == '\n' ? ' ' : *c, f);
    }
    fputc('\'', f);
}

static void gp_set(FILE *f, const char *name, const char *value)
{
    fprintf(f, "%s = ", name);
    gp_string(f, value);
    fputs("; ", f);
}

/* The CSV view beside a records file, named as sb_records_open names it: X.json and its
 * committed compressed copy X.json.xz -> X.csv. */
static void csv_path(const char *json, char *out, size_t cap)
{
    sb_records_sibling(json, ".csv", out, cap);
}

/* One word of a list: "a" "b"; gnuplot's word() keeps a double-quoted word whole, spaces and
 * all (paths with a double quote in them do not survive). */
static void gp_word(FILE *f, const char *item, int first)
{
    fprintf(f, "%s\"%s\"", first ? "" : " ", item);
}

/* A committed folder keeps its records' CSV views in extras.tar.xz beside them: input i's view
 * (name: X.csv) is unpacked into a temporary folder of the plot's own, never into the records'
 * folder, and its path written to out. 0, or -1 when tar or the member is missing. */
static int csv_from_extras(plot *p, int i, const char *extras, const char *name, char *out,
                           size_t cap)
{
    char tar[4096], dir[4200], err[512];
    if (find_program("tar", tar, sizeof tar) != 0)
        return -1;
    if (!p->csv_tmp[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(p->csv_tmp, sizeof p->csv_tmp, "%s/stagebench-csv-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(p->csv_tmp)) {
            p->csv_tmp[0] = '\0';
            return -1;
        }
    }
    /* a folder per input: two folders' views share their names (fig5.csv of two GPUs) */
    snprintf(dir, sizeof dir, "%s/%d", p->csv_tmp, i);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return -1;
    char *argv[] = {"tar", "-xJf", (char *)extras, "-C", dir, (char *)name, NULL};
    if (run_program(tar, argv, err, sizeof err) != 0)
        return -1;
    if (snprintf(out, cap, "%s/%s", dir, name) >= (int)cap)
        return -1;
    return access(out, R_OK);
}

/* The CSV views unpacked by csv_from_extras, and their folders, removed. */
static void remove_csv_tmp(plot *p)
{
    if (!p->csv_tmp[0])
        return;
    for (int i = 0; i < p->req->ninputs; i++) {
        char path[4096], file[8400], dir[4200];
        csv_path(p->req->inputs[i], path, sizeof path);
        const char *slash = strrchr(path, '/');
        snprintf(dir, sizeof dir, "%s/%d", p->csv_tmp, i);
        snprintf(file, sizeof file, "%s/%s", dir, slash ? slash + 1 : path);
        unlink(file);
        rmdir(dir);
    }
    rmdir(p->csv_tmp);
}

/* DATA: every records file's CSV view, which the script reads: beside the records, or else in the
 * folder's extras.tar.xz (unpacked elsewhere, for this figure only). */
static int find_csv_files(plot *p)
{
    size_t len;
    FILE *f = open_memstream(&p->csvfiles, &len);
    if (!f)
        return sb_fail("cannot list the CSV files: %s", strerror(errno));
    for (int i = 0; i < p->req->ninputs; i++) {
        char path[4096];
        csv_path(p->req->inputs[i], path, sizeof path);
        if (access(path, R_OK) != 0) {
            /* a folder under results/baselines/ keeps its CSV views in extras.tar.xz */
            char extras[4200], why[64], unpacked[4096];
            const char *slash = strrchr(path, '/');
            snprintf(why, sizeof why, "%s", strerror(errno));
            snprintf(extras, sizeof extras, "%.*s/extras.tar.xz", slash ? (int)(slash - path) : 1,
                     slash ? path : ".");
            int has_extras = access(extras, R_OK) == 0;
            if (!has_extras || csv_from_extras(p, i, extras, slash ? slash + 1 : path, unpacked,
                                               sizeof unpacked) != 0) {
                fclose(f);
                if (has_extras)
                    return sb_fail("%s: %s, and not in %s either (the CSV view of %s)", path, why,
                                   extras, p->req->inputs[i]);
                return sb_fail("%s: %s (the CSV view is written beside %s)", path, why,
                               p->req->inputs[i]);
            }
            snprintf(path, sizeof path, "%s", unpacked);
        }
        if (i == 0)
            snprintf(p->first_csv, sizeof p->first_csv, "%s", path);
        gp_word(f, path, i == 0);
    }
    fclose(f);
    return 0;
}

/* 1 + the number of variants whose first line comes before the first line of line i's. */
static int variant_rank(const plot *p, int i)
{
    const line *first = find_line(p, p->lines[i].variant, NULL);
    int rank = 1;
    for (const line *l = p->lines; l < first; l++)
        rank += find_line(p, l->variant, NULL) == l;
    return rank;
}

/* The colours of the time and speed-up figures' lines, by colour index (a variant's with several
 * machines' records, else a line's): gnuplot's 8 default line colours (figures of up to 8 lines
 * look as they did), then 12 more, so that no two of the first 20 variants share a colour
 * (gnuplot's own repeat from the ninth); past 20 they repeat. */
static const char *const palette[] = {
    "#9400d3", "#009e73", "#56b4e9", "#e69f00", "#f0e442", "#0072b2", "#e51e10", "#000000",
    "#8b4513", "#ff69b4", "#808080", "#00ced1", "#006400", "#000080", "#800000", "#9acd32",
    "#ff00ff", "#4682b4", "#bdb76b", "#ff7f50"};
#define NPALETTE ((int)(sizeof palette / sizeof palette[0]))

/* The -e commands that give a script its data, labels and names, and let a figure script
 * `load "time.gp"` from beside itself or from the generic scripts' directory. */
static char *gnuplot_variables(const plot *p, const char *script, const char *data_path)
{
    char names[4096] = "", script_dir[4096];
    size_t used = 0, len;
    char *text = NULL;
    FILE *f = open_memstream(&text, &len);

    if (!f)
        return NULL;
    for (int i = 0; i < p->nlines && used < sizeof names; i++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? " " : "",
                                 p->lines[i].label);
    /* A line's colour and dash: one colour per variant, one dash per machine (records of one
     * machine: a colour per line, all solid). colors holds the colour's index (for a point
     * type), rgbcolors the colour itself, from the palette above. */
    char colors[1024] = "", dashes[1024] = "", rgbcolors[4096] = "";
    size_t cused = 0, dused = 0, rused = 0;
    for (int i = 0; i < p->nlines && cused < sizeof colors && dused < sizeof dashes &&
                    rused < sizeof rgbcolors;
         i++) {
        int dash = 0, color = p->by_machine ? variant_rank(p, i) : i + 1;
        while (p->lines[i].machine && strcmp(p->machines[dash], p->lines[i].machine) != 0)
            dash++;
        cused += (size_t)snprintf(colors + cused, sizeof colors - cused, " %d", color);
        dused += (size_t)snprintf(dashes + dused, sizeof dashes - dused, " %d", dash + 1);
        rused += (size_t)snprintf(rgbcolors + rused, sizeof rgbcolors - rused, " %s",
                                  palette[(color - 1) % NPALETTE]);
    }
    snprintf(script_dir, sizeof script_dir, "%s", script);
    char *slash = strrchr(script_dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(script_dir, sizeof script_dir, ".");
    gp_set(f, "datafile", data_path);
    gp_set(f, "outbase", p->req->out_prefix);
    gp_set(f, "title", p->title);
    gp_set(f, "names", names);
    gp_set(f, "colors", colors);
    gp_set(f, "rgbcolors", rgbcolors);
    gp_set(f, "dashes", dashes);
    if (p->req->kind == SB_PLOT_DATA) {
        gp_set(f, "csvfiles", p->csvfiles);
        fputs("dumpfiles = '", f);
        for (int i = 0; i < p->req->ndumps; i++)
            gp_word(f, p->req->dumps[i], i == 0);
        fprintf(f, "'; dumpcount = %d; ", p->req->ndumps);
    } else {
        gp_set(f, "xlabel", p->xlabel);
        gp_set(f, "ylabel", p->ylabel);
    }
    /* What to read with care: the key's words for ringed points (time.gp, speedup.gp), and a
     * note at the figure's foot that every script shows (a label the scripts leave alone). */
    char caution[256], note[512];
    snprintf(caution, sizeof caution, "† one sample, or noise > %g %%: read with care",
             100 * SB_CAUTION_NOISE);
    snprintf(note, sizeof note, "† %d of %d %s: one sample, or noise (stdev/mean) above %g %%: "
             "read with care", p->cautions, p->caution_of,
             p->req->kind == SB_PLOT_DATA ? "records" : "points", 100 * SB_CAUTION_NOISE);
    gp_set(f, "caution", caution);
    gp_set(f, "caution_note", note);
    fprintf(f, "cautions = %d; ", p->cautions);
    /* the note below the x axis's label: a wider bottom margin than gnuplot's own (3 lines) */
    if (p->cautions > 0)
        fputs("set label 990 caution_note at screen 0.01, 0.015 left front font \",9\"; "
              "set bmargin 5; ", f);
    /* figure scripts keep a title the user gave (--title, a study's title=) */
    fprintf(f, "title_given = %d; count = %d; set loadpath ", p->req->title != NULL, p->nlines);
    gp_string(f, script_dir);
    fputc(' ', f);
    gp_string(f, sb_plots_dir());
    fclose(f);
    return text;
}

static int find_program(const char *name, char *out, size_t cap)
{
    const char *path = getenv("PATH");
    for (const char *s = path ? path : "/usr/bin:/bin";;) {
        size_t n = strcspn(s, ":");
        snprintf(out, cap, "%.*s/%s", (int)n, n ? s : ".", name);
        if (access(out, X_OK) == 0)
            return 0;
        if (!s[n])
            return -1;
        s += n + 1;
    }
}

/* gnuplot stops at the first error and prints it last; lines before it are the offending
 * command with a caret, or warnings. */
static const char *last_line(char *text)
{
    char *end = text + strlen(text);
    while (end > text && (end[-1] == '\n' || end[-1] == ' '))
        *--end = '\0';
    char *start = end;
    while (start > text && start[-1] != '\n')
        start--;
    return start;
}

/* Runs `gnuplot -e <variables> <script>`; returns its exit status (-1 if it could not run),
 * with its stderr in err. */
static int run_program(const char *program, char *const argv[], char *err, size_t cap)
{
    int fds[2];
    size_t used = 0;
    ssize_t n;
    char discard[4096];

    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        execv(program, argv);
        _exit(127);
    }
    close(fds[1]);
    /* Read to the end even past cap, so that gnuplot never blocks on a full pipe. */
    while ((n = read(fds[0], used + 1 < cap ? err + used : discard,
                     used + 1 < cap ? cap - 1 - used : sizeof discard)) != 0) {
        if (n < 0 && errno != EINTR)
            break;
        if (n > 0 && used + 1 < cap)
            used += (size_t)n;
    }
    err[used] = '\0';
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int check_output(const char *script, const char *outbase, const char *ext)
{
    char path[4096];
    struct stat st;

    snprintf(path, sizeof path, "%s.%s", outbase, ext);
    if (stat(path, &st) != 0 || st.st_size == 0)
        return sb_fail("gnuplot script %s wrote no %s (a script writes outbase.'.png' and "
                       "outbase.'.svg')", script, path);
    return 0;
}

int sb_run_gnuplot(const char *variables, const char *script, const char *where)
{
    char gnuplot[4096], err[8192];
    if (find_program("gnuplot", gnuplot, sizeof gnuplot) != 0) {
        sb_fail("gnuplot is not installed: install gnuplot-nox (bench/scripts/setup-deps does)");
        return SB_REFUSED;
    }
    if (access(script, R_OK) != 0)
        return sb_fail("gnuplot script %s: %s (%s)", script, strerror(errno), where);
    char *argv[] = {"gnuplot", "-e", (char *)variables, (char *)script, NULL};
    int status = run_program(gnuplot, argv, err, sizeof err);
    if (status < 0)
        return sb_fail("cannot run %s: %s", gnuplot, strerror(errno));
    const char *message = last_line(err);
    if (status != 0 && *message)
        return sb_fail("gnuplot failed on %s: %s", script, message);
    if (status != 0)
        return sb_fail("gnuplot failed on %s with exit status %d and no message", script,
                       status);
    return 0;
}

static int draw(const plot *p, const char *script, const char *data_path)
{
    const char *outbase = p->req->out_prefix;
    char path[4096];
    char *variables = gnuplot_variables(p, script, data_path);
    if (!variables)
        return sb_fail("cannot run gnuplot: %s", strerror(errno));
    /* Old figures must not pass the check below when gnuplot writes nothing. */
    snprintf(path, sizeof path, "%s.png", outbase);
    unlink(path);
    snprintf(path, sizeof path, "%s.svg", outbase);
    unlink(path);
    int rc = sb_run_gnuplot(variables, script, "--script names a file; $STAGEBENCH_PLOTS the "
                            "directory of time.gp, speedup.gp, series.gp and counters.gp");
    free(variables);
    if (rc == SB_REFUSED) /* no gnuplot: everything else was ready */
        return SB_REFUSED;
    if (rc != 0 || check_output(script, outbase, "png") != 0 ||
        check_output(script, outbase, "svg") != 0)
        return -1;
    return 0;
}

static int fill_lines(plot *p)
{
    switch (p->req->kind) {
    case SB_PLOT_SERIES:
        return fill_series_lines(p);
    case SB_PLOT_COUNTERS:
        return fill_counters_lines(p);
    case SB_PLOT_DATA: /* its script reads the files themselves */
        return 0;
    case SB_PLOT_TIME:
    case SB_PLOT_SPEEDUP:
        break;
    }
    return fill_time_lines(p);
}

int sb_plot(const sb_plot_request *r)
{
    plot p = {.req = r};
    char data_path[4096], script[4096];
    int rc = -1;

    describe_inputs(&p);
    if (r->ninputs < 1)
        return sb_fail("no records file to plot");
    if (r->kind == SB_PLOT_SPEEDUP && !r->baseline)
        return sb_fail("%s: a speed-up plot needs --baseline VARIANT (e.g. cpu-reference)",
                       p.inputs);
    if (r->kind == SB_PLOT_SERIES && !r->series)
        return sb_fail("%s: a series plot needs --series NAME (e.g. "
                       "device_bytes_by_generation)", p.inputs);
    if (r->kind == SB_PLOT_DATA && !r->script)
        return sb_fail("%s: a data figure needs its own script (script=FILE.gp)", p.inputs);
    if (r->where && check_where(r->where) != 0)
        return -1;
    snprintf(data_path, sizeof data_path, "%s.dat", r->out_prefix);
    if (r->script)
        snprintf(script, sizeof script, "%s", r->script);
    else
        snprintf(script, sizeof script, "%s/%s", sb_plots_dir(), kind_scripts[r->kind]);

    if (load_records(&p) != 0 || order_lines(&p) != 0)
        goto done;
    if (r->kind == SB_PLOT_DATA) { /* the script reads the files: no data blocks */
        count_cautions(&p);
        snprintf(p.what, sizeof p.what, "figure from %s", p.inputs);
        finish_title(&p);
        if (find_csv_files(&p) == 0)
            rc = draw(&p, script, p.first_csv);
        goto done;
    }
    if (fill_lines(&p) != 0 || drop_empty_lines(&p) != 0)
        goto done;
    count_cautions(&p);
    finish_title(&p);
    if (write_data(&p, data_path) == 0)
        rc = draw(&p, script, data_path);

done:
    remove_csv_tmp(&p);
    free(p.csvfiles);
    for (int i = 0; i < p.nlines; i++)
        free(p.lines[i].points);
    free(p.lines);
    free(p.recs);
    for (int i = 0; i < p.ndocs; i++)
        json_decref(p.docs[i]);
    free(p.docs);
    free(p.machines);
    return rc;
}
