/* stagebench study <file>: a sweep that reproduces a paper's figures.
 *
 * A study file is a list of lines (# starts a comment; "double quotes" group words):
 *   study NAME                     results go to results/runs/NAME-<UTC time>/
 *   workload NAME                  (or one under each run)
 *   define KEY VALUE               ${KEY} in later values; --define KEY=VALUE overrides
 *   option NAME [VALUE]            a measurement option, as on `stagebench run`, for every run
 *                                  (repetitions N: each run N times, a process a repetition;
 *                                  isolate, the default, and no-isolate: each variant at each
 *                                  point in a process of its own or not; variant-timeout S)
 *   run NAME                       a sweep, recorded in NAME.json / NAME.csv; then, indented:
 *     param NAME=VALUE             fixed parameter
 *     sweep NAME=V1,V2,...         swept parameter (several sweeps: every combination);
 *     sweep NAME:NAME=V:V,V:V,...  parameters swept together (a zipped sweep: 64:16,128:32)
 *     variants LIST                "all" or a comma-separated list
 *     device N|all                 as run --device
 *     reference VARIANT            as run --reference: the variant whose output validates the
 *                                  others (a GPU one where the CPU reference would take hours)
 *     dump NAME                    each point's output, as run --dump-output: NAME.txt for a run
 *                                  of one point, else NAME-<sweep>=<value>,<sweep>=<value>.txt
 *     option NAME [VALUE]          for this run only, over the study's options
 *     workload NAME                this run's workload, over the study's (a study of several)
 *   records NAME PATTERN [HOW...]  records files another command writes into the output
 *                                  directory (PATTERN: a glob there, e.g. mpi-np2-*.json from
 *                                  mpirun); from= of figures and tables may name them; HOW is
 *                                  said when no file matches
 *   figure NAME KIND KEY=VALUE...  KIND time|speedup|series|data; keys: from (runs or records,
 *                                  comma-separated), variants, baseline, x, series, where, title,
 *                                  script. A data figure's script (required) reads the runs' CSV
 *                                  and dump files itself (bench/report/plot.h: the variables it gets).
 *   table NAME KEY=VALUE...        a table of the records (bench/report/table.c), printed and written
 *                                  as DIR/NAME.md after the runs and with --figures-only: a line
 *                                  per `row`, a column per distinct value of the cols= parameters
 *                                  among the points of the runs it reads, in increasing order;
 *                                  keys: from=RUN,... (runs or records), cols=P1[,P2] (none:
 *                                  one column, "all", every record; a table over runs of
 *                                  several workloads),
 *                                  col-label=TEXT ({P1} is the value: "{outer}²×{inner}²"),
 *                                  unit=s|ms|us (ms), title=TEXT, and every row key below as
 *                                  the default of every row. Then, indented:
 *     row LABEL KEY=VALUE...       keys: variant=V (default: the label; *: a line per variant
 *                                  and run among the records, no base), where=P=V,P=V,
 *                                  only=kernel-level (GPU records of kernel-level stages;
 *                                  only=kernel-level-unexplained: those without a noise_note),
 *                                  from=RUN,..., value=time|wall|steady|memory|phase:A[+B...]
 *                                  (seconds of the median run, of its step loop, or of the
 *                                  phases of its last run; memory: its peak tracked device
 *                                  bytes), per=P (divided by that parameter, e.g. steps),
 *                                  speedup=V (the cell's ratio: V's value / the row's) or
 *                                  ratio=V (the row's / V's), base-where=P=V,... (which record
 *                                  of V: the same column, from any run of the table; a column's
 *                                  parameter named here picks that value for every column),
 *                                  base-value=EXPR (V's value expression, default the row's:
 *                                  a phase of the kernels against the reference's whole phase),
 *                                  kernel=PATTERN,... (the kernel-table row the kernel facts
 *                                  below read: the first whose name matches, glob; default the
 *                                  run's longest)
 *     published LABEL V1 V2 ...    the paper's value per column, shown as-is on a *paper* line
 *     explain LABEL [at=V1,V2] TEXT  written under the table at one column (at=, or the last
 *                                  with a valid record), {placeholders} filled from the records:
 *                                  FACT of the row's record, base_FACT of its base's, FACT/base
 *                                  their quotient, and {ratio}, {published}, {col}, {unit},
 *                                  {base_variant}. FACTs: value, value_bw (derived.bytes_moved
 *                                  over the value's seconds), value_pct_peak (of the measured
 *                                  DRAM peak), bytes (derived.bytes_moved), bytes_per_second,
 *                                  pct_peak, items, h2d, d2h, d2d, peer, transfers (their sum),
 *                                  memory, kernel, registers, occupancy, limiter, blocks_per_sm,
 *                                  local_bytes, block_threads, device, fp64_ratio (FP32:FP64
 *                                  throughput), sm_count, samples, noise, noise_robust,
 *                                  median_ci, timed_out, status, reason,
 *                                  variant, items_per_second, phase:NAME, output:NAME,
 *                                  steady:NAME (the step loop's: simulated_seconds_per_hour,
 *                                  pct_peak_dram, items_per_second...), floor:NAME (the
 *                                  record's floors: problem_pct, problem_steady_pct,
 *                                  design_pct, design_steady_pct, dram_pct, issue_pct, and
 *                                  the words bound and problem), param:NAME
 *     note TEXT                    a paragraph under the table
 *     goal LABEL|* [at=V1,V2] [of=FACT] [and=FACT>=V]... OP VALUE TEXT
 *                                  a goal for the row (*: every row, and a row of variant=*
 *                                  its lines: the best cell, or of=median:|min:|max:|sum:FACT
 *                                  or count over their valid records; and=: comparisons that
 *                                  must hold too, base_FACT of the base's record): OP one of
 *                                  >=, <=, >, <; VALUE compared
 *                                  with its cell at at= (else the last column where the cell is
 *                                  valid): the ratio of a row with speedup= or ratio=, else the
 *                                  value in the table's unit (bytes for memory), or of= a
 *                                  numeric FACT of its record; the table ends with a "Goals"
 *                                  list: "- TEXT: **met** (measured 410× at COL, goal ≥ 300×)",
 *                                  **missed** (...) or "not measured (why)"
 *                                  A cell without a value says why: X (reason) for a skipped
 *                                  record (a memory refusal as "needs A, B free"; a long reason
 *                                  as a numbered note), failed [n] or invalid [n], or — (none).
 *                                  A cell whose record, or its base's, is to be read with care
 *                                  (one sample, or noise above 5 %: sb_record_caution) ends in
 *                                  " †", and the legend says the limit.
 * An `option` line after a `run` and before the next `run`, `table` or `figure` is that run's;
 * the study's go before the first run. ${STUDY_DIR} is the study file's directory; a --define
 * the file never uses as ${KEY} is refused, as is a file that is not UTF-8 text. Every point of
 * every run is checked (parameters, the files they name, variants, reference, figure inputs,
 * tables' rows, columns, published counts, placeholders and goals) before the first runs, so that
 * a typo fails at once rather than hours into a session; --check stops there, with an estimate of
 * the duration from reference records (bench/report/estimate.h). The runs report their progress
 * on stderr (bench/run/progress.h), a point an item. */
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../harness/context.h"
#include "../../harness/data.h"
#include "../../cuda/base/error.h"
#include "../../harness/json.h"
#include "../../harness/refcache.h"
#include "../../variants/registry.h"
#include "../../harness/repeat.h"
#include "estimate.h"
#include "plot.h"
#include "study.h"
#include "../run/progress.h"
#include "../run/runner.h"
#include "table.h"

#define MAX_WORDS 32
#define MAX_FIGURES 32
#define MAX_RUN_OPTIONS 8
#define MAX_TABLES 8
#define MAX_RECORDS 8

/* An `option` line of one run: checked when read, applied over the study's when the run starts. */
typedef struct run_option {
    char name[32], value[256];
    int has_value;
} run_option;

typedef struct study_run {
    char name[64];
    char workload[64];     /* "": the study's */
    const sb_workload *w;  /* its workload, once found */
    char params[SB_MAX_PARAMS][SB_PARAM_TEXT];
    int nparams;
    char sweeps[4][SB_PARAM_TEXT];
    int nsweeps;
    char variants[512];
    char device[16];
    char reference[64]; /* "": the workload's */
    char dump[64];      /* "": no outputs written */
    run_option options[MAX_RUN_OPTIONS];
    int noptions;
    long npoints; /* counted by check_study */
    int line, variants_line, reference_line;
    int param_lines[SB_MAX_PARAMS], sweep_lines[4]; /* the line of each param and sweep */
} study_run;

typedef struct study_figure {
    char name[64], kind[16];
    char from[256], variants[512], baseline[64], x[64], series[128], where[256], title[256],
        script[512];
    int line;
} study_figure;

typedef struct study {
    char path[1024], dir[1024], name[64], workload[64]; /* workload: "" where each run names one */
    const sb_workload *w; /* the study's workload; NULL where each run names its own */
    char keys[SB_STUDY_MAX_DEFINES][64], values[SB_STUDY_MAX_DEFINES][1024];
    int ndefines, used[SB_STUDY_MAX_DEFINES]; /* used: the file says ${KEY} somewhere */
    sb_measure_options opt;
    study_run runs[SB_STUDY_MAX_RUNS];
    int nruns;
    study_figure figures[MAX_FIGURES];
    int nfigures;
    sb_table tables[MAX_TABLES];
    int ntables;
    sb_table_source records[MAX_RECORDS]; /* `records` lines: files the study does not write */
    int nrecords;
    sb_table_source sources[SB_STUDY_MAX_RUNS + MAX_RECORDS]; /* runs, then records: what from= names */
    int nsources;
    sb_estimate *est; /* the reference records of the points' durations, or NULL */
    int gpus;         /* this machine's */
    int skip_gpu;     /* the estimate leaves out GPU variants (this machine skips them) */
    sb_progress *progress;             /* of the runs, while they run */
    const struct study_items *items;   /* what the progress counts */
} study;


