/* stagebench gate: a suite measured with two builds in one session, their processes interleaved,
 * and decided benchmark by benchmark as SAME, SLOWER, FASTER or UNSURE (harness/gate.h);
 * `--replay DIR` decides again from the records such a run left, running nothing.
 *
 * DIR holds base/ and head/ (each process's records, NN-<workload>.rep<K>.json, then merged into
 * NN-<workload>.json), logs/ (each process's output), rounds.tsv (a row per process: when, how
 * long, how it ended, its SM clock and temperature), gate.json and summary.md. */
#include <dirent.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "../../cuda/base/error.h"
#include "../../harness/gate.h"
#include "../../harness/json.h"
#include "../../harness/repeat.h"
#include "../../harness/variant.h"
#include "commands.h"
#include "../run/runner.h"
#include "../run/suite.h"

#define BASE 0
#define HEAD 1
static const char *const side_names[2] = {"base", "head"};

/* A pair is flagged when either process ran throttled or off the session's SM clock by more
 * than this fraction. */
#define CLOCK_TOLERANCE 0.02
/* The slow-down every gated benchmark must be able to catch (issue: 3 %). */
#define CATCH_GOAL 0.03

/* One benchmark as one process's records file tells it. */
typedef struct measured {
    char name[512];
    int valid;
    double seconds; /* the process's median */
    int clock;      /* the record has the SM clock */
    double mhz_min, mhz_max, mhz_median, celsius; /* celsius: NAN where not recorded */
    int throttled;
} measured;

#define MAX_MEASURED 32

typedef struct gate_line {
    int suite_index; /* NN - 1 of its files */
    char workload[64];
    char *field[SB_SUITE_MAX_FIELDS];
    int n;
    int attempts; /* processes pairs started (files K) */
    int redo_left;
} gate_line;

typedef struct gate_args {
    const char *suite, *program[2], *out, *replay, *glob;
    sb_gate_options opt;
    int redo, quiet, decisions;
    double time_limit, process_timeout;
    char *extra[32];
    int nextra;
} gate_args;

typedef struct gate_ctx {
    gate_args *a;
    char dir[2048];
    gate_line lines[SB_GATE_MAX_LINES];
    int nlines;
    FILE *log; /* rounds.tsv */
    double started;
    double ref_mhz, hottest;
    int processes, redone, flagged_kept, stopped_at_limit, exhausted;
    char device[256], uuid[128], commit[2][128], first_date[64], last_date[64];
} gate_ctx;

/* Reads one process's records: its benchmarks (aggregates left out), and the session facts the
 * first file gives. 0 with *n = 0 when the file is missing (the process wrote nothing). */
static int read_process(gate_ctx *c, int side, const char *path, measured *m, int *n)
{
    *n = 0;
    FILE *probe = fopen(path, "rb");
    if (!probe)
        return 0;
    fclose(probe);
    json_t *doc = sb_json_load(path);
    if (!doc)
        return -1;
    json_t *ctx = json_object_get(doc, "context"), *sb = json_object_get(ctx, "stagebench");
    json_t *dev0 = json_array_get(json_object_get(sb, "devices"), 0);
    const char *commit = json_string_value(json_object_get(sb, "git_commit"));
    const char *date = json_string_value(json_object_get(ctx, "date"));
    if (commit && !c->commit[side][0])
        snprintf(c->commit[side], sizeof c->commit[side], "%s", commit);
    if (side == HEAD && !c->device[0] && json_string_value(json_object_get(dev0, "name"))) {
        snprintf(c->device, sizeof c->device, "%s",
                 json_string_value(json_object_get(dev0, "name")));
        const char *uuid = json_string_value(json_object_get(dev0, "uuid"));
        snprintf(c->uuid, sizeof c->uuid, "%s", uuid ? uuid : "");
    }
    if (date) {
        if (!c->first_date[0] || strcmp(date, c->first_date) < 0)
            snprintf(c->first_date, sizeof c->first_date, "%s", date);
        if (strcmp(date, c->last_date) > 0)
            snprintf(c->last_date, sizeof c->last_date, "%s", date);
    }
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(doc, "benchmarks"), i, e) {
        const char *name = json_string_value(json_object_get(e, "name"));
        const char *run_type = json_string_value(json_object_get(e, "run_type"));
        if (!name || (run_type && strcmp(run_type, "iteration") != 0) || *n == MAX_MEASURED)
            continue;
        if (c->a->glob && fnmatch(c->a->glob, name, 0) != 0)
            continue;
        json_t *s = json_object_get(e, "stagebench"), *clock = json_object_get(s, "clock");
        const char *status = json_string_value(json_object_get(s, "status"));
        measured *b = &m[(*n)++];
        memset(b, 0, sizeof *b);
        snprintf(b->name, sizeof b->name, "%s", name);
        b->valid = status ? strcmp(status, "valid") == 0
                          : !json_is_true(json_object_get(e, "error_occurred"));
        json_t *median = json_object_get(json_object_get(s, "time"), "median");
        b->seconds = json_is_number(median) ? json_number_value(median) : 0;
        b->clock = json_is_true(json_object_get(clock, "available"));
        b->mhz_min = json_number_value(json_object_get(clock, "sm_mhz_min"));
        b->mhz_max = json_number_value(json_object_get(clock, "sm_mhz_max"));
        b->mhz_median = json_number_value(json_object_get(clock, "sm_mhz_median"));
        json_t *celsius = json_object_get(clock, "temperature_c_max");
        b->celsius = json_is_number(celsius) ? json_number_value(celsius) : NAN;
        b->throttled = (int)json_integer_value(json_object_get(clock, "throttled_samples"));
        if (!(b->seconds > 0))
            b->valid = 0;
    }
    json_decref(doc);
    return 0;
}

