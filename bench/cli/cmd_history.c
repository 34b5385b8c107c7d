/* stagebench history add|show|check: the performance history (harness/history.h). */
#include "commands.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../cuda/base/error.h"
#include "../../harness/history.h"
#include "../../harness/json.h"
#include "../report/plot.h"

static const char usage[] =
    "usage: stagebench history add <db> <records.json>... [--commit C]\n"
    "       stagebench history show <db> [--benchmark GLOB] [--device NAME] [--last N]\n"
    "                                    [--plot DIR]\n"
    "       stagebench history check <db> [--threshold 0.02] [--benchmark GLOB] [--device NAME]\n"
    "\n"
    "The performance history: an SQLite file with a row per benchmark, commit and device, and\n"
    "the change points of each benchmark's medians (E-divisive means, a permutation test).\n"
    "`stagebench history <command> --help` describes each.\n";

static const char add_usage[] =
    "usage: stagebench history add <db> <records.json>... [--commit C]\n"
    "\n"
    "Adds the records files (from stagebench run) to the history <db>, made when missing, in\n"
    "one transaction: a row per benchmark, keyed by commit, device, workload, variant and\n"
    "parameters. The entries of a benchmark's repetitions become one row (the median of their\n"
    "medians; their spread as its noise). A row already there for the key is replaced and keeps\n"
    "its place in the order added. Other writers are waited for (up to 10 s).\n"
    "\n"
    "  --commit C   the commit the rows belong to (default: each file's\n"
    "               context.stagebench.git_commit); CI passes the commit it tested\n"
    "  -h, --help   this text\n"
    "\n"
    "Exit status: 0 added; 2 bad usage, an unreadable records file, or a <db> that is not a\n"
    "stagebench history (nothing is written then).\n";

static const char show_usage[] =
    "usage: stagebench history show <db> [--benchmark GLOB] [--device NAME] [--last N]\n"
    "                                    [--plot DIR]\n"
    "\n"
    "Prints each benchmark's series in the order added: seq, commit, median, change from the\n"
    "row before, noise, repetitions, and a mark at each change point with the change between\n"
    "the segments' means.\n"
    "\n"
    "  --benchmark GLOB  only benchmarks whose name matches (shell pattern; * matches /)\n"
    "  --device NAME     only rows of this device (a pattern too), e.g. 'NVIDIA H100*'\n"
    "  --last N          the newest N rows of each (change points are found over all)\n"
    "  --plot DIR        also DIR/<benchmark>--<device>.png (gnuplot) and its .dat\n"
    "  -h, --help        this text\n"
    "\n"
    "Exit status: 0 shown; 2 bad usage, an unreadable history, or nothing matches.\n";

static const char check_usage[] =
    "usage: stagebench history check <db> [--threshold 0.02] [--benchmark GLOB] [--device NAME]\n"
    "\n"
    "Fails when a benchmark's newest segment (the one holding its newest row) is slower than\n"
    "the segment before it by more than the threshold: a step, or a drift of small steps that\n"
    "no comparison of two neighbouring commits would flag. Prints a line per such benchmark.\n"
    "\n"
    "  --threshold X     relative slow-down that counts, in (0, 10) (default 0.02: 2 %)\n"
    "  --benchmark GLOB  only benchmarks whose name matches (shell pattern)\n"
    "  --device NAME     only rows of this device (a pattern too)\n"
    "  -h, --help        this text\n"
    "\n"
    "Exit status: 0 no benchmark slower; 1 a benchmark slower; 2 bad usage, an unreadable\n"
    "history, or nothing matches.\n";