static int define(study *s, const char *key, const char *value, int override)
{
    for (int i = 0; i < s->ndefines; i++)
        if (strcmp(s->keys[i], key) == 0) {
            if (override)
                snprintf(s->values[i], sizeof s->values[i], "%s", value);
            return 0;
        }
    if (s->ndefines == SB_STUDY_MAX_DEFINES)
        return sb_fail("more than %d defines", SB_STUDY_MAX_DEFINES);
    snprintf(s->keys[s->ndefines], sizeof s->keys[0], "%s", key);
    snprintf(s->values[s->ndefines++], sizeof s->values[0], "%s", value);
    return 0;
}

/* ${KEY} -> its value; the key is marked used. */
static int expand(study *s, const char *in, char *out, size_t cap, int line)
{
    size_t len = 0;
    while (*in) {
        if (in[0] == '$' && in[1] == '{') {
            const char *close = strchr(in, '}');
            if (!close)
                return sb_fail("%s:%d: unclosed ${ in '%s'; write ${NAME}", s->path, line, in);
            int found = 0;
            for (int i = 0; i < s->ndefines && !found; i++)
                if (strlen(s->keys[i]) == (size_t)(close - in - 2) &&
                    strncmp(s->keys[i], in + 2, (size_t)(close - in - 2)) == 0) {
                    len += (size_t)snprintf(out + (len < cap ? len : 0),
                                            len < cap ? cap - len : 0, "%s", s->values[i]);
                    found = s->used[i] = 1;
                }
            if (!found)
                return sb_fail("%s:%d: ${%.*s} is not defined; add 'define %.*s VALUE' or "
                               "--define %.*s=VALUE",
                               s->path, line, (int)(close - in - 2), in + 2,
                               (int)(close - in - 2), in + 2, (int)(close - in - 2), in + 2);
            in = close + 1;
        } else {
            if (len + 1 < cap)
                out[len] = *in;
            len++;
            in++;
        }
    }
    if (len >= cap)
        return sb_fail("%s:%d: value too long after expansion", s->path, line);
    out[len] = '\0';
    return 0;
}

/* Splits a line into words; "..." groups. Returns the count, -1 on an unclosed quote. */
static int split(char *line, char **words)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (!*p || *p == '#')
            return n;
        if (n == MAX_WORDS)
            return -1;
        char *w = p, *o = p;
        int quoted = 0;
        while (*p && (quoted || (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n'))) {
            if (*p == '"')
                quoted = !quoted;
            else
                *o++ = *p;
            p++;
        }
        if (quoted)
            return -1;
        if (*p)
            p++;
        *o = '\0';
        words[n++] = w;
    }
}

static int copy_word(char *dst, size_t cap, const char *src, const char *path, int line)
{
    if (strlen(src) >= cap)
        return sb_fail("%s:%d: '%s' is too long", path, line, src);
    snprintf(dst, cap, "%s", src);
    return 0;
}

/* An option line into o; the error names file:line. */
static int apply_option(sb_measure_options *o, const char *name, const char *value,
                        const char *path, int line)
{
    int known = sb_measure_option(o, name, value);
    if (known < 0)
        return sb_fail_context("%s:%d", path, line);
    if (known > 0)
        return sb_fail("%s:%d: unknown option '%s' (max-noise, min-samples, min-time, timeout, "
                       "warmup, warmup-time, sample-time, noise-measure, repetitions, metrics, "
                       "cold, warm, no-activity, isolate, no-isolate, variant-timeout)",
                       path, line, name);
    return 0;
}

static int add_run_option(study_run *run, const char *name, const char *value, const char *path,
                          int line)
{
    sb_measure_options scratch;
    sb_measure_defaults(&scratch);
    if (apply_option(&scratch, name, value, path, line) != 0)
        return -1;
    if (run->noptions == MAX_RUN_OPTIONS)
        return sb_fail("%s:%d: run %s has more than %d options", path, line, run->name,
                       MAX_RUN_OPTIONS);
    run_option *o = &run->options[run->noptions++];
    o->has_value = value != NULL;
    return copy_word(o->name, sizeof o->name, name, path, line) ||
                   (value && copy_word(o->value, sizeof o->value, value, path, line))
               ? -1
               : 0;
}

static int figure_key(study_figure *f, const char *kv, const char *path, int line)
{
    static const char *keys[] = {"from", "variants", "baseline", "x", "series", "where", "title",
                                 "script"};
    const char *eq = strchr(kv, '=');
    for (size_t i = 0; eq && i < sizeof keys / sizeof keys[0]; i++) {
        if (strlen(keys[i]) != (size_t)(eq - kv) || strncmp(keys[i], kv, (size_t)(eq - kv)))
            continue;
        char *slots[] = {f->from, f->variants, f->baseline, f->x, f->series, f->where, f->title,
                         f->script};
        size_t caps[] = {sizeof f->from, sizeof f->variants, sizeof f->baseline, sizeof f->x,
                         sizeof f->series, sizeof f->where, sizeof f->title, sizeof f->script};
        return copy_word(slots[i], caps[i], eq + 1, path, line);
    }
    return sb_fail("%s:%d: '%s' is not a figure key (from, variants, baseline, x, series, where, "
                   "title, script)",
                   path, line, kv);
}

/* `table NAME KEY=VALUE...`: *table the new table, whose indented lines follow. */
static int table_line(study *s, char **w, int n, const char *path, int line, sb_table **table)
{
    if (s->ntables == MAX_TABLES)
        return sb_fail("%s:%d: more than %d tables", path, line, MAX_TABLES);
    sb_table *t = *table = &s->tables[s->ntables++];
    t->line = line;
    int rc = copy_word(t->name, sizeof t->name, w[1], path, line);
    if (!rc && strchr(t->name, '/'))
        rc = sb_fail("%s:%d: table %s: give a name without '/'", path, line, w[1]);
    for (int i = 2; rc == 0 && i < n; i++)
        rc = sb_table_key(t, w[i], path, line);
    return rc;
}

/* `records NAME PATTERN HOW...`: records files that another command writes. */
static int records_line(study *s, char **w, int n, const char *path, int line)
{
    if (s->nrecords == MAX_RECORDS)
        return sb_fail("%s:%d: more than %d records lines", path, line, MAX_RECORDS);
    sb_table_source *r = &s->records[s->nrecords++];
    int rc = copy_word(r->name, sizeof r->name, w[1], path, line) ||
             copy_word(r->pattern, sizeof r->pattern, w[2], path, line);
    for (int i = 3, len = 0; rc == 0 && i < n; i++)
        len += snprintf(r->how + (len < (int)sizeof r->how ? len : 0),
                        len < (int)sizeof r->how ? sizeof r->how - len : 0,
                        "%s%s", i > 3 ? " " : "", w[i]);
    return rc;
}

/* `figure NAME KIND KEY=VALUE...` */
static int figure_line(study *s, char **w, int n, const char *path, int line)
{
    if (s->nfigures == MAX_FIGURES)
        return sb_fail("%s:%d: more than %d figures", path, line, MAX_FIGURES);
    study_figure *fig = &s->figures[s->nfigures++];
    fig->line = line;
    int rc = copy_word(fig->name, sizeof fig->name, w[1], path, line) ||
             copy_word(fig->kind, sizeof fig->kind, w[2], path, line);
    if (!rc && strcmp(fig->kind, "time") && strcmp(fig->kind, "speedup") &&
        strcmp(fig->kind, "series") && strcmp(fig->kind, "data"))
        rc = sb_fail("%s:%d: figure kind '%s': use time, speedup, series or data", path, line,
                     fig->kind);
    for (int i = 3; rc == 0 && i < n; i++)
        rc = figure_key(fig, w[i], path, line);
    if (!rc && !strcmp(fig->kind, "data") && !fig->script[0])
        rc = sb_fail("%s:%d: figure %s: a data figure needs script=FILE.gp (its script reads the "
                     "runs' CSV and dump files)",
                     path, line, fig->name);
    return rc;
}

/* A study file is UTF-8 text: a NUL, a control byte (tabs and line ends aside) or a byte that is
 * not UTF-8 stops it at its line, and the message names the byte by its value, never quoting the
 * line (a binary file given by mistake would otherwise be echoed to the terminal, escape
 * sequences and all). */
static int check_text(FILE *f, const char *path)
{
    int line = 1, column = 0, follow = 0, c; /* follow: continuation bytes still due */
    unsigned min_next = 0x80, max_next = 0xbf; /* the next byte's range after a lead byte */
    while ((c = getc(f)) != EOF) {
        column++;
        const char *what = NULL;
        if (follow > 0) {
            if ((unsigned)c < min_next || (unsigned)c > max_next)
                what = "a broken UTF-8 sequence";
            follow--;
            min_next = 0x80, max_next = 0xbf;
        } else if (c == '\n') {
            line++, column = 0;
        } else if (c == 0) {
            what = "a NUL byte";
        } else if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
            what = "a control byte";
        } else if (c >= 0x80) { /* a lead byte, its continuations' ranges as RFC 3629 has them */
            follow = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2
                     : c >= 0xf0 && c <= 0xf4                          ? 3
                                                                       : -1;
            min_next = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
            max_next = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
            if (follow < 0)
                what = "a byte that is not UTF-8";
        }
        if (what)
            return sb_fail("%s:%d: not text: %s (0x%02x) at column %d; a study file is UTF-8 "
                           "text (is this the study file you meant?)",
                           path, line, what, (unsigned)c, column);
    }
    if (follow > 0)
        return sb_fail("%s:%d: not text: a UTF-8 sequence cut short at the end of the file; a "
                       "study file is UTF-8 text",
                       path, line);
    if (ferror(f))
        return sb_fail("%s: cannot read: %s", path, strerror(errno));
    rewind(f);
    return 0;
}