/* Why this process's benchmark must not be compared silently ("" when it may be). */
static const char *hygiene(gate_ctx *c, const measured *b)
{
    if (!b->valid)
        return "";
    if (!isnan(b->celsius) && b->celsius > c->hottest)
        c->hottest = b->celsius;
    if (b->throttled > 0)
        return "throttled";
    if (!b->clock || !(b->mhz_median > 0))
        return "";
    if (c->ref_mhz == 0)
        c->ref_mhz = b->mhz_median; /* the session's clock: its first process's */
    if (b->mhz_min < c->ref_mhz * (1 - CLOCK_TOLERANCE) ||
        b->mhz_max > c->ref_mhz * (1 + CLOCK_TOLERANCE))
        return "off the session's SM clock";
    return "";
}

static void utc_now(char *out, size_t cap)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void process_path(const gate_ctx *c, int side, const gate_line *l, int attempt,
                         const char *what, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s/%02d-%s.rep%d.%s", c->dir, side == 2 ? "logs" : side_names[side],
             l->suite_index + 1, l->workload, attempt, what);
}

/* Runs one process of line l with one build; its records go to `path`. A refusal (exit 2) of
 * the head's build stops the gate; the base's leaves its benchmarks without a base (a line
 * the base does not know). */
static int run_process(gate_ctx *c, int side, gate_line *l, int attempt, int k, int order,
                       const char *path)
{
    char *argv[SB_SUITE_MAX_FIELDS + 48], log[4096], when[32];
    int m = 0;
    argv[m++] = (char *)c->a->program[side];
    argv[m++] = "run";
    for (int i = 0; i < l->n; i++)
        argv[m++] = l->field[i];
    for (int i = 0; i < c->a->nextra; i++)
        argv[m++] = c->a->extra[i];
    argv[m++] = "--out";
    argv[m++] = (char *)path;
    argv[m++] = "--quiet";
    argv[m] = NULL;
    process_path(c, 2, l, attempt, side == BASE ? "base.log" : "head.log", log, sizeof log);
    if (sb_make_parent_dirs(log) != 0 || sb_make_parent_dirs(path) != 0)
        return -1;
    utc_now(when, sizeof when);
    sb_child_end end;
    if (sb_run_isolated(c->a->program[side], argv, NULL, NULL, log, c->a->process_timeout,
                        &end) != 0)
        return -1;
    c->processes++;
    char how[64];
    if (end.timed_out)
        snprintf(how, sizeof how, "killed at the %g s limit", c->a->process_timeout);
    else if (end.signal)
        snprintf(how, sizeof how, "%s", sb_signal_name(end.signal));
    else
        snprintf(how, sizeof how, "exit %d", end.status);
    fprintf(c->log, "%d\t%s\t%d\t%d\t%s\t%d\t%s\t%.3f\t%s\t%s\n", l->suite_index + 1,
            l->workload, k, attempt, side_names[side], order, when, end.seconds, how, path);
    fflush(c->log);
    if (end.exited && end.status == 2 && side == HEAD)
        return sb_fail("the head build refused suite line %d (%s): its message is in %s",
                       l->suite_index + 1, l->workload, log);
    if (!c->a->quiet)
        fprintf(stderr, "gate: line %d %s round %d: %s %s (%.1f s)\n", l->suite_index + 1,
                l->workload, k + 1, side_names[side], how, end.seconds);
    return 0;
}

static const measured *find_measured(const measured *m, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(m[i].name, name) == 0)
            return &m[i];
    return NULL;
}

/* Round k of a line: both builds (A B on even rounds, B A on odd), then a pair per benchmark.
 * A pair that either process ran throttled or off the clock is measured again, up to the
 * line's redo budget; past it, it is kept and counted as flagged. In a replay the processes'
 * files are read instead, in the order they were made. */