/* One line on stderr; returns the exit status of bad usage or input. */
static int fail(const char *fmt, ...) SB_PRINTF(1, 2);
static int fail(const char *fmt, ...)
{
    va_list ap;
    fputs("stagebench history: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

typedef struct options {
    const char *db;
    const char **records; /* add: argv's records files */
    int nrecords;
    const char *commit, *benchmark, *device, *plot_dir;
    int last;             /* 0: every row */
    double threshold;
} options;

/* Whether option is a word of the space-separated list allowed. */
static int allows(const char *allowed, const char *option)
{
    size_t n = strlen(option);
    for (const char *s = strstr(allowed, option); s; s = strstr(s + 1, option))
        if ((s == allowed || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\0'))
            return 1;
    return 0;
}

/* argv[0] is the subcommand; allowed lists its options; o->records, when not NULL, takes the
 * arguments after the history file. Returns 0 to go on, -1 after --help, or 2 (the message
 * printed). */
static int parse(int argc, char **argv, const char *allowed, const char *help, options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs(help, stdout);
            return -1;
        }
        if (arg[0] != '-') {
            if (!o->db)
                o->db = arg;
            else if (o->records)
                o->records[o->nrecords++] = arg;
            else
                return fail("%s: unexpected argument '%s'; give one history file (see "
                            "stagebench history %s --help)", argv[0], arg, argv[0]);
            continue;
        }
        if (!allows(allowed, arg))
            return fail("%s: unknown option '%s'; see stagebench history %s --help", argv[0],
                        arg, argv[0]);
        if (i + 1 == argc)
            return fail("%s needs a value; see stagebench history %s --help", arg, argv[0]);
        const char *value = argv[++i];
        char *end;
        if (strcmp(arg, "--commit") == 0) {
            if (!*value)
                return fail("--commit needs a commit, e.g. $(git rev-parse HEAD)");
            o->commit = value;
        } else if (strcmp(arg, "--benchmark") == 0) {
            o->benchmark = value;
        } else if (strcmp(arg, "--device") == 0) {
            o->device = value;
        } else if (strcmp(arg, "--plot") == 0) {
            o->plot_dir = value;
        } else if (strcmp(arg, "--last") == 0) {
            long n = strtol(value, &end, 10);
            if (end == value || *end || n < 1 || n > 1000000)
                return fail("--last must be a whole number of rows >= 1, e.g. 30; got '%s'",
                            value);
            o->last = (int)n;
        } else { /* --threshold */
            o->threshold = strtod(value, &end);
            if (end == value || *end || !isfinite(o->threshold) || o->threshold <= 0 ||
                o->threshold >= 10)
                return fail("--threshold must be a number in (0, 10), e.g. 0.02 for 2 %%; got "
                            "'%s'", value);
        }
    }
    if (!o->db)
        return fail("%s: give the history file (see stagebench history %s --help)", argv[0],
                    argv[0]);
    if (o->records && o->nrecords == 0)
        return fail("add: give the records files to add after %s (see stagebench history add "
                    "--help)", o->db);
    return 0;
}

/* ---- Formatting ---------------------------------------------------------------------------- */

static const struct unit {
    const char *name;
    double seconds;
} units[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};

/* The largest unit that seconds is at least one of. */
static const struct unit *unit_for(double seconds)
{
    size_t u = 0;
    while (u + 1 < sizeof units / sizeof units[0] && seconds < units[u].seconds)
        u++;
    return &units[u];
}

/* "12.35 ms": four or five significant digits. */
static void format_time(double seconds, char *out, size_t cap)
{
    const struct unit *u = unit_for(seconds);
    double v = seconds / u->seconds;
    snprintf(out, cap, v < 10 ? "%.3f %s" : v < 100 ? "%.2f %s" : "%.1f %s", v, u->name);
}

/* The first 8 characters of a hash, and what follows it after a '+' ("+dirty"). */
static void short_commit(const char *commit, char *out, size_t cap)
{
    const char *suffix = strchr(commit, '+');
    int hash = suffix ? (int)(suffix - commit) : (int)strlen(commit);
    snprintf(out, cap, "%.*s%s", hash < 8 ? hash : 8, commit, suffix ? suffix : "");
}

static int is_valid(const sb_history_row *r)
{
    return r->median > 0;
}

/* The change point at row i, or NULL. */
static const sb_history_change *change_at(const sb_history_change *c, int found, int i)
{
    for (int k = 0; k < found; k++)
        if (c[k].row == i)
            return &c[k];
    return NULL;
}

static void print_series(const sb_history_series *s, const sb_history_change *c, int found,
                         int first)
{
    printf("%s on %s: %d row%s, %d change point%s\n", s->benchmark, s->device, s->nrows,
           s->nrows == 1 ? "" : "s", found, found == 1 ? "" : "s");
    printf("  %6s  %-14s  %10s  %8s  %7s  %4s\n", "seq", "commit", "median", "change", "noise",
           "reps");
    const sb_history_row *previous = NULL;
    for (int i = 0; i < first; i++)
        if (is_valid(&s->rows[i]))
            previous = &s->rows[i];
    for (int i = first; i < s->nrows; i++) {
        const sb_history_row *r = &s->rows[i];
        char commit[64], median[32] = "-", change[32] = "-", noise[32] = "-";
        short_commit(r->commit, commit, sizeof commit);
        if (is_valid(r)) {
            format_time(r->median, median, sizeof median);
            if (previous)
                snprintf(change, sizeof change, "%+.1f %%",
                         100 * (r->median / previous->median - 1));
            snprintf(noise, sizeof noise, "%.1f %%", 100 * r->noise);
            previous = r;
        } else {
            snprintf(median, sizeof median, "%s", r->status);
        }
        printf("  %6lld  %-14s  %10s  %8s  %7s  %4d", r->seq, commit, median, change, noise,
               r->repetitions);
        const sb_history_change *at = change_at(c, found, i);
        if (at)
            printf("  <- change %+.1f %% (p %.3g)", 100 * at->change, at->p);
        putchar('\n');
    }
}

/* ---- Figures ------------------------------------------------------------------------------- */

/* A gnuplot string variable: single quotes, where '' is a quote. */
static void gp_set(FILE *f, const char *name, const char *value)
{
    fprintf(f, "%s = '", name);
    for (const char *c = value; *c; c++) {
        if (*c == '\'')
            fputc('\'', f);
        fputc(*c == '\n' ? ' ' : *c, f);
    }
    fputs("'; ", f);
}

/* `gnuplot -e <variables> <script>`, as stagebench plot runs it; an old figure must not pass
 * for the new one. */
static int run_gnuplot(const char *variables, const char *script, const char *png)
{
    unlink(png);
    if (sb_run_gnuplot(variables, script, "$STAGEBENCH_PLOTS names the directory of "
                       "history.gp") != 0)
        return -1;
    struct stat st;
    if (stat(png, &st) != 0 || st.st_size == 0)
        return sb_fail("gnuplot script %s wrote no %s", script, png);
    return 0;
}

/* The figures of one show: the file names given so far, so that no two benchmarks share one. */
typedef struct figures {
    const char *dir;
    char **names;
    int n;
} figures;

/* "<benchmark>--<device>" with every character but letters, digits, '.', '-' and '_' as '_';
 * a long one cut, with a hash of the whole for its end; "-2", "-3"... when taken already. */
static int figure_name(figures *f, const sb_history_series *s, char *out, size_t cap)
{
    char whole[8192];
    int len = snprintf(whole, sizeof whole, "%s--%s", s->benchmark, s->device);
    uint32_t hash = 2166136261u; /* FNV-1a */
    for (int i = 0; whole[i]; i++) {
        hash = (hash ^ (unsigned char)whole[i]) * 16777619u;
        char c = whole[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == '_'))
            whole[i] = '_';
    }
    if (len > 200)
        snprintf(whole + 190, sizeof whole - 190, "-%08x", (unsigned)hash);
    snprintf(out, cap, "%.200s", whole);
    for (int k = 2;; k++) {
        int taken = 0;
        for (int i = 0; i < f->n && !taken; i++)
            taken = strcmp(f->names[i], out) == 0;
        if (!taken)
            break;
        snprintf(out, cap, "%.200s-%d", whole, k);
    }
    char **grown = realloc(f->names, (size_t)(f->n + 1) * sizeof *grown);
    if (!grown || !(grown[f->n] = strdup(out))) {
        if (grown)
            f->names = grown;
        return sb_fail("out of memory for the figures' names");
    }
    f->names = grown;
    f->n++;
    return 0;
}

/* The figure's data, positions counted from `first` (1): block 0 the valid rows (position,
 * median in unit, commit); block 1 each segment's geometric mean as a level from its first
 * position - 0.5 to its last + 0.5, segments apart (a blank line breaks a gnuplot line). */
static int write_data(const char *path, const sb_history_series *s, const sb_history_change *c,
                      int found, int first, const struct unit *u)
{
    char *data = NULL;
    size_t len;
    FILE *out = open_memstream(&data, &len);
    if (!out)
        return sb_fail("out of memory for %s", path);
    fprintf(out, "# %s on %s\n# position, median (%s), commit\n", s->benchmark, s->device,
            u->name);
    for (int i = first; i < s->nrows; i++) {
        char commit[64];
        short_commit(s->rows[i].commit, commit, sizeof commit);
        if (is_valid(&s->rows[i]))
            fprintf(out, "%d %.9g %s\n", i - first + 1, s->rows[i].median / u->seconds, commit);
    }
    fprintf(out, "\n\n# segments: position, geometric mean (%s)\n", u->name);
    for (int k = 0; k <= found; k++) {
        int from = k ? c[k - 1].row : 0, to = k < found ? c[k].row : s->nrows, n = 0;
        double logs = 0;
        for (int i = from; i < to; i++)
            if (is_valid(&s->rows[i])) {
                logs += log(s->rows[i].median);
                n++;
            }
        if (to <= first || n == 0)
            continue;
        double level = exp(logs / n) / u->seconds;
        int left = (from > first ? from : first) - first + 1, right = to - first;
        fprintf(out, "%g %.9g\n%g %.9g\n\n", left - 0.5, level, right + 0.5, level);
    }
    fclose(out);
    int rc = sb_write_atomic(path, data, len);
    free(data);
    return rc;
}

/* DIR/<name>.dat and DIR/<name>.png of the rows from `first` on; nothing without a valid row. */
static int plot_series(figures *f, const sb_history_series *s, const sb_history_change *c,
                       int found, int first)
{
    double largest = 0;
    for (int i = first; i < s->nrows; i++)
        if (is_valid(&s->rows[i]) && s->rows[i].median > largest)
            largest = s->rows[i].median;
    if (largest == 0)
        return 0;
    const struct unit *u = unit_for(largest);
    char name[256], base[4400], data[4408], png[4408], script[4608];
    if (figure_name(f, s, name, sizeof name) != 0)
        return -1;
    snprintf(base, sizeof base, "%s/%s", f->dir, name);
    snprintf(data, sizeof data, "%s.dat", base);
    snprintf(png, sizeof png, "%s.png", base);
    if (write_data(data, s, c, found, first, u) != 0)
        return -1;

    char title[8192], ylabel[64], changes[4096] = "", *vars = NULL;
    size_t used = 0, len;
    for (int k = 0; k < found && used < sizeof changes; k++)
        if (c[k].row >= first)
            used += (size_t)snprintf(changes + used, sizeof changes - used, "%s%d",
                                     used ? " " : "", c[k].row - first + 1);
    snprintf(title, sizeof title, "%s on %s", s->benchmark, s->device);
    snprintf(ylabel, sizeof ylabel, "median (%s)", u->name);
    FILE *out = open_memstream(&vars, &len);
    if (!out)
        return sb_fail("out of memory for the figure of %s", s->benchmark);
    gp_set(out, "datafile", data);
    gp_set(out, "outbase", base);
    gp_set(out, "title", title);
    gp_set(out, "ylabel", ylabel);
    gp_set(out, "changes", changes);
    fprintf(out, "rows = %d", s->nrows - first);
    fclose(out);
    snprintf(script, sizeof script, "%s/history.gp", sb_plots_dir());
    int rc = run_gnuplot(vars, script, png);
    free(vars);
    if (rc == 0)
        printf("figure: %s\n", png);
    return rc;
}

/* ---- Commands ------------------------------------------------------------------------------ */

static int history_add(int argc, char **argv)
{
    options o = {.records = calloc((size_t)argc, sizeof(char *))};
    int rows, new_rows;
    if (!o.records)
        return fail("out of memory");
    int rc = parse(argc, argv, "--commit", add_usage, &o);
    if (rc == 0) {
        if (sb_history_add(o.db, o.records, o.nrecords, o.commit, &rows, &new_rows) != 0)
            rc = fail("%s", sb_error());
        else
            printf("%s: %d row%s from %d records file%s (%d new, %d replaced)\n", o.db, rows,
                   rows == 1 ? "" : "s", o.nrecords, o.nrecords == 1 ? "" : "s", new_rows,
                   rows - new_rows);
    }
    free(o.records);
    return rc < 0 ? 0 : rc;
}

/* The matching series of a history, each with its change points. */
typedef struct loaded {
    sb_history_series *series;
    int n;
    sb_history_change **changes; /* changes[i][0..found[i]) */
    int *found;
} loaded;

static void free_loaded(loaded *l)
{
    for (int i = 0; l->changes && i < l->n; i++)
        free(l->changes[i]);
    free(l->changes);
    free(l->found);
    sb_history_free(l->series, l->n);
}

/* 0, or 2 with the message printed (also when nothing matches). */
static int load(const options *o, loaded *l)
{
    *l = (loaded){0};
    if (sb_history_load(o->db, o->benchmark, o->device, &l->series, &l->n) != 0)
        return fail("%s", sb_error());
    if (l->n == 0 && !o->benchmark && !o->device)
        return fail("%s: holds no records; add some: stagebench history add %s RECORDS.json",
                    o->db, o->db);
    if (l->n == 0)
        return fail("%s: no benchmark matches%s%s%s%s; stagebench history show %s lists them "
                    "all", o->db, o->benchmark ? " --benchmark " : "",
                    o->benchmark ? o->benchmark : "", o->device ? " --device " : "",
                    o->device ? o->device : "", o->db);
    l->changes = calloc((size_t)l->n, sizeof *l->changes);
    l->found = calloc((size_t)l->n, sizeof *l->found);
    if (!l->changes || !l->found)
        return fail("%s: out of memory for %d benchmarks", o->db, l->n);
    for (int i = 0; i < l->n; i++) {
        /* segments of 3 rows at least: fewer than nrows / 3 points */
        int max = l->series[i].nrows / 3 + 1;
        l->changes[i] = malloc((size_t)max * sizeof *l->changes[i]);
        if (!l->changes[i])
            return fail("%s: out of memory for %d rows", o->db, l->series[i].nrows);
        l->found[i] = sb_history_changes(&l->series[i], l->changes[i], max);
        if (l->found[i] < 0) {
            l->found[i] = 0;
            return fail("%s: %s", o->db, sb_error());
        }
    }
    return 0;
}

static int history_show(int argc, char **argv)
{
    options o = {0};
    int rc = parse(argc, argv, "--benchmark --device --last --plot", show_usage, &o);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    if (o.plot_dir) {
        char probe[4200];
        snprintf(probe, sizeof probe, "%s/x", o.plot_dir);
        if (sb_make_parent_dirs(probe) != 0)
            return fail("--plot %s: %s", o.plot_dir, sb_error());
    }
    loaded l;
    if (load(&o, &l) != 0) {
        free_loaded(&l);
        return 2;
    }
    figures figs = {.dir = o.plot_dir};
    for (int i = 0; i < l.n && rc == 0; i++) {
        const sb_history_series *s = &l.series[i];
        int first = o.last && s->nrows > o.last ? s->nrows - o.last : 0;
        if (i)
            putchar('\n');
        print_series(s, l.changes[i], l.found[i], first);
        if (o.plot_dir && plot_series(&figs, s, l.changes[i], l.found[i], first) != 0)
            rc = fail("--plot %s: %s", o.plot_dir, sb_error());
    }
    for (int i = 0; i < figs.n; i++)
        free(figs.names[i]);
    free(figs.names);
    free_loaded(&l);
    return rc;
}

static int history_check(int argc, char **argv)
{
    options o = {.threshold = 0.02};
    int rc = parse(argc, argv, "--threshold --benchmark --device", check_usage, &o), slower = 0;
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    loaded l;
    if (load(&o, &l) != 0) {
        free_loaded(&l);
        return 2;
    }
    for (int i = 0; i < l.n; i++) {
        const sb_history_series *s = &l.series[i];
        /* the last change point starts the segment that holds the newest row */
        const sb_history_change *newest = l.found[i] ? &l.changes[i][l.found[i] - 1] : NULL;
        if (!newest || newest->change <= o.threshold)
            continue;
        char commit[64];
        short_commit(s->rows[newest->row].commit, commit, sizeof commit);
        printf("SLOWER %s on %s: %+.1f %% since commit %s (seq %lld; %d rows), over the segment "
               "before it (p %.3g)\n", s->benchmark, s->device, 100 * newest->change, commit,
               s->rows[newest->row].seq, s->nrows - newest->row, newest->p);
        slower++;
    }
    printf("%d of %d benchmark%s slower than the segment before by more than %g %%\n", slower,
           l.n, l.n == 1 ? "" : "s", 100 * o.threshold);
    free_loaded(&l);
    return slower > 0;
}

int sb_cmd_history(int argc, char **argv)
{
    static const sb_command commands[] = {
        {"add", history_add}, {"show", history_show}, {"check", history_check}};
    int rc = sb_dispatch(commands, sizeof commands / sizeof commands[0], usage, argc, argv);
    if (rc < 0)
        return fail("unknown command '%s'; give add, show or check (see stagebench history --help)",
                    argv[1]);
    return rc;
}