/* A --define the file never reads (no ${KEY} in it) would change nothing: a misspelt key, or
 * one meant for another study, is refused rather than silently ignored. DATA and STUDY_DIR, which
 * the engine defines for every study, are taken whether used or not (scripts pass DATA to every
 * study they run). */
static int check_defines(const study *s, char *const *defines, int ndefines)
{
    for (int k = 0; k < ndefines; k++) {
        size_t n = strcspn(defines[k], "=");
        if ((n == 4 && !strncmp(defines[k], "DATA", 4)) ||
            (n == 9 && !strncmp(defines[k], "STUDY_DIR", 9)))
            continue;
        for (int i = 0; i < s->ndefines; i++)
            if (strlen(s->keys[i]) == n && !strncmp(s->keys[i], defines[k], n) && !s->used[i]) {
                char uses[1024] = "";
                size_t len = 0;
                for (int j = 0; j < s->ndefines && len < sizeof uses; j++)
                    if (s->used[j])
                        len += (size_t)snprintf(uses + len, sizeof uses - len, "%s${%s}",
                                                len ? ", " : "", s->keys[j]);
                if (!uses[0])
                    return sb_fail("--define %.*s=...: %s never uses ${%.*s}, nor any ${KEY}: "
                                   "leave the define out",
                                   (int)n, defines[k], s->path, (int)n, defines[k]);
                return sb_fail("--define %.*s=...: %s never uses ${%.*s} (it uses %s); give one "
                               "of those, or leave the define out",
                               (int)n, defines[k], s->path, (int)n, defines[k], uses);
            }
    }
    return 0;
}

static int parse(study *s, const char *path, char *const *defines, int ndefines)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return sb_fail("%s: cannot open: %s", path, strerror(errno));
    if (check_text(f, path) != 0) {
        fclose(f);
        return -1;
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    snprintf(s->dir, sizeof s->dir, "%s", path);
    char *slash = strrchr(s->dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(s->dir, sizeof s->dir, ".");
    sb_measure_defaults(&s->opt);
    s->opt.isolate = 1; /* a study isolates its variants unless told `option no-isolate` */
    char data[1024];
    int rc = define(s, "STUDY_DIR", s->dir, 1);
    for (int i = 0; rc == 0 && i < ndefines; i++) { /* command-line defines win */
        char key[64];
        const char *eq = strchr(defines[i], '=');
        if (!eq || eq == defines[i] || (size_t)(eq - defines[i]) >= sizeof key) {
            rc = sb_fail("--define %s: give KEY=VALUE", defines[i]);
            break;
        }
        snprintf(key, sizeof key, "%.*s", (int)(eq - defines[i]), defines[i]);
        rc = define(s, key, eq + 1, 1);
    }
    /* ${DATA}: the ProCell histograms where every command finds them (harness/data.h), unless
     * --define DATA=... said otherwise */
    if (rc == 0)
        rc = define(s, "DATA", sb_data_dir("procell", data, sizeof data), 0);
    char raw[4096], text[4096];
    study_run *run = NULL;
    sb_table *table = NULL; /* the table whose row, published, explain and note lines follow */
    for (int line = 1; rc == 0 && fgets(raw, sizeof raw, f); line++) {
        char *w[MAX_WORDS];
        size_t len = strlen(raw);
        if (len == sizeof raw - 1 && raw[len - 1] != '\n' && !feof(f)) {
            rc = sb_fail("%s:%d: a line longer than %zu characters; split it", path, line,
                         sizeof raw - 2);
            break;
        }
        while (len > 0 && (raw[len - 1] == '\n' || raw[len - 1] == '\r'))
            raw[--len] = '\0'; /* messages quote the line: one line each */
        if ((rc = expand(s, raw, text, sizeof text, line)))
            break;
        int n = split(text, w);
        if (n < 0) {
            rc = sb_fail("%s:%d: unclosed quote or more than %d words", path, line, MAX_WORDS);
            break;
        }
        if (n == 0)
            continue;
        const char *d = w[0];
        if (!strcmp(d, "study") && n == 2) {
            rc = copy_word(s->name, sizeof s->name, w[1], path, line);
        } else if (run && !strcmp(d, "workload") && n == 2) {
            rc = copy_word(run->workload, sizeof run->workload, w[1], path, line);
        } else if (!strcmp(d, "workload") && n == 2) {
            rc = copy_word(s->workload, sizeof s->workload, w[1], path, line);
        } else if (!strcmp(d, "define") && n == 3) {
            rc = define(s, w[1], w[2], 0);
        } else if (run && !strcmp(d, "option") && (n == 2 || n == 3)) {
            rc = add_run_option(run, w[1], n == 3 ? w[2] : NULL, path, line);
        } else if (!strcmp(d, "option") && (n == 2 || n == 3)) {
            rc = apply_option(&s->opt, w[1], n == 3 ? w[2] : NULL, path, line);
        } else if (table && (rc = sb_table_line(table, w, n, path, line)) <= 0) {
            /* a line of the table: done (rc 0) or refused (rc -1) */
        } else if (!strcmp(d, "run") && n == 2) {
            table = NULL;
            rc = 0;
            if (s->nruns == SB_STUDY_MAX_RUNS) {
                rc = sb_fail("%s:%d: more than %d runs", path, line, SB_STUDY_MAX_RUNS);
                break;
            }
            run = &s->runs[s->nruns++];
            run->line = line;
            snprintf(run->variants, sizeof run->variants, "all");
            rc = copy_word(run->name, sizeof run->name, w[1], path, line);
        } else if (run && !strcmp(d, "param") && n == 2 && run->nparams < SB_MAX_PARAMS) {
            run->param_lines[run->nparams] = line;
            rc = copy_word(run->params[run->nparams++], SB_PARAM_TEXT, w[1], path, line);
        } else if (run && !strcmp(d, "sweep") && n == 2 && run->nsweeps < 4) {
            run->sweep_lines[run->nsweeps] = line;
            rc = copy_word(run->sweeps[run->nsweeps++], SB_PARAM_TEXT, w[1], path, line);
        } else if (run && !strcmp(d, "variants") && n == 2) {
            run->variants_line = line;
            rc = copy_word(run->variants, sizeof run->variants, w[1], path, line);
        } else if (run && !strcmp(d, "device") && n == 2) {
            rc = copy_word(run->device, sizeof run->device, w[1], path, line);
        } else if (run && !strcmp(d, "reference") && n == 2) {
            run->reference_line = line;
            rc = copy_word(run->reference, sizeof run->reference, w[1], path, line);
        } else if (run && !strcmp(d, "dump") && n == 2) {
            rc = strchr(w[1], '/')
                     ? sb_fail("%s:%d: dump %s: give a file name without '/' (dumps go into the "
                               "study's output directory)",
                               path, line, w[1])
                     : copy_word(run->dump, sizeof run->dump, w[1], path, line);
        } else if (!strcmp(d, "table") && n >= 2) {
            run = NULL; /* a table ends the run before it, as a figure does */
            rc = table_line(s, w, n, path, line, &table);
        } else if (!strcmp(d, "records") && n >= 3) {
            run = NULL;
            table = NULL;
            rc = records_line(s, w, n, path, line);
        } else if (!strcmp(d, "figure") && n >= 3) {
            run = NULL; /* a figure ends the run before it: later options are the study's */
            table = NULL;
            rc = figure_line(s, w, n, path, line);
        } else {
            rc = sb_fail("%s:%d: cannot read '%s' here (see the format in bench/report/study.c or "
                         "docs/harness.md)",
                         path, line, d);
        }
    }
    fclose(f);
    if (rc == 0)
        rc = check_defines(s, defines, ndefines);
    int every_run_has_one = s->nruns > 0;
    for (int i = 0; i < s->nruns; i++)
        every_run_has_one &= s->runs[i].workload[0] != '\0';
    if (rc == 0 && (!s->name[0] || (!s->workload[0] && !every_run_has_one) || s->nruns == 0))
        rc = sb_fail("%s: a study needs a 'study NAME', a 'workload NAME' (or one under every "
                     "run) and at least one 'run'",
                     path);
    return rc;
}

/* Parameters of one sweep point: the fixed ones, then the k-th combination of the sweeps. */
static int point_params(const study *s, const study_run *run, const sb_workload *w, long k,
                        sb_params *p, int *last)
{
    sb_params_init(p, w->params, w->nparams);
    for (int i = 0; i < run->nparams; i++)
        if (sb_params_assign(p, run->params[i]) != 0)
            return sb_fail_context("%s:%d: run %s", s->path, run->line, run->name);
    *last = 1;
    for (int i = run->nsweeps - 1; i >= 0; i--) {
        char buf[SB_PARAM_TEXT], *eq, *values[256];
        int nvalues = 0;
        snprintf(buf, sizeof buf, "%s", run->sweeps[i]);
        if (!(eq = strchr(buf, '=')))
            return sb_fail("%s:%d: run %s: sweep '%s' is not NAME=V1,V2,...", s->path, run->line,
                           run->name, run->sweeps[i]);
        *eq = '\0';
        for (char *save = NULL, *v = strtok_r(eq + 1, ",", &save); v && nvalues < 256;
             v = strtok_r(NULL, ",", &save))
            values[nvalues++] = v;
        if (nvalues == 0)
            return sb_fail("%s:%d: run %s: sweep %s has no values", s->path, run->line, run->name,
                           buf);
        /* NAME:NAME=V:V,...: the parameters of a zipped sweep take their values together */
        char value[SB_PARAM_TEXT];
        snprintf(value, sizeof value, "%s", values[k % nvalues]);
        const char *split = strchr(buf, ':') ? ":" : ""; /* a plain sweep's value is whole */
        char *name_save = NULL, *value_save = NULL, *name = strtok_r(buf, ":", &name_save);
        char *v = strtok_r(value, split, &value_save);
        for (; name && v;
             name = strtok_r(NULL, ":", &name_save), v = strtok_r(NULL, split, &value_save))
            if (sb_params_set(p, name, v) != 0)
                return sb_fail_context("%s:%d: run %s", s->path, run->line, run->name);
        if (name || v)
            return sb_fail("%s:%d: run %s: sweep %s: the value '%s' does not give one value per "
                           "parameter (V:V:... for NAME:NAME:...)",
                           s->path, run->line, run->name, run->sweeps[i], values[k % nvalues]);
        *last &= (k % nvalues) == nvalues - 1;
        k /= nvalues;
    }
    return 0;
}

static const study_run *find_run(const study *s, const char *name, size_t len)
{
    for (int i = 0; i < s->nruns; i++)
        if (strlen(s->runs[i].name) == len && strncmp(s->runs[i].name, name, len) == 0)
            return &s->runs[i];
    return NULL;
}

static const sb_table_source *find_source(const study *s, const char *name, size_t len)
{
    for (int i = 0; i < s->nsources; i++)
        if (strlen(s->sources[i].name) == len && strncmp(s->sources[i].name, name, len) == 0)
            return &s->sources[i];
    return NULL;
}

/* Every run and records line as a name that from= may give. */
static int list_sources(study *s)
{
    s->nsources = 0;
    for (int i = 0; i < s->nruns; i++) {
        sb_table_source *src = &s->sources[s->nsources++];
        memset(src, 0, sizeof *src);
        snprintf(src->name, sizeof src->name, "%s", s->runs[i].name);
        snprintf(src->pattern, sizeof src->pattern, "%s.json", s->runs[i].name);
        src->is_run = 1;
        src->workload = s->runs[i].w;
    }
    for (int i = 0; i < s->nrecords; i++) {
        if (find_source(s, s->records[i].name, strlen(s->records[i].name)))
            return sb_fail("%s: records %s: a run or records line has that name already",
                           s->path, s->records[i].name);
        if (strchr(s->records[i].pattern, '/'))
            return sb_fail("%s: records %s %s: give a file name or pattern without '/' (records "
                           "are read from the study's output directory)",
                           s->path, s->records[i].name, s->records[i].pattern);
        s->sources[s->nsources] = s->records[i];
        s->sources[s->nsources++].workload = s->w ? s->w : s->nruns ? s->runs[0].w : NULL;
    }
    return 0;
}

/* The table's columns: every point of the runs its from= lists (the table's and its rows'). */
static int table_points(const study *s, sb_table *t)
{
    for (int r = 0; r < s->nruns; r++) {
        const study_run *run = &s->runs[r];
        int named = 0;
        for (int i = -1; i < t->nrows && !named; i++) {
            const char *from = i < 0 ? t->key[SB_TK_FROM] : t->rows[i].key[SB_TK_FROM];
            for (const char *p = from; *p && !named;) {
                size_t n = strcspn(p, ",");
                named = strlen(run->name) == n && strncmp(run->name, p, n) == 0;
                p += n + (p[n] == ',');
            }
        }
        int last = 0;
        for (long k = 0; named && !last; k++) {
            sb_params params;
            if (point_params(s, run, run->w, k, &params, &last) != 0 ||
                sb_table_add_point(t, &params, s->path) != 0)
                return -1;
        }
    }
    return 0;
}

static int check_variants(const study *s, const study_run *run, const sb_workload *w)
{
    char list[sizeof run->variants];
    if (strcmp(run->variants, "all") == 0)
        return 0;
    snprintf(list, sizeof list, "%s", run->variants);
    for (char *save = NULL, *v = strtok_r(list, ",", &save); v; v = strtok_r(NULL, ",", &save))
        if (!sb_find_variant(w, v))
            return sb_fail("%s:%d: run %s: '%s' is not a variant of %s (stagebench list %s "
                           "shows them)",
                           s->path, run->variants_line, run->name, v, w->name, w->name);
    return 0;
}

/* Every point's parameters (counting the points), the variant and reference names and the runs
 * the figures draw from, so that a mistake stops the study before its first run. */
static int check_study(study *s, const sb_workload *study_w)
{
    s->w = study_w;
    for (int r = 0; r < s->nruns; r++) {
        study_run *run = &s->runs[r];
        if (!run->w)
            run->w = study_w; /* the study's workload, unless the run names its own */
        const sb_workload *w = run->w;
        if (check_variants(s, run, w) != 0)
            return -1;
        if (run->reference[0] && !sb_find_variant(w, run->reference))
            return sb_fail("%s:%d: run %s: reference %s is not a variant of %s (stagebench list "
                           "%s shows them)",
                           s->path, run->reference_line, run->name, run->reference, w->name,
                           w->name);
        int last = 0;
        for (run->npoints = 0; !last; run->npoints++) {
            sb_params params;
            if (point_params(s, run, w, run->npoints, &params, &last) != 0)
                return -1;
        }
    }
    if (list_sources(s) != 0)
        return -1;
    for (int i = 0; i < s->nfigures; i++) {
        const study_figure *fig = &s->figures[i];
        if (!fig->from[0])
            return sb_fail("%s:%d: figure %s has no from=RUN", s->path, fig->line, fig->name);
        for (const char *r = fig->from; *r;) {
            size_t n = strcspn(r, ",");
            if (!find_source(s, r, n))
                return sb_fail("%s:%d: figure %s: from=%s: the study has no run '%.*s' (nor a "
                               "records line of that name)",
                               s->path, fig->line, fig->name, fig->from, (int)n, r);
            r += n + (r[n] == ',');
        }
    }
    for (int i = 0; i < s->ntables; i++) {
        sb_table *t = &s->tables[i];
        if (sb_table_check_sources(t, s->sources, s->nsources, s->path) != 0 ||
            table_points(s, t) != 0 || sb_table_check(t, s->sources, s->nsources, s->path) != 0)
            return -1;
    }
    return 0;
}

/* A point's dump file name: NAME.txt for a run of one point, else
 * NAME-<sweep>=<value>,<sweep>=<value>.txt with the values cut to file-name characters. */
static void dump_name(const study_run *run, const sb_params *params, char *out, size_t cap)
{
    size_t len = (size_t)snprintf(out, cap, "%s", run->dump);
    for (int i = 0; run->npoints > 1 && i < run->nsweeps && len + 1 < cap; i++) {
        char names[SB_PARAM_TEXT];
        snprintf(names, sizeof names, "%.*s", (int)strcspn(run->sweeps[i], "="), run->sweeps[i]);
        int first = 1;
        for (char *save = NULL, *name = strtok_r(names, ":", &save); name && len + 1 < cap;
             name = strtok_r(NULL, ":", &save), first = 0) {
            len += (size_t)snprintf(out + len, cap - len, "%c%s=", i || !first ? ',' : '-', name);
            for (const char *c = sb_param_text(params, name); *c && len + 1 < cap; c++)
                out[len++] = isalnum((unsigned char)*c) || strchr("._+-", *c) ? *c : '_';
            out[len < cap ? len : cap - 1] = '\0';
        }
    }
    if (len < cap)
        snprintf(out + len, cap - len, ".txt");
}

/* The line that sets parameter `name` in run: its sweep's or param's, else the run's. */
static int param_line(const study_run *run, const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < run->nsweeps; i++) /* NAME=... or NAME:OTHER=... or OTHER:NAME=... */
        for (const char *p = run->sweeps[i]; *p && *p != '=';) {
            size_t k = strcspn(p, ":=");
            if (k == n && !strncmp(p, name, n))
                return run->sweep_lines[i];
            p += k + (p[k] == ':');
        }
    for (int i = 0; i < run->nparams; i++)
        if (!strncmp(run->params[i], name, n) && run->params[i][n] == '=')
            return run->param_lines[i];
    return run->line;
}