static int gate_round(void *vctx, sb_gate *g, int line, int k)
{
    gate_ctx *c = vctx;
    gate_line *l = &c->lines[line];
    if (c->a->time_limit > 0 && !c->a->replay && sb_now() - c->started > c->a->time_limit) {
        c->stopped_at_limit = 1;
        return 0; /* no more rounds: the decision takes what it has */
    }
    for (;;) {
        int attempt = l->attempts++;
        char path[2][4096];
        for (int side = 0; side < 2; side++)
            process_path(c, side, l, attempt, "json", path[side], sizeof path[side]);
        if (c->a->replay) {
            FILE *f = fopen(path[HEAD], "rb");
            if (!f) {
                c->exhausted = 1;
                return sb_fail("%s: no round %d of line %d (%s): the records end there",
                               c->dir, attempt + 1, l->suite_index + 1, l->workload);
            }
            fclose(f);
        } else {
            for (int o = 0; o < 2; o++) {
                int side = (k % 2 == 0) == (o == 0) ? BASE : HEAD;
                if (run_process(c, side, l, attempt, k, o, path[side]) != 0)
                    return -1;
            }
        }
        measured m[2][MAX_MEASURED];
        int n[2];
        for (int side = 0; side < 2; side++)
            if (read_process(c, side, path[side], m[side], &n[side]) != 0)
                return -1;
        int flagged = 0;
        for (int side = 0; side < 2; side++)
            for (int i = 0; i < n[side]; i++)
                flagged |= hygiene(c, &m[side][i])[0] != '\0';
        if (flagged && l->redo_left > 0) {
            l->redo_left--;
            c->redone++;
            continue;
        }
        c->flagged_kept += flagged;
        /* every benchmark either side measured: one missing from a side is not valid there */
        for (int side = 0; side < 2; side++) {
            for (int i = 0; i < n[side]; i++) {
                const measured *b = &m[side][i];
                if (side == HEAD && find_measured(m[BASE], n[BASE], b->name))
                    continue;
                const measured *other = find_measured(m[!side], n[!side], b->name);
                const measured *base = side == BASE ? b : other, *head = side == HEAD ? b : other;
                sb_gate_bench *gb = sb_gate_bench_of(g, line, b->name);
                if (!gb || sb_gate_add_pair(gb, base && base->valid ? base->seconds : 0,
                                            head && head->valid ? head->seconds : 0,
                                            flagged) != 0)
                    return -1;
            }
        }
        return 0;
    }
}

/* "12.35 ms" */
static void format_time(double seconds, char *out, size_t cap)
{
    sb_format_seconds(seconds, out, (unsigned)cap);
}