/* 1 when run `r` runs now: every run, or those --run names. */
static int runs_now(const study_run *r, char *const *only, int nonly)
{
    for (int i = 0; i < nonly; i++)
        if (!strcmp(only[i], r->name))
            return 1;
    return nonly == 0;
}

/* The files every point of the runs reads (procell's histograms, rdme's model, a saved state:
 * sb_input_file) are there: a missing one stops the study before anything runs, not at its point
 * hours in. Only looked at, not read: a file that is there but wrong is the workload's to refuse
 * when it loads it. */
static int check_inputs(const study *s, char *const *only, int nonly)
{
    for (int r = 0; r < s->nruns; r++) {
        const study_run *run = &s->runs[r];
        if (!runs_now(run, only, nonly))
            continue;
        int last = 0;
        for (long k = 0; !last; k++) {
            sb_params params;
            if (point_params(s, run, run->w, k, &params, &last) != 0)
                return -1;
            for (int i = 0; i < params.n; i++) {
                const char *hint, *file = sb_input_file(run->w, &params, i, &hint);
                if (!file || access(file, R_OK) == 0)
                    continue;
                int why = errno;
                const char *name = params.decls[i].name;
                char at[64] = "its one point";
                if (run->npoints > 1)
                    snprintf(at, sizeof at, "point %ld of %ld", k + 1, run->npoints);
                return sb_fail("%s:%d: run %s: %s=%s (%s): %s; %s", s->path,
                               param_line(run, name), run->name, name, file, at,
                               strerror(why),
                               hint ? hint : "give the path of a file that is there");
            }
        }
    }
    return 0;
}

/* The measurement options run `run` runs with: the study's, then its own `option` lines. */
static void run_options(const study *s, const study_run *run, sb_measure_options *opt)
{
    *opt = s->opt;
    for (int i = 0; i < run->noptions; i++) /* their values were checked when read */
        sb_measure_option(opt, run->options[i].name,
                          run->options[i].has_value ? run->options[i].value : NULL);
    if (sb_under_mpirun())
        opt->isolate = 0; /* the mpi stages' processes meet inside their runs */
}

/* What sb_point_check refuses on this machine (a GPU reference without a GPU, counters asked for
 * without one, a device number past the GPUs) is refused for every run before the first runs,
 * as the file's own mistakes are: nothing is half done, and the error is the one line on stderr
 * (no progress lines before it). The check does not depend on the point. */
static int check_machine(const study *s, char *const *only, int nonly)
{
    for (int r = 0; r < s->nruns; r++) {
        const study_run *run = &s->runs[r];
        sb_measure_options opt;
        sb_devices devices;
        sb_params params;
        int last;
        if (!runs_now(run, only, nonly))
            continue;
        run_options(s, run, &opt);
        if (opt.repetitions > 1 && !getenv(SB_REPETITION_ENV))
            continue; /* its repetitions' processes check it */
        if (sb_devices_select(&devices, run->device[0] ? run->device : NULL, 0) != 0 ||
            point_params(s, run, run->w, 0, &params, &last) != 0)
            return sb_fail_context("%s:%d: run %s", s->path, run->line, run->name);
        sb_point point = {run->w, &params, run->variants,
                          run->reference[0] ? run->reference : NULL,
                          NULL, &opt, &devices, 1, 0, NULL, NULL};
        if (sb_point_check(&point) != 0)
            return sb_fail_context("%s:%d: run %s", s->path, run->line, run->name);
    }
    return 0;
}

/* "fig5 cell=ecoli,spacing=16": the run and the values of its sweeps at a point (a run of one
 * point: its name). */
static void point_label(const study_run *run, const sb_params *params, char *out, size_t cap)
{
    size_t len = (size_t)snprintf(out, cap, "%s", run->name);
    for (int i = 0; i < run->nsweeps && len < cap; i++) {
        char names[SB_PARAM_TEXT];
        snprintf(names, sizeof names, "%.*s", (int)strcspn(run->sweeps[i], "="), run->sweeps[i]);
        for (char *save = NULL, *name = strtok_r(names, ":", &save); name && len < cap;
             name = strtok_r(NULL, ":", &save))
            len += (size_t)snprintf(out + len, cap - len, "%c%s=%s",
                                    len > strlen(run->name) ? ',' : ' ', name,
                                    sb_param_text(params, name));
    }
}

/* 1 when `name` is in the comma-separated `list` ("all": every name). */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    if (!strcmp(list, "all"))
        return 1;
    for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
        if (strcspn(p, ",") == n && !strncmp(p, name, n))
            return 1;
    return 0;
}

/* The seconds a point is expected to take, from the reference records (s->est): each of its
 * variants' records, and with isolation the reference's runs in the variants' processes: once,
 * where its output is kept between them (a CPU reference, SB_REFERENCE_CACHE), in the reference's
 * own process or the first variant's, else in every process but the reference's. *found and
 * *missing count the variants
 * with and without a record there; with s->skip_gpu, GPU variants (which a machine without a
 * GPU skips at once) count as neither. */
static double point_cost(const study *s, const study_run *run, const sb_params *params,
                         long *found, long *missing)
{
    const sb_workload *w = run->w;
    const sb_variant *ref = sb_find_variant(w, run->reference[0] ? run->reference : w->reference);
    sb_measure_options opt;
    char name[1100];
    double ref_one = NAN, cost = 0;
    int ref_cached = ref && sb_refcache_will_share(w, ref);
    run_options(s, run, &opt);
    if (ref) {
        sb_benchmark_name(w, ref, params, name, sizeof name);
        sb_estimate_record(s->est, run->name, name, &ref_one);
    }
    for (int i = 0; i < w->nvariants; i++) {
        const sb_variant *v = &w->variants[i];
        double one, c;
        if (!in_list(run->variants, v->name) || ((v->needs & SB_NEEDS_GPU) && s->skip_gpu))
            continue;
        sb_benchmark_name(w, v, params, name, sizeof name);
        if (isnan(c = sb_estimate_record(s->est, run->name, name, &one))) {
            strncat(name, "/device:0", sizeof name - strlen(name) - 1); /* from --device all */
            c = sb_estimate_record(s->est, run->name, name, &one);
        }
        if (isnan(c)) {
            ++*missing;
            continue;
        }
        ++*found;
        cost += c + (opt.isolate && v != ref && isfinite(ref_one) && !ref_cached ? ref_one : 0);
    }
    if (opt.isolate && ref_cached && isfinite(ref_one) && cost > 0 &&
        !in_list(run->variants, ref->name))
        cost += ref_one; /* the first variant's process runs it */
    return cost;
}

/* The progress of the runs about to run, an item per point (with repetitions, per repetition):
 * with isolation a point's variants are processes of their own, each making the reference
 * output again, and the GPU variants a machine without a GPU skips cost nothing, so the point,
 * whose records the reference records hold, is the unit whose cost is known before it runs (and
 * the one --resume keeps or runs again). Each item is weighed by its expected seconds where the
 * reference records give them (a variant without a record at the mean of the others'). */
typedef struct study_items {
    int n;
    double seconds;      /* all of them, expected; 0: no reference records */
    double weights;      /* all of them, as item_weight weighs each */
    long found, missing; /* variant-points with and without a reference record (once a run) */
    double mean;         /* the mean of the found ones' seconds */
} study_items;

/* Repetitions a run makes here: each a process of its own running the run whole (an item). */
static int run_repetitions(const study *s, const study_run *run)
{
    sb_measure_options opt;
    run_options(s, run, &opt);
    return opt.repetitions > 1 && !getenv(SB_REPETITION_ENV) ? opt.repetitions : 1;
}

static double run_cost(const study *s, const study_run *run, long *found, long *missing)
{
    double cost = 0;
    int last = 0;
    for (long k = 0; !last; k++) {
        sb_params params;
        if (point_params(s, run, run->w, k, &params, &last) != 0) /* checked by check_study */
            break;
        cost += point_cost(s, run, &params, found, missing);
    }
    return cost;
}

/* An item's weight: its expected seconds, a variant without a record at the mean of the others'
 * (at least 10 ms: the progress reads 0 as 1), or 1 each without reference records. */
static double item_weight(const study *s, const study_items *it, double seconds, long missing)
{
    if (!s->est || it->found == 0)
        return 1;
    seconds += (double)missing * it->mean;
    return seconds > 0.01 ? seconds : 0.01;
}

static void count_items(const study *s, char *const *only, int nonly, study_items *it)
{
    double found_seconds = 0;
    memset(it, 0, sizeof *it);
    for (int r = 0; r < s->nruns; r++) {
        const study_run *run = &s->runs[r];
        if (!runs_now(run, only, nonly))
            continue;
        int reps = run_repetitions(s, run);
        it->n += reps > 1 ? reps : (int)run->npoints;
        if (s->est)
            found_seconds += run_cost(s, run, &it->found, &it->missing);
    }
    if (it->found > 0)
        it->mean = found_seconds / (double)it->found;
    for (int r = 0; r < s->nruns; r++) { /* the items as the runs will weigh them */
        const study_run *run = &s->runs[r];
        int reps = run_repetitions(s, run), last = 0;
        if (!runs_now(run, only, nonly))
            continue;
        for (long k = 0; !last && reps == 1; k++) {
            sb_params params;
            long found = 0, missing = 0;
            if (point_params(s, run, run->w, k, &params, &last) != 0)
                break;
            double c = s->est ? point_cost(s, run, &params, &found, &missing) : 0;
            it->seconds += c + (double)missing * it->mean;
            it->weights += item_weight(s, it, c, missing);
        }
        if (reps > 1) {
            long found = 0, missing = 0;
            double c = s->est ? run_cost(s, run, &found, &missing) : 0;
            it->seconds += reps * (c + (double)missing * it->mean);
            it->weights += reps * item_weight(s, it, c, missing);
        }
    }
    if (it->found == 0)
        it->seconds = 0;
}

/* A sweep with `option repetitions N`: the study run N times for this sweep alone (--run NAME),
 * each a process of its own writing into DIR/.repetitions/NAME-<k>/, merged into DIR/NAME.json
 * after each; the first repetition's dump files are moved up into DIR. */
static int repeat_sweep(const study *s, const study_run *run, const char *dir, int n, int argc,
                        char **argv, sb_point_outcome *total)
{
    char rep_dirs[64][1200], rep_files[64][1400], out[1200];
    const char *paths[64];
    char **child = calloc((size_t)argc + 8, sizeof *child);
    if (!child)
        return sb_fail("out of host memory");
    if (n > 64) {
        free(child);
        return sb_fail("option repetitions %d: at most 64", n);
    }
    snprintf(out, sizeof out, "%s/%s.json", dir, run->name);
    int rc = 0;
    for (int k = 0; k < n && rc == 0; k++) {
        int m = 0;
        child[m++] = "stagebench";
        child[m++] = "study";
        child[m++] = (char *)s->path;
        for (int i = 1; i < argc; i++)
            if (!strcmp(argv[i], "--define") && i + 1 < argc) {
                child[m++] = argv[i];
                child[m++] = argv[++i];
            }
        snprintf(rep_dirs[k], sizeof rep_dirs[k], "%s/.repetitions/%s-%d", dir, run->name, k);
        snprintf(rep_files[k], sizeof rep_files[k], "%.1200s/%s.json", rep_dirs[k], run->name);
        paths[k] = rep_files[k];
        child[m++] = "--run";
        child[m++] = (char *)run->name;
        child[m++] = "--out";
        child[m++] = rep_dirs[k];
        child[m++] = "--quiet";
        child[m] = NULL;
        printf("run %s: repetition %d of %d (a process of its own)\n", run->name, k + 1, n);
        fflush(stdout);
        char label[128];
        long found = 0, missing = 0;
        double cost = s->est ? run_cost(s, run, &found, &missing) : 0;
        snprintf(label, sizeof label, "%s repetition %d of %d", run->name, k + 1, n);
        sb_progress_item(s->progress, label, item_weight(s, s->items, cost, missing));
        int status = sb_run_repetition(child, k, n);
        sb_progress_done(s->progress);
        if (status < 0 || status == 2)
            rc = status < 0 ? -1 : sb_fail("repetition %d of run %s refused its inputs (above)",
                                           k + 1, run->name);
        else if (status != 0)
            total->failed++; /* the repetition's records say which variant and why */
        if (rc == 0 && sb_merge_repetitions(paths, k + 1, n, out) < 0)
            rc = -1;
    }
    free(child);
    if (rc != 0)
        return rc;
    /* The dumps of the first repetition (every repetition's output is the same, validated)
     * move up; the rest of the repetitions' folders go. */
    for (int k = 0; k < n; k++) {
        glob_t g;
        char pattern[1400];
        const char *rep_dir = rep_dirs[k];
        snprintf(pattern, sizeof pattern, "%.1200s/*", rep_dir);
        if (glob(pattern, 0, NULL, &g) != 0)
            continue;
        for (size_t i = 0; i < g.gl_pathc; i++) {
            const char *base = strrchr(g.gl_pathv[i], '/') + 1;
            char to[2600];
            snprintf(to, sizeof to, "%s/%s", dir, base);
            int records = !strncmp(base, run->name, strlen(run->name)) &&
                          (!strcmp(base + strlen(run->name), ".json") ||
                           !strcmp(base + strlen(run->name), ".csv"));
            if (k > 0 || records || rename(g.gl_pathv[i], to) != 0)
                remove(g.gl_pathv[i]);
        }
        globfree(&g);
        rmdir(rep_dir);
    }
    snprintf(out, sizeof out, "%s/.repetitions", dir);
    rmdir(out); /* when no other sweep's repetitions are there */
    snprintf(out, sizeof out, "%s/%s.json", dir, run->name);
    json_t *doc = sb_json_load(out), *e;
    size_t i;
    json_array_foreach(json_object_get(doc, "benchmarks"), i, e) {
        const char *status = json_string_value(
            json_object_get(json_object_get(e, "stagebench"), "status"));
        if (status)
            total->valid += !strcmp(status, "valid");
        if (status)
            total->skipped += !strcmp(status, "skipped");
    }
    json_decref(doc);
    printf("run %s: %d repetitions merged into %s\n", run->name, n, out);
    return 0;
}