static double median_of(const double *x, int n)
{
    double s[SB_GATE_MAX_ROUNDS];
    memcpy(s, x, (size_t)n * sizeof *s);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && s[j - 1] > s[j]; j--) {
            double t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static int count_verdict(const sb_gate *g, sb_gate_verdict v)
{
    int n = 0;
    for (int i = 0; i < g->nbenches; i++)
        n += g->bench[i].verdict == v;
    return n;
}

static void write_summary(FILE *out, const gate_ctx *c, const sb_gate *g, const sb_suite *s)
{
    const sb_gate_options *o = &g->opt;
    int m = 0;
    for (int i = 0; i < g->nbenches; i++)
        m += g->bench[i].verdict <= SB_GATE_UNSURE;
    fprintf(out, "## stagebench regression gate: %s\n\n", c->device[0] ? c->device : "no device");
    fprintf(out, "Base `%s` against head `%s`, one session on %s%s%s, %s to %s: each suite line "
            "run with both builds in turn, a process each (A B, then B A, ...).\n\n",
            c->commit[BASE][0] ? c->commit[BASE] : "?", c->commit[HEAD][0] ? c->commit[HEAD] : "?",
            c->device[0] ? c->device : "?", c->uuid[0] ? " " : "", c->uuid, c->first_date,
            c->last_date);
    fprintf(out, "| benchmark | base | head | ratio | interval | rounds | mde | p (t, KS) | "
                 "flagged | verdict |\n|---|---:|---:|---:|---|---:|---:|---:|---:|---|\n");
    for (int i = 0; i < g->nbenches; i++) {
        const sb_gate_bench *b = &g->bench[i];
        char base[32] = "-", head[32] = "-", ratio[32] = "-", interval[48] = "-", mde[32] = "-";
        char p[48] = "-";
        int flagged = 0;
        for (int k = 0; k < b->n; k++)
            flagged += b->flagged[k];
        if (b->n > 0) {
            format_time(median_of(b->base, b->n), base, sizeof base);
            format_time(median_of(b->head, b->n), head, sizeof head);
        }
        if (b->verdict <= SB_GATE_UNSURE) {
            snprintf(ratio, sizeof ratio, "%.4fx", b->ratio);
            snprintf(interval, sizeof interval, "%.4f-%.4fx", b->lo, b->hi);
            snprintf(mde, sizeof mde, isfinite(b->mde) ? "%.1f%%" : "inf", 100 * b->mde);
            snprintf(p, sizeof p, "%.2g (%s)", b->p_shape, b->p_ks < b->p_t ? "KS" : "t");
        }
        int bold = b->verdict == SB_GATE_SLOWER || b->verdict == SB_GATE_NOW_INVALID;
        fprintf(out, "| `%s` | %s | %s | %s | %s | %d | %s | %s | %d | %s%s%s%s%s |\n", b->name,
                base, head, ratio, interval, b->n, mde, p, flagged, bold ? "**" : "",
                sb_gate_verdict_name(b->verdict), bold ? "**" : "", b->why[0] ? ": " : "",
                b->why);
    }
    fprintf(out, "\n%d slower, %d faster, %d same, %d unsure, %d now-invalid, %d not-comparable.\n\n",
            count_verdict(g, SB_GATE_SLOWER), count_verdict(g, SB_GATE_FASTER),
            count_verdict(g, SB_GATE_SAME), count_verdict(g, SB_GATE_UNSURE),
            count_verdict(g, SB_GATE_NOW_INVALID), count_verdict(g, SB_GATE_NOT_COMPARABLE));
    if (o->family > m)
        m = o->family;
    double level = 1 - o->alpha / (m > 0 ? m : 1);
    fprintf(out, "- **Method:** ratio head / base, the geometric mean of the rounds' pairs; its "
            "interval at %.2f %% (family-wise %g over %d benchmarks). SLOWER: the whole interval "
            "above %.3fx; FASTER: below %.3fx; SAME: within %.3f-%.3fx and no change of shape; "
            "UNSURE otherwise. %d rounds first, %d more at a time while a line has an UNSURE "
            "benchmark, %d at most.\n", 100 * level, o->alpha, m, 1 + o->threshold,
            1 - o->threshold, 1 - o->same_within, 1 + o->same_within, o->rounds, o->step,
            o->max_rounds);
    fprintf(out, "- **p (t, KS):** the smaller Holm-adjusted p of the paired t test and the "
            "Kolmogorov-Smirnov test (the shape), adjusted again over the benchmarks.\n");
    fprintf(out, "- **mde:** the smallest slow-down this run's noise lets the gate call SLOWER "
            "with %.0f %% power by round %d.", 100 * o->power, o->max_rounds);
    int cannot = 0;
    for (int i = 0; i < g->nbenches; i++)
        cannot += g->bench[i].verdict <= SB_GATE_UNSURE && !(g->bench[i].mde <= CATCH_GOAL);
    if (cannot)
        fprintf(out, " %d benchmark%s cannot catch %.0f %% this run:", cannot,
                cannot > 1 ? "s" : "", 100 * CATCH_GOAL);
    for (int i = 0; i < g->nbenches; i++)
        if (g->bench[i].verdict <= SB_GATE_UNSURE && !(g->bench[i].mde <= CATCH_GOAL))
            fprintf(out, " `%s`", g->bench[i].name);
    fprintf(out, "\n");
    fprintf(out, "- **Hygiene:** %d processes", c->processes);
    if (c->ref_mhz > 0)
        fprintf(out, " at a session SM clock of %.0f MHz", c->ref_mhz);
    if (c->hottest > 0)
        fprintf(out, ", hottest %.0f C", c->hottest);
    fprintf(out, "; %d rounds measured again (a process throttled or off that clock by more than "
            "%.0f %%), %d such pairs kept past the redo budget (the flagged column).\n",
            c->redone, 100 * CLOCK_TOLERANCE, c->flagged_kept);
    if (c->stopped_at_limit)
        fprintf(out, "- **Stopped at the time limit** (%g s): UNSURE benchmarks got no more "
                "rounds.\n", c->a->time_limit);
    for (int i = 0; s && i < s->n_not_gated; i++)
        fprintf(out, "- **Not gated:** `%s`: %s\n", s->not_gated[i].what, s->not_gated[i].why);
    if (count_verdict(g, SB_GATE_UNSURE) > 0)
        fprintf(out, "- **UNSURE** benchmarks neither pass nor fail the gate: their change is "
                "near the threshold or their noise too large for %d rounds (raise "
                "--max-rounds, or look at their records).\n", o->max_rounds);
    fprintf(out, "\n**Verdict: %s.**\n", sb_gate_failed(g) ? "regression" : "no regression");
}

static json_t *gate_json(const gate_ctx *c, const sb_gate *g)
{
    const sb_gate_options *o = &g->opt;
    json_t *benches = json_array();
    for (int i = 0; i < g->nbenches; i++) {
        const sb_gate_bench *b = &g->bench[i];
        json_t *base = json_array(), *head = json_array(), *flagged = json_array();
        for (int k = 0; k < b->n; k++) {
            json_array_append_new(base, json_real(b->base[k]));
            json_array_append_new(head, json_real(b->head[k]));
            json_array_append_new(flagged, json_boolean(b->flagged[k]));
        }
        int decided = b->verdict <= SB_GATE_UNSURE;
        json_array_append_new(
            benches,
            json_pack("{s:s, s:i, s:s, s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
                      "s:b, s:o, s:o, s:o}",
                      "name", b->name, "line", c->lines[b->line].suite_index + 1, "verdict",
                      sb_gate_verdict_name(b->verdict), "why", b->why, "rounds", b->n, "ratio",
                      decided ? json_real(b->ratio) : json_null(), "lo",
                      decided ? json_real(b->lo) : json_null(), "hi",
                      decided ? json_real(b->hi) : json_null(), "sd",
                      decided ? json_real(b->sd) : json_null(), "p_t",
                      decided ? json_real(b->p_t) : json_null(), "p_ks",
                      decided ? json_real(b->p_ks) : json_null(), "p_shape",
                      decided ? json_real(b->p_shape) : json_null(), "mde",
                      decided && isfinite(b->mde) ? json_real(b->mde) : json_null(),
                      "shape_changed", b->shape_changed, "base_seconds", base, "head_seconds",
                      head, "flagged", flagged));
    }
    return json_pack(
        "{s:i, s:s, s:s, s:s, s:{s:s, s:s}, s:s, s:s, s:{s:f, s:f, s:f, s:f, s:i, s:i, s:i}, "
        "s:{s:i, s:i, s:i, s:f, s:f, s:b}, s:b, s:o}",
        "stagebench_gate", 1, "device", c->device, "uuid", c->uuid, "suite",
        c->a->suite ? c->a->suite : "", "commits", "base", c->commit[BASE], "head",
        c->commit[HEAD], "first_process", c->first_date, "last_process", c->last_date,
        "options", "threshold", o->threshold, "same_within", o->same_within, "alpha", o->alpha,
        "power", o->power, "rounds", o->rounds, "step", o->step, "max_rounds", o->max_rounds,
        "session", "processes", c->processes, "redone", c->redone, "flagged_kept",
        c->flagged_kept, "sm_clock_mhz", c->ref_mhz, "hottest_c", c->hottest,
        "stopped_at_time_limit", c->stopped_at_limit, "failed", sb_gate_failed(g), "benchmarks",
        benches);
}

/* Each side's process records merged into NN-<workload>.json, as `stagebench suite` leaves
 * them (for compare, history and the baseline). */
static int merge_sides(const gate_ctx *c)
{
    for (int i = 0; i < c->nlines; i++) {
        const gate_line *l = &c->lines[i];
        for (int side = 0; side < 2 && l->attempts > 0; side++) {
            char (*paths)[4096] = malloc((size_t)l->attempts * sizeof *paths);
            const char **list = malloc((size_t)l->attempts * sizeof *list);
            char out[4096];
            if (!paths || !list) {
                free(paths);
                free(list);
                return sb_fail("out of host memory");
            }
            for (int k = 0; k < l->attempts; k++) {
                process_path(c, side, l, k, "json", paths[k], sizeof paths[k]);
                list[k] = paths[k];
            }
            snprintf(out, sizeof out, "%s/%s/%02d-%s.json", c->dir, side_names[side],
                     l->suite_index + 1, l->workload);
            int rc = sb_merge_repetitions(list, l->attempts, l->attempts, out);
            free(paths);
            free(list);
            if (rc < 0 && side == HEAD)
                return -1;
        }
    }
    return 0;
}

/* The line's fields, its --variant narrowed to the variants `glob` ("workload/variant/...")
 * can match; 0 when the glob leaves the line out. */
static int narrow_line(gate_line *l, const sb_suite_line *from, const char *glob)
{
    char wglob[256] = "*", vglob[256] = "*";
    if (glob) {
        const char *slash = strchr(glob, '/');
        snprintf(wglob, sizeof wglob, "%.*s", slash ? (int)(slash - glob) : (int)strlen(glob),
                 glob);
        if (slash) {
            const char *next = strchr(slash + 1, '/');
            snprintf(vglob, sizeof vglob, "%.*s",
                     next ? (int)(next - slash - 1) : (int)strlen(slash + 1), slash + 1);
        }
    }
    if (fnmatch(wglob, from->field[0], 0) != 0)
        return 0;
    l->n = 0;
    for (int i = 0; i < from->n; i++) {
        l->field[l->n] = strdup(from->field[i]);
        if (!l->field[l->n])
            return sb_fail("out of host memory");
        l->n++;
        if (strcmp(from->field[i], "--variant") != 0 || i + 1 >= from->n)
            continue;
        /* the listed variants the glob can match */
        char *kept = calloc(strlen(from->field[i + 1]) + 1, 1), *list = strdup(from->field[i + 1]);
        if (!kept || !list) {
            free(kept);
            free(list);
            return sb_fail("out of host memory");
        }
        for (char *save = NULL, *v = strtok_r(list, ",", &save); v; v = strtok_r(NULL, ",", &save))
            if (fnmatch(vglob, v, 0) == 0)
                strcat(strcat(kept, kept[0] ? "," : ""), v);
        free(list);
        if (!kept[0]) {
            free(kept);
            return 0;
        }
        l->field[l->n++] = kept;
        i++;
    }
    snprintf(l->workload, sizeof l->workload, "%s", from->field[0]);
    return 1;
}

static void free_lines(gate_ctx *c)
{
    for (int i = 0; i < c->nlines; i++)
        for (int k = 0; k < c->lines[i].n; k++)
            free(c->lines[i].field[k]);
}

/* A replay's lines: the NN-<workload> of the head's process files. */
static int replay_lines(gate_ctx *c)
{
    char head[2100];
    snprintf(head, sizeof head, "%s/head", c->dir);
    DIR *d = opendir(head);
    if (!d)
        return sb_fail("%s: no head/ folder: give the folder a stagebench gate run wrote", c->dir);
    int seen[100] = {0};
    for (struct dirent *e; (e = readdir(d));) {
        int nn;
        char workload[64];
        if (sscanf(e->d_name, "%2d-%63[a-z0-9_-].rep", &nn, workload) != 2 || nn < 1 ||
            nn > 99 || seen[nn] || !strstr(e->d_name, ".rep0.json"))
            continue;
        char *dot = strchr(workload, '.');
        if (dot)
            *dot = '\0';
        seen[nn] = 1;
        if (c->nlines == SB_GATE_MAX_LINES)
            break;
        gate_line *l = &c->lines[c->nlines++];
        memset(l, 0, sizeof *l);
        l->suite_index = nn - 1;
        snprintf(l->workload, sizeof l->workload, "%s", workload);
    }
    closedir(d);
    if (c->nlines == 0)
        return sb_fail("%s/head: no process records (NN-<workload>.rep0.json)", c->dir);
    /* in the suite's order */
    for (int i = 1; i < c->nlines; i++)
        for (int j = i; j > 0 && c->lines[j - 1].suite_index > c->lines[j].suite_index; j--) {
            gate_line t = c->lines[j];
            c->lines[j] = c->lines[j - 1];
            c->lines[j - 1] = t;
        }
    return 0;
}

static int parse_number(const char *option, const char *text, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (*end || !(v >= lo && v <= hi))
        return sb_fail("%s must be a number from %g to %g; got '%s'", option, lo, hi, text);
    *out = v;
    return 0;
}

static const char usage[] =
    "usage: stagebench gate SUITE --base PROGRAM --head PROGRAM [--out DIR] [options]\n"
    "                           [run options]\n"
    "       stagebench gate --replay DIR [--decisions N] [options]\n"
    "\n"
    "Runs every line of SUITE (stagebench suite --help) with two builds of stagebench, the\n"
    "base's PROGRAM and the head's, in one session: round by round, each line once with each\n"
    "build, a process each, A B then B A. Each benchmark's pairs give the ratio head / base and\n"
    "its interval; a benchmark is SLOWER when the whole interval lies above 1 + threshold,\n"
    "FASTER below 1 - threshold, SAME within 1 +- same-within with no change of shape (KS), and\n"
    "UNSURE otherwise, which gives its line more rounds up to the cap. A round whose process ran\n"
    "throttled or off the session's SM clock is measured again (--redo times a line at most).\n"
    "Writes DIR (default results/runs/gate-<UTC time>/): base/ and head/ records, logs/,\n"
    "rounds.tsv, gate.json, summary.md (printed too).\n"
    "\n"
    "  --threshold X     SLOWER above 1 + X (default 0.01)\n"
    "  --same-within X   SAME within 1 +- X (default 0.02)\n"
    "  --alpha X         family-wise error over the benchmarks (default 0.05)\n"
    "  --rounds N        rounds before the first decision (default 6)\n"
    "  --step N          rounds added while UNSURE (default 3)\n"
    "  --max-rounds N    the cap (default 40)\n"
    "  --redo N          rounds a line may measure again for hygiene (default 3)\n"
    "  --benchmark GLOB  only the benchmarks GLOB matches (lines and --variant narrowed)\n"
    "  --family N        spread alpha over N benchmarks (default: those decided), e.g. the\n"
    "                    whole suite's count when --benchmark takes part of it\n"
    "  --time-limit S    start no round after S seconds (the decision takes what it has)\n"
    "  --process-timeout S  a process is killed after S seconds (default 600)\n"
    "  --replay DIR      decide from DIR's process records (a gate's), running nothing;\n"
    "                    with --out, replay.json and replay.md go there (DIR is not written)\n"
    "  --decisions N     with --replay: up to N decisions one after another over disjoint\n"
    "                    rounds, a JSON line each (the gate's proof)\n"
    "  --quiet           no line per process\n"
    "Other options go to every run (e.g. --warm --min-time 0.2). Exit status: 0 nothing\n"
    "regressed, 1 a benchmark SLOWER or NOW-INVALID, 2 an error.\n";

static int parse_args(int argc, char **argv, gate_args *a)
{
    a->opt = sb_gate_defaults();
    a->redo = 3;
    a->process_timeout = 600;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        double x = 0;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(usage, stdout);
            return 1;
        }
        if (!strcmp(arg, "--quiet")) {
            a->quiet = 1;
            continue;
        }
        static const char *const valued[] = {"--base", "--head", "--out", "--replay",
                                             "--benchmark", "--threshold", "--same-within",
                                             "--alpha", "--rounds", "--step", "--max-rounds",
                                             "--redo", "--time-limit", "--process-timeout",
                                             "--decisions", "--family"};
        int known = -1;
        for (int k = 0; k < (int)(sizeof valued / sizeof valued[0]); k++)
            if (!strcmp(arg, valued[k]))
                known = k;
        if (known >= 0 && !value)
            return sb_fail("%s needs a value (see stagebench gate --help)", arg);
        int rc = 0;
        switch (known) {
        case 0: a->program[BASE] = value; break;
        case 1: a->program[HEAD] = value; break;
        case 2: a->out = value; break;
        case 3: a->replay = value; break;
        case 4: a->glob = value; break;
        case 5: rc = parse_number(arg, value, 0, 0.99, &a->opt.threshold); break;
        case 6: rc = parse_number(arg, value, 0, 0.99, &a->opt.same_within); break;
        case 7: rc = parse_number(arg, value, 1e-6, 0.49, &a->opt.alpha); break;
        case 8: rc = parse_number(arg, value, 3, SB_GATE_MAX_ROUNDS, &x), a->opt.rounds = (int)x; break;
        case 9: rc = parse_number(arg, value, 1, SB_GATE_MAX_ROUNDS, &x), a->opt.step = (int)x; break;
        case 10: rc = parse_number(arg, value, 3, SB_GATE_MAX_ROUNDS, &x), a->opt.max_rounds = (int)x; break;
        case 11: rc = parse_number(arg, value, 0, 1000, &x), a->redo = (int)x; break;
        case 12: rc = parse_number(arg, value, 0, 1e7, &a->time_limit); break;
        case 13: rc = parse_number(arg, value, 1, 1e7, &a->process_timeout); break;
        case 14: rc = parse_number(arg, value, 1, 1e6, &x), a->decisions = (int)x; break;
        case 15: rc = parse_number(arg, value, 0, SB_GATE_MAX_BENCHES, &x), a->opt.family = (int)x; break;
        default:
            if (arg[0] != '-' && !a->suite) {
                a->suite = arg;
                continue;
            }
            if (arg[0] != '-' || a->nextra + 2 > 32)
                return sb_fail("unexpected argument '%s' (see stagebench gate --help)", arg);
            /* a run option: its value, if it has one, is the next word unless that is an option */
            a->extra[a->nextra++] = argv[i];
            if (value && value[0] != '-' && strcmp(arg, "--cold") && strcmp(arg, "--warm") &&
                strcmp(arg, "--no-activity"))
                a->extra[a->nextra++] = argv[++i];
            continue;
        }
        if (rc != 0)
            return -1;
        i++;
    }
    if (sb_gate_check_options(&a->opt) != 0)
        return -1;
    if (a->replay ? a->suite || a->program[BASE] || a->program[HEAD]
                  : !a->suite || !a->program[BASE] || !a->program[HEAD])
        return sb_fail("give SUITE --base PROGRAM --head PROGRAM, or --replay DIR alone "
                       "(see stagebench gate --help)");
    if (a->decisions && !a->replay)
        return sb_fail("--decisions goes with --replay DIR");
    for (int side = 0; side < 2 && !a->replay; side++)
        if (access(a->program[side], X_OK) != 0)
            return sb_fail("--%s %s: not a program this user can run", side_names[side],
                           a->program[side]);
    return 0;
}

/* --decisions N: decision after decision over the replayed rounds, each line going on where
 * the decision before stopped, a JSON line each; the last one the records cut short is left
 * out. */
static int replay_decisions(gate_ctx *c, sb_gate *g)
{
    int made = 0;
    for (; made < c->a->decisions; made++) {
        memset(g, 0, sizeof *g);
        g->opt = c->a->opt;
        g->nlines = c->nlines;
        c->ref_mhz = 0; /* each decision is a session of its own */
        for (int i = 0; i < c->nlines; i++)
            c->lines[i].redo_left = c->a->redo;
        if (sb_gate_run(g, gate_round, c) != 0) {
            if (!c->exhausted)
                return -1;
            break;
        }
        json_t *list = json_array();
        for (int i = 0; i < g->nbenches; i++) {
            const sb_gate_bench *b = &g->bench[i];
            json_array_append_new(list, json_pack("{s:s, s:s, s:i, s:f, s:f, s:f, s:f}", "name",
                                                  b->name, "verdict",
                                                  sb_gate_verdict_name(b->verdict), "rounds",
                                                  b->n, "ratio", b->ratio, "lo", b->lo, "hi",
                                                  b->hi, "mde", isfinite(b->mde) ? b->mde : -1));
        }
        json_t *row = json_pack("{s:i, s:b, s:o}", "decision", made, "failed",
                                sb_gate_failed(g), "benchmarks", list);
        char *text = json_dumps(row, JSON_COMPACT);
        printf("%s\n", text ? text : "{}");
        free(text);
        json_decref(row);
    }
    fprintf(stderr, "gate: %d decisions from %s\n", made, c->dir);
    return 0;
}