/* --resume of a sweep with repetitions: done when its file merged every repetition asked for
 * (the repetitions are then kept whole); otherwise it runs again from its first repetition. */
static int repetitions_done(const char *path, int n)
{
    json_t *doc = access(path, R_OK) == 0 ? sb_json_load(path) : NULL;
    json_t *r = json_object_get(json_object_get(json_object_get(doc, "context"), "stagebench"),
                                "repetitions");
    int done = json_integer_value(json_object_get(r, "merged")) == n &&
               json_integer_value(json_object_get(r, "asked")) == n;
    json_decref(doc);
    return done;
}

static int run_sweep(const study *s, const study_run *run, const char *dir, int argc, char **argv, int quiet, int resume,
                     sb_point_outcome *total)
{
    const sb_workload *w = run->w;
    sb_measure_options opt;
    run_options(s, run, &opt);
    char path[2048];
    snprintf(path, sizeof path, "%s/%s.json", dir, run->name);
    if (opt.repetitions > 1 && !getenv(SB_REPETITION_ENV)) {
        if (resume && repetitions_done(path, opt.repetitions)) {
            printf("run %s: its %d repetitions are in %s already; kept (--resume)\n", run->name,
                   opt.repetitions, path);
            return 0;
        }
        if (repeat_sweep(s, run, dir, opt.repetitions, argc, argv, total) != 0)
            return sb_fail_context("%s:%d: run %s", s->path, run->line, run->name);
        return 0;
    }
    sb_devices devices;
    if (sb_devices_select(&devices, run->device[0] ? run->device : NULL, !opt.isolate) != 0)
        return sb_fail_context("%s:%d: run %s", s->path, run->line, run->name);
    sb_records records;
    json_t *context = sb_context_json(argc, argv, devices.info, devices.count, &opt);
    int kept = 0, dropped = 0;
    if (!context)
        return -1;
    if (resume ? sb_records_resume(&records, path, context, w, &kept, &dropped)
               : sb_records_open(&records, path, context, w))
        return -1;
    if (resume && !quiet && (kept || dropped))
        printf("run %s: %d records kept from %s, %d failed or cut off to run again\n", run->name,
               kept, path, dropped);
    int rc = 0, last = 0;
    for (long k = 0; rc == 0 && !last; k++) {
        sb_params params;
        if ((rc = point_params(s, run, w, k, &params, &last)))
            break;
        char dump[2048], name[1024];
        dump_name(run, &params, name, sizeof name);
        snprintf(dump, sizeof dump, "%s/%s", dir, name);
        sb_point point = {w,
                          &params,
                          run->variants,
                          run->reference[0] ? run->reference : NULL,
                          run->dump[0] ? dump : NULL,
                          &opt,
                          &devices,
                          quiet,
                          0 /* kernel tables: `run --kernels` only */,
                          NULL,
                          NULL /* progress: none here */};
        sb_point_outcome o = {0, 0, 0, 0, 0, 0};
        char label[512];
        long found = 0, missing = 0;
        double cost = s->est ? point_cost(s, run, &params, &found, &missing) : 0;
        point_label(run, &params, label, sizeof label);
        fflush(stdout); /* the point's lines after the progress line, in a log of both */
        sb_progress_item(s->progress, label, item_weight(s, s->items, cost, missing));
        if ((rc = sb_point_check(&point)) || (rc = sb_point_run(&point, &records, &o)))
            break;
        sb_progress_done(s->progress);
        total->valid += o.valid;
        total->invalid += o.invalid;
        total->failed += o.failed;
        total->skipped += o.skipped;
        total->kept += o.kept;
    }
    sb_records_close(&records);
    return rc ? sb_fail_context("%s:%d: run %s", s->path, run->line, run->name) : 0;
}

/* A data figure's dump files: every point's, of every run it draws from, in point order. */
static int find_dumps(const study *s, const study_figure *fig, const char *dir, char (**paths)[2048], int *n)
{
    long total = 0;
    const study_run *runs[SB_STUDY_MAX_RUNS];
    int nruns = 0;
    for (const char *r = fig->from; *r && nruns < SB_STUDY_MAX_RUNS;) {
        size_t len = strcspn(r, ",");
        const study_run *run = find_run(s, r, len); /* NULL: a records line (no dumps) */
        r += len + (r[len] == ',');
        if (!run)
            continue;
        runs[nruns++] = run;
        total += run->dump[0] ? run->npoints : 0;
    }
    *n = 0;
    if (total == 0)
        return 0;
    if (!(*paths = calloc((size_t)total, sizeof **paths)))
        return sb_fail("out of host memory");
    for (int i = 0; i < nruns; i++) {
        if (!runs[i]->dump[0])
            continue;
        int last = 0;
        for (long k = 0; !last; k++) {
            sb_params params;
            char name[1024];
            if (point_params(s, runs[i], runs[i]->w, k, &params, &last) != 0)
                return -1;
            dump_name(runs[i], &params, name, sizeof name);
            snprintf((*paths)[*n], sizeof **paths, "%s/%s", dir, name);
            if (access((*paths)[*n], R_OK) != 0)
                return sb_fail("%s: %s: run %s writes it (stagebench study %s --run %s --out %s)",
                               (*paths)[*n], strerror(errno), runs[i]->name, s->path,
                               runs[i]->name, dir);
            ++*n;
        }
    }
    return 0;
}

#define MAX_INPUTS 64

static int draw(const study *s, const study_figure *fig, const char *dir)
{
    const char *inputs[MAX_INPUTS];
    static char paths[MAX_INPUTS][2048];
    char from[256], prefix[2048], script[1024];
    int n = 0, ndumps = 0;
    snprintf(from, sizeof from, "%s", fig->from);
    for (char *save = NULL, *r = strtok_r(from, ",", &save); r && n < MAX_INPUTS;
         r = strtok_r(NULL, ",", &save)) {
        const sb_table_source *src = find_source(s, r, strlen(r));
        if (src->is_run) { /* its records, or their committed compressed copy */
            snprintf(paths[n], sizeof paths[n], "%s/%s", dir, src->pattern);
            size_t len = strlen(paths[n]);
            if (access(paths[n], F_OK) != 0 && len + 4 <= sizeof paths[n]) {
                memcpy(paths[n] + len, ".xz", 4);
                if (access(paths[n], F_OK) != 0)
                    paths[n][len] = '\0';
            }
            inputs[n] = paths[n];
            n++;
            continue;
        }
        char pattern[2048]; /* records: every file there (none: the figure goes without) */
        glob_t g;
        snprintf(pattern, sizeof pattern, "%s/%s", dir, src->pattern);
        if (sb_glob_records(pattern, &g) != 0)
            continue;
        for (size_t i = 0; i < g.gl_pathc && n < MAX_INPUTS; i++) {
            if (sb_is_temp_file(g.gl_pathv[i])) /* a write cut off left it: not records */
                continue;
            snprintf(paths[n], sizeof paths[n], "%s", g.gl_pathv[i]);
            inputs[n] = paths[n];
            n++;
        }
        globfree(&g);
    }
    char(*dumps)[2048] = NULL;
    const char **dump_list = NULL;
    int data = !strcmp(fig->kind, "data");
    if (data && find_dumps(s, fig, dir, &dumps, &ndumps) != 0) {
        free(dumps);
        return -1;
    }
    if (ndumps > 0 && !(dump_list = calloc((size_t)ndumps, sizeof *dump_list))) {
        free(dumps);
        return sb_fail("out of host memory");
    }
    for (int i = 0; i < ndumps; i++)
        dump_list[i] = dumps[i];
    snprintf(prefix, sizeof prefix, "%s/%s", dir, fig->name);
    if (fig->script[0])
        snprintf(script, sizeof script, "%s/%s", sb_plots_dir(), fig->script);
    sb_plot_request r = {
        .kind = !strcmp(fig->kind, "speedup")  ? SB_PLOT_SPEEDUP
                : !strcmp(fig->kind, "series") ? SB_PLOT_SERIES
                : data                         ? SB_PLOT_DATA
                                               : SB_PLOT_TIME,
        .inputs = inputs,
        .ninputs = n,
        .out_prefix = prefix,
        .title = fig->title[0] ? fig->title : NULL,
        .x_param = fig->x[0] ? fig->x : NULL,
        .variants = fig->variants[0] ? fig->variants : NULL,
        .baseline = fig->baseline[0] ? fig->baseline : NULL,
        .series = fig->series[0] ? fig->series : NULL,
        .where = fig->where[0] ? fig->where : NULL,
        .script = fig->script[0] ? script : NULL,
        .dumps = dump_list,
        .ndumps = ndumps,
    };
    int rc = sb_plot(&r);
    free(dump_list);
    free(dumps);
    return rc;
}