int sb_cmd_gate(int argc, char **argv)
{
    static gate_args a;
    static gate_ctx c;
    static sb_gate g;
    static sb_suite s;
    memset(&a, 0, sizeof a);
    memset(&c, 0, sizeof c);
    memset(&s, 0, sizeof s);
    int rc = parse_args(argc, argv, &a);
    if (rc != 0) {
        if (rc > 0)
            return 0;
        fprintf(stderr, "stagebench gate: %s\n", sb_error());
        return 2;
    }
    c.a = &a;
    memset(&g, 0, sizeof g);
    g.opt = a.opt;
    if (a.replay) {
        snprintf(c.dir, sizeof c.dir, "%s", a.replay);
        rc = replay_lines(&c); /* flagged rounds are passed over as the live gate redid them */
    } else {
        if (a.out)
            snprintf(c.dir, sizeof c.dir, "%s", a.out);
        else
            sb_default_run_path("gate", "", c.dir, sizeof c.dir);
        rc = sb_suite_read(&s, a.suite);
        for (int i = 0; rc == 0 && i < s.n; i++) {
            gate_line *l = &c.lines[c.nlines];
            memset(l, 0, sizeof *l);
            l->suite_index = i;
            int kept = narrow_line(l, &s.lines[i], a.glob);
            if (kept < 0)
                rc = -1;
            else if (kept)
                c.nlines++;
        }
        if (rc == 0 && c.nlines == 0)
            rc = sb_fail("%s: no line can measure %s", a.suite, a.glob ? a.glob : "anything");
        char log[2100];
        snprintf(log, sizeof log, "%s/rounds.tsv", c.dir);
        if (rc == 0 && sb_make_parent_dirs(log) == 0 && (c.log = fopen(log, "wx")) == NULL)
            rc = sb_fail("%s: cannot create it (it exists, or the folder is not writable): give "
                         "--out a new folder", log);
        if (c.log)
            fprintf(c.log, "line\tworkload\tround\tattempt\tside\torder\tstarted\tseconds\tended\t"
                           "records\n");
    }
    for (int i = 0; i < c.nlines; i++)
        c.lines[i].redo_left = a.redo;
    g.nlines = c.nlines;
    c.started = sb_now();
    if (rc == 0 && a.decisions)
        rc = replay_decisions(&c, &g);
    else if (rc == 0)
        rc = sb_gate_run(&g, gate_round, &c);
    if (c.log)
        fclose(c.log);
    if (rc == 0 && !a.decisions) {
        sb_gate_decide(&g);
        /* a replay writes only where --out says, never into the records it reads */
        const char *to = a.replay ? a.out : c.dir;
        char path[2100];
        if (!a.replay && merge_sides(&c) != 0)
            rc = -1;
        json_t *doc = gate_json(&c, &g);
        snprintf(path, sizeof path, "%s/%s", to ? to : "", a.replay ? "replay.json" : "gate.json");
        if (rc == 0 && to && (!doc || sb_make_parent_dirs(path) != 0 ||
                              sb_json_write_atomic(path, doc) != 0))
            rc = -1;
        json_decref(doc);
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        if (mem) {
            write_summary(mem, &c, &g, a.replay ? NULL : &s);
            fclose(mem);
        }
        snprintf(path, sizeof path, "%s/%s", to ? to : "", a.replay ? "replay.md" : "summary.md");
        if (rc == 0 && (!text || (to && sb_write_atomic(path, text, len) != 0)))
            rc = -1;
        if (rc == 0)
            fputs(text, stdout);
        free(text);
    }
    free_lines(&c);
    sb_suite_free(&s);
    if (rc != 0) {
        fprintf(stderr, "stagebench gate: %s\n", sb_error());
        return 2;
    }
    return a.decisions ? 0 : sb_gate_failed(&g);
}