/* --check: the figure scripts are there, and what the study would run and draw. */
static int print_plan(const study *s)
{
    for (int i = 0; i < s->nfigures; i++) {
        const study_figure *fig = &s->figures[i];
        char script[2048];
        snprintf(script, sizeof script, "%s/%s", sb_plots_dir(), fig->script);
        if (fig->script[0] && access(script, R_OK) != 0)
            return sb_fail("%s:%d: figure %s: script %s: %s (scripts are found in %s; "
                           "$STAGEBENCH_PLOTS names another directory)",
                           s->path, fig->line, fig->name, script, strerror(errno),
                           sb_plots_dir());
    }
    printf("study %s (%s): %d run%s, %d figure%s, %d table%s; checked: every point's "
           "parameters, the variants, references, figure inputs and scripts, the tables' rows, "
           "columns, published values and placeholders\n",
           s->name, s->path, s->nruns, s->nruns == 1 ? "" : "s", s->nfigures,
           s->nfigures == 1 ? "" : "s", s->ntables, s->ntables == 1 ? "" : "s");
    for (int i = 0; i < s->nruns; i++) {
        const study_run *run = &s->runs[i];
        printf("run %s: %ld point%s; variants %s; reference %s", run->name, run->npoints,
               run->npoints == 1 ? "" : "s", run->variants,
               run->reference[0] ? run->reference : run->w->reference);
        if (run->workload[0])
            printf("; workload %s", run->w->name);
        for (int k = 0; k < run->noptions; k++)
            printf("; option %s%s%s", run->options[k].name, run->options[k].has_value ? " " : "",
                   run->options[k].value);
        if (run->dump[0]) {
            sb_params params;
            char name[1024];
            int last;
            point_params(s, run, run->w, 0, &params, &last); /* checked by check_study */
            dump_name(run, &params, name, sizeof name);
            printf("; dump %s%s", name, run->npoints > 1 ? " and one per other point" : "");
        }
        putchar('\n');
    }
    for (int i = 0; i < s->nrecords; i++)
        printf("records %s: %s in the output directory, written by another command%s%s\n",
               s->records[i].name, s->records[i].pattern, s->records[i].how[0] ? ": " : "",
               s->records[i].how);
    for (int i = 0; i < s->nfigures; i++)
        printf("figure %s: %s from %s%s%s\n", s->figures[i].name, s->figures[i].kind,
               s->figures[i].from, s->figures[i].script[0] ? ", script " : "",
               s->figures[i].script);
    for (int i = 0; i < s->ntables; i++)
        sb_table_plan(&s->tables[i], stdout);
    return 0;
}

/* --resume: what a study cut off left in DIR besides its records: the temporary files of writes
 * it was killed in (*.tmp.<pid>, sb_is_temp_file), its isolated variants' folders
 * (.isolated-<pid>/) and its repetitions' folders (.repetitions/, run again whole). Nothing else
 * may be writing into DIR meanwhile. */
static void remove_tree(const char *path)
{
    char pattern[4200];
    glob_t g;
    snprintf(pattern, sizeof pattern, "%s/*", path);
    if (glob(pattern, GLOB_PERIOD, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            const char *base = strrchr(g.gl_pathv[i], '/') + 1;
            if (strcmp(base, ".") && strcmp(base, "..") && remove(g.gl_pathv[i]) != 0)
                remove_tree(g.gl_pathv[i]);
        }
        globfree(&g);
    }
    rmdir(path);
}

static void clean_leftovers(const char *dir, int quiet)
{
    char pattern[2048];
    glob_t g;
    int removed = 0;
    snprintf(pattern, sizeof pattern, "%s/*", dir);
    if (glob(pattern, GLOB_PERIOD, NULL, &g) != 0)
        return;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *path = g.gl_pathv[i], *base = strrchr(path, '/') + 1;
        if (sb_is_temp_file(path) && remove(path) == 0)
            removed++;
        else if (!strncmp(base, ".isolated-", 10) || !strcmp(base, ".repetitions")) {
            remove_tree(path);
            removed++;
        }
    }
    globfree(&g);
    if (removed && !quiet)
        printf("resume: %d leftover temporary file%s or folder%s of the cut-off run removed\n",
               removed, removed == 1 ? "" : "s", removed == 1 ? "" : "s");
}

/* A figure or table that failed: which of the records files its from= names cannot be read (not
 * JSON, unreadable)? Each such file is said once, on stderr, in one line with the fix; a missing
 * file is not a fault (the table notes it, the figure goes without). state[i] per source: 0 not
 * checked yet, 1 readable, 2 a file is not. Returns whether any named source has a bad file. */
static int bad_records(const study *s, const char *from, int *state, const char *file,
                       const char *dir)
{
    int bad = 0;
    for (const char *p = from; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
        const sb_table_source *src = find_source(s, p, strcspn(p, ","));
        if (!src)
            continue;
        int i = (int)(src - s->sources);
        if (state[i] == 0) {
            char pattern[2048];
            glob_t g;
            state[i] = 1;
            snprintf(pattern, sizeof pattern, "%s/%s", dir, src->pattern);
            if (sb_glob_records(pattern, &g) != 0)
                continue;
            for (size_t k = 0; k < g.gl_pathc; k++) {
                json_t *doc;
                if (sb_is_temp_file(g.gl_pathv[k])) /* a write cut off left it: not records */
                    continue;
                if ((doc = sb_json_load(g.gl_pathv[k]))) {
                    json_decref(doc);
                    continue;
                }
                char why[1024];
                snprintf(why, sizeof why, "%s", sb_error());
                for (char *c = why; *c; c++) /* jansson's text may quote a line end */
                    if (*c == '\n' || *c == '\r')
                        *c = ' ';
                state[i] = 2;
                if (src->is_run)
                    fprintf(stderr,
                            "stagebench study: %s: the records of run %s; run it again "
                            "(stagebench study %s --run %s --out %s), or fix the file or move "
                            "it out of %s, then --figures-only again\n",
                            why, src->name, file, src->name, dir, dir);
                else
                    fprintf(stderr,
                            "stagebench study: %s: a file of records %s; write it again%s%s%s, or "
                            "fix it or move it out of %s, then --figures-only again\n",
                            why, src->name, src->how[0] ? " (" : "", src->how,
                            src->how[0] ? ")" : "", dir);
            }
            globfree(&g);
        }
        bad |= state[i] == 2;
    }
    return bad;
}

static int listed(char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

/* 1 when DIR holds a records file of source src (a run's NAME.json or .json.xz, a records
 * line's pattern). */
static int source_in(const sb_table_source *src, const char *dir)
{
    char pattern[2048];
    glob_t g;
    int found = 0;
    snprintf(pattern, sizeof pattern, "%s/%s", dir, src->pattern);
    if (sb_glob_records(pattern, &g) != 0)
        return 0;
    for (size_t k = 0; k < g.gl_pathc && !found; k++)
        found = !sb_is_temp_file(g.gl_pathv[k]);
    globfree(&g);
    return found;
}

/* The share of the study's variant-points a folder of records holds (GPU variants' too,
 * wherever this runs: which folder is the study's does not depend on it). */
static double estimate_coverage(const sb_estimate *e, void *ctx)
{
    study *s = ctx;
    study_items it;
    sb_estimate *before = s->est;
    int skip_gpu = s->skip_gpu;
    s->est = (sb_estimate *)e, s->skip_gpu = 0;
    count_items(s, NULL, 0, &it);
    s->est = before, s->skip_gpu = skip_gpu;
    return it.found > 0 ? (double)it.found / (double)(it.found + it.missing) : 0;
}

/* The reference records of the points' durations (s->est; NULL with the reason in why), from
 * --estimate-from DIR or this machine's GPU's baselines. -1 when DIR was given and is at fault. */
static int open_estimate(study *s, const char *given, char *why, size_t cap)
{
    static const char *runs[SB_STUDY_MAX_RUNS]; /* the estimate keeps them */
    sb_device_info info = {0};
    int error = 0;
    for (int i = 0; i < s->nruns; i++)
        runs[i] = s->runs[i].name;
    s->gpus = sb_device_count();
    if (s->gpus > 0 && sb_device_query(0, &info) != 0)
        s->gpus = 0, sb_error_clear(); /* a GPU whose facts cannot be read: no estimate by it */
    s->est = sb_estimate_open(s->path, runs, s->nruns, given, info.name, s->gpus,
                              estimate_coverage, s, why, cap, &error);
    return error ? -1 : 0;
}

/* --check's last line: the study's expected duration, and where it comes from. */
static void print_estimate(const study *s, const char *why)
{
    study_items it;
    char took[32];
    if (!s->est) {
        printf("no estimate: %s\n", why);
        return;
    }
    count_items(s, NULL, 0, &it); /* found > 0: sb_estimate_open took the folder for it */
    sb_format_duration(it.seconds, took, sizeof took);
    printf("estimated duration: about %s, from the records in %s/ (each variant's warm-up, "
           "validation, samples and counter passes at their wall time, and with isolation the "
           "reference's runs: once a point for a CPU reference kept between the processes, else "
           "once a process; loading and set-up not counted)",
           took, sb_estimate_dir(s->est));
    if (it.missing > 0)
        printf("; %ld of %ld variant-points have no record there, counted at the others' mean",
               it.missing, it.missing + it.found);
    int gpu_variants = 0;
    for (int r = 0; r < s->nruns; r++)
        for (int i = 0; i < s->runs[r].w->nvariants; i++)
            gpu_variants |= (s->runs[r].w->variants[i].needs & SB_NEEDS_GPU) &&
                            in_list(s->runs[r].variants, s->runs[r].w->variants[i].name);
    if (s->gpus == 0 && gpu_variants) /* --estimate-from without a GPU: planning a GPU's session */
        printf("; on the GPU those records were made on: this machine has none, and would skip "
               "the GPU variants");
    putchar('\n');
}

/* The summary's tail: figures gnuplot was not here to draw. */
static const char *skipped_text(int skipped, char *buf, size_t cap)
{
    if (!skipped)
        return "";
    snprintf(buf, cap, " (%d skipped: gnuplot is not installed)", skipped);
    return buf;
}

int sb_study_main(const sb_study_args *a, int argc, char **argv)
{
    const char *file = a->file, *out = a->out;
    char *const *only = a->only;
    int nonly = a->nonly, quiet = a->quiet, figures_only = a->figures_only, check = a->check;
    int resume = a->resume;
    static study s;
    memset(&s, 0, sizeof s);
    const sb_workload *w = NULL;
    int rc = parse(&s, file, a->defines, a->ndefines);
    if (rc == 0 && s.workload[0] && !(w = sb_find_workload(s.workload)))
        rc = -1;
    for (int i = 0; rc == 0 && i < s.nruns; i++) /* a run's own workload */
        if (s.runs[i].workload[0] && !(s.runs[i].w = sb_find_workload(s.runs[i].workload)))
            rc = sb_fail_context("%s:%d: run %s", file, s.runs[i].line, s.runs[i].name);
    if (rc != 0 || check_study(&s, w) != 0) {
        fprintf(stderr, "stagebench study: %s\n", sb_error());
        return 2;
    }
    for (int k = 0; k < nonly; k++) {
        int found = 0;
        for (int i = 0; i < s.nruns; i++)
            found |= strcmp(s.runs[i].name, only[k]) == 0;
        if (!found) { /* a misspelt --run would otherwise run nothing, silently */
            fprintf(stderr, "stagebench study: --run %s: %s has no such run\n", only[k], file);
            return 2;
        }
    }
    /* the inputs of what will run: every run's with --check */
    if (!figures_only && check_inputs(&s, check ? NULL : only, check ? 0 : nonly) != 0) {
        fprintf(stderr, "stagebench study: %s\n", sb_error());
        return 2;
    }
    char why[1024] = "";
    if (check) {
        if (open_estimate(&s, a->estimate_from, why, sizeof why) != 0 || print_plan(&s) != 0) {
            fprintf(stderr, "stagebench study: %s\n", sb_error());
            return 2;
        }
        print_estimate(&s, why);
        sb_estimate_close(s.est);
        return 0;
    }
    if (!figures_only && check_machine(&s, only, nonly) != 0) {
        fprintf(stderr, "stagebench study: %s\n", sb_error());
        return 2;
    }
    /* Progress on stderr: silent with --quiet, and in every mpirun process but the first (they
     * run the same points together). */
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    rank = rank ? rank : getenv("PMI_RANK");
    rank = rank ? rank : getenv("PMIX_RANK");
    int silent = quiet || figures_only || (rank && atoi(rank) > 0);
    if (!silent && open_estimate(&s, a->estimate_from, why, sizeof why) != 0) {
        fprintf(stderr, "stagebench study: %s\n", sb_error());
        return 2;
    }
    s.skip_gpu = s.gpus == 0; /* the progress weighs what runs here */
    char dir[1024];
    if (out)
        snprintf(dir, sizeof dir, "%s", out);
    else
        sb_default_run_path(s.name, "", dir, sizeof dir);
    /* --figures-only over a folder without records would make every table empty and draw
     * nothing: the folder is the mistake, said once */
    int any = 0;
    for (int i = 0; i < s.nsources && figures_only; i++)
        any |= source_in(&s.sources[i], dir);
    if (figures_only && !any) {
        fprintf(stderr, "stagebench study: no records in %s (the runs of %s write %s.json "
                "there%s): run the study into it first (stagebench study %s --out %s), or give "
                "the folder that holds them\n",
                dir, file, s.runs[0].name, s.nruns > 1 ? " and so on" : "", file, dir);
        return 2;
    }
    printf("study %s: %d sweeps, %d figures, %d tables, into %s/\n", s.name,
           figures_only ? 0 : s.nruns, s.nfigures, s.ntables, dir);
    fflush(stdout);
    sb_point_outcome total = {0, 0, 0, 0, 0, 0};
    study_items items;
    sb_progress progress;
    char what[128];
    if (!figures_only) {
        count_items(&s, only, nonly, &items);
        snprintf(what, sizeof what, "study %s", s.name);
        sb_progress_start(&progress, what, items.n, items.weights, items.seconds, silent);
        /* the runner's lines go to stdout, a line each: on the same terminal a line rewritten in
         * place would be cut into by them, so the progress writes lines there too */
        if (progress.live && isatty(fileno(stdout)))
            progress.live = 0;
        if (!silent && s.est && items.found > 0)
            fprintf(stderr, "%s: the time left weighed by the records in %s/\n", what,
                    sb_estimate_dir(s.est));
        s.progress = &progress;
        s.items = &items;
    }
    if (resume && !figures_only)
        clean_leftovers(dir, quiet);
    for (int i = 0; i < s.nruns && !figures_only; i++) {
        if (nonly > 0 && !listed(only, nonly, s.runs[i].name))
            continue;
        if (!quiet)
            printf("run %s\n", s.runs[i].name);
        if (run_sweep(&s, &s.runs[i], dir, argc, argv, quiet, resume, &total) != 0) {
            fprintf(stderr, "stagebench study: %s\n", sb_error());
            sb_estimate_close(s.est);
            return 2;
        }
    }
    if (!figures_only)
        sb_progress_end(&progress);
    sb_estimate_close(s.est);
    s.est = NULL;
    /* A records file that cannot be read, or a table not made, is an error (exit 2); with
     * --figures-only, whose purpose they are, so is a figure not drawn. A figure the records give
     * nothing to draw from after a run (CPU records of a GPU figure) is said, not an error; one
     * skipped because gnuplot is not installed is neither: the tables, which need no gnuplot,
     * are still made (bench/scripts/goals reads them on any machine). A table whose records are
     * all missing is made, its cells "—" and its goals "not measured", as the goals of a partial
     * run are read; a folder without any records is refused above. */
    int drawn = 0, skipped = 0, tabled = 0, errors = 0;
    int state[SB_STUDY_MAX_RUNS + MAX_RECORDS] = {0};
    int goals[3] = {0, 0, 0}, ngoals = 0; /* met, missed, not measured */
    if (nonly > 0)
        printf("figures and tables: when every run is done, stagebench study %s --out %s "
               "--figures-only\n",
               file, dir);
    for (int i = 0; i < s.nfigures && nonly == 0; i++) {
        const study_figure *fig = &s.figures[i];
        int drew = draw(&s, fig, dir);
        if (drew == 0) {
            printf("figure %s: %s/%s.png (.svg)\n", fig->name, dir, fig->name);
            drawn++;
            continue;
        }
        char why_not[1024];
        snprintf(why_not, sizeof why_not, "%s", sb_error());
        if (drew == SB_REFUSED) {
            printf("figure %s: skipped: %s\n", fig->name, why_not);
            skipped++;
            continue;
        }
        printf("figure %s: not drawn: %s\n", fig->name, why_not);
        fflush(stdout);
        int bad = bad_records(&s, fig->from, state, file, dir);
        errors += bad;
        if (figures_only && !bad) { /* not its records: said here (a records file's fault was) */
            fprintf(stderr, "stagebench study: %s:%d: figure %s: not drawn: %s\n", file,
                    fig->line, fig->name, why_not);
            errors++;
        }
    }
    for (int i = 0; i < s.ntables && nonly == 0; i++) {
        const sb_table *t = &s.tables[i];
        ngoals += t->ngoals;
        if (sb_table_render_goals(t, s.sources, s.nsources, dir, stdout, goals) == 0) {
            printf("table %s: %s/%s.md\n", t->name, dir, t->name);
            tabled++;
            continue;
        }
        char why_not[1024];
        snprintf(why_not, sizeof why_not, "%s", sb_error());
        printf("table %s: not made: %s\n", t->name, why_not);
        fflush(stdout);
        int bad = bad_records(&s, t->key[SB_TK_FROM], state, file, dir);
        for (int r = 0; r < t->nrows; r++)
            bad |= bad_records(&s, t->rows[r].key[SB_TK_FROM], state, file, dir);
        if (!bad) /* not its records: said here (a records file's fault was, above) */
            fprintf(stderr, "stagebench study: table %s: not made: %s\n", t->name, why_not);
        errors++;
    }
    char goals_text[128] = "", skipped_buf[64]; /* the tables' goals, as their Goals lists say */
    if (ngoals && nonly == 0)
        snprintf(goals_text, sizeof goals_text, "goals %d met, %d missed, %d not measured; ",
                 goals[0], goals[1], goals[2]);
    printf("study %s: %d valid, %d invalid, %d failed, %d skipped records; %d of %d figures%s; "
           "%d of %d tables; %sin %s/\n",
           s.name, total.valid, total.invalid, total.failed, total.skipped, drawn, s.nfigures,
           skipped_text(skipped, skipped_buf, sizeof skipped_buf), tabled, s.ntables,
           goals_text, dir);
    if (resume)
        printf("study %s: %d of those records kept from before (--resume)\n", s.name,
               total.kept);
    if (errors)
        return 2;
    return total.invalid || total.failed ? 1 : 0;
}
