/* stagebench suite FILE: a fixed list of runs (suite.h), each with repetitions in separate
 * processes, into one directory; stagebench calibrate: the same suite twice (an A-vs-A) or
 * existing records, turned into each benchmark's between-run spread and threshold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../harness/compare.h"
#include "../../cuda/base/error.h"
#include "../../harness/json.h"
#include "../../harness/repeat.h"
#include "commands.h"
#include "../run/progress.h"
#include "../run/runner.h"
#include "../run/suite.h"

/* Every line of the suite, each with `repetitions` processes, into dir/NN-<workload>.json;
 * `extra` options are added to every line. Each repetition of each line is an item of
 * `progress`: a line's run counts its repetitions on it (handed over through the environment).
 * The worst exit status of the runs; 2 at once on a line its run refused. */
static int run_suite(const sb_suite *s, int repetitions, const char *dir, char **extra, int nextra,
                     int quiet, sb_progress *progress)
{
    int worst = 0;
    char reps[16];
    snprintf(reps, sizeof reps, "%d", repetitions);
    for (int i = 0; i < s->n; i++) {
        const sb_suite_line *l = &s->lines[i];
        char out[4096], what[128];
        snprintf(out, sizeof out, "%s/%02d-%s.json", dir, i + 1, l->field[0]);
        if (sb_make_parent_dirs(out) != 0)
            return -1;
        char *argv[SB_SUITE_MAX_FIELDS + 64];
        int m = 0;
        argv[m++] = "stagebench";
        argv[m++] = "run";
        for (int k = 0; k < l->n; k++)
            argv[m++] = l->field[k];
        for (int k = 0; k < nextra && m < SB_SUITE_MAX_FIELDS + 56; k++)
            argv[m++] = extra[k];
        argv[m++] = "--repetitions";
        argv[m++] = reps;
        argv[m++] = "--out";
        argv[m++] = out;
        if (quiet)
            argv[m++] = "--quiet";
        argv[m] = NULL;
        sb_progress_clear(progress);
        if (!quiet)
            printf("suite %s:%ld: stagebench run %s ... (%d repetitions)\n", s->path, l->number,
                   l->field[0], repetitions);
        fflush(stdout);
        char label[160];
        snprintf(label, sizeof label, "line %ld (%s)", l->number, l->field[0]);
        if (sb_progress_hand_over(progress, label, 0) != 0)
            return sb_fail("cannot hand the progress to the run of %s:%ld: out of environment "
                           "space", s->path, l->number);
        snprintf(what, sizeof what, "the run of %s:%ld", s->path, l->number);
        int status = sb_run_self(argv, what);
        unsetenv(SB_PROGRESS_ENV);
        /* the line's repetitions have ended, however it went */
        sb_progress_skip(progress, repetitions, repetitions);
        if (status < 0)
            return -1;
        if (status == 2)
            return sb_fail("%s:%ld: stagebench run refused this line (its message is above)",
                           s->path, l->number);
        worst = status > worst ? status : worst;
    }
    return worst > 2 ? 1 : worst;
}

/* Options of suite and calibrate: their own, and the rest passed to every run. */
typedef struct suite_args {
    const char *file, *out, *records, *from[16];
    int nfrom, repetitions, quiet;
    double floor;
    char *extra[32];
    int nextra;
} suite_args;

static int parse_args(const char *command, int argc, char **argv, suite_args *a,
                      const char *usage)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int has_value = i + 1 < argc;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(usage, stdout);
            return 1;
        } else if (!strcmp(arg, "--out") && has_value) {
            a->out = argv[++i];
        } else if (!strcmp(arg, "--records") && has_value) {
            a->records = argv[++i];
        } else if (!strcmp(arg, "--quiet")) {
            a->quiet = 1;
        } else if (!strcmp(arg, "--repetitions") && has_value) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end || n < 2 || n > 64)
                return sb_fail("--repetitions must be a whole number from 2 to 64; got '%s'",
                               argv[i]);
            a->repetitions = (int)n;
        } else if (!strcmp(arg, "--floor") && has_value) {
            char *end;
            a->floor = strtod(argv[++i], &end);
            if (*end || !(a->floor > 0 && a->floor < 10))
                return sb_fail("--floor must be a number in (0, 10), e.g. 0.01; got '%s'",
                               argv[i]);
        } else if (!strcmp(arg, "--from") && has_value) {
            while (i + 1 < argc && argv[i + 1][0] != '-' && a->nfrom < 16)
                a->from[a->nfrom++] = argv[++i];
        } else if (arg[0] != '-' && !a->file) {
            a->file = arg;
        } else if (arg[0] == '-' && a->nextra + 2 < 32) {
            /* a run option: its value, if it has one, is the next word unless that is an
             * option too */
            a->extra[a->nextra++] = argv[i];
            if (has_value && argv[i + 1][0] != '-' && strcmp(arg, "--cold") &&
                strcmp(arg, "--warm") &&
                strcmp(arg, "--no-activity") && strcmp(arg, "--kernels"))
                a->extra[a->nextra++] = argv[++i];
        } else {
            return sb_fail("unexpected argument '%s' (see stagebench %s --help)", arg, command);
        }
    }
    return 0;
}

static const char suite_usage[] =
    "usage: stagebench suite FILE [--repetitions N] [--out DIR] [--quiet] [run options]\n"
    "\n"
    "Runs every line of FILE (the arguments of one `stagebench run` each; ${NAME} is the\n"
    "environment's NAME), each with N repetitions in separate processes (default 5), into\n"
    "DIR/NN-<workload>.json (default results/runs/suite-<UTC time>/). Options it does not know\n"
    "go to every run (e.g. --max-noise 0.05). Progress on stderr, k of N over the lines x\n"
    "repetitions (none with --quiet). Exit status: the worst of the runs' (1: a variant failed or\n"
    "was invalid), 2 on a line a run refused.\n";

int sb_cmd_suite(int argc, char **argv)
{
    suite_args a = {.repetitions = 5};
    int rc = parse_args("suite", argc, argv, &a, suite_usage);
    if (rc != 0)
        return rc > 0 ? 0 : (fprintf(stderr, "stagebench suite: %s\n", sb_error()), 2);
    if (!a.file) {
        fputs(suite_usage, stderr);
        return 2;
    }
    sb_suite s;
    char dir[2048];
    if (sb_suite_read(&s, a.file) != 0) {
        sb_suite_free(&s);
        fprintf(stderr, "stagebench suite: %s\n", sb_error());
        return 2;
    }
    if (a.out)
        snprintf(dir, sizeof dir, "%s", a.out);
    else
        sb_default_run_path("suite", "", dir, sizeof dir);
    sb_progress progress;
    char what[2100];
    snprintf(what, sizeof what, "suite %s", a.file);
    sb_progress_start(&progress, what, s.n * a.repetitions, 0, 0, a.quiet);
    rc = run_suite(&s, a.repetitions, dir, a.extra, a.nextra, a.quiet, &progress);
    int lines = s.n; /* sb_suite_free counts them down to 0 */
    sb_suite_free(&s);
    if (rc < 0) {
        sb_progress_clear(&progress);
        fprintf(stderr, "stagebench suite: %s\n", sb_error());
        return 2;
    }
    sb_progress_end(&progress);
    printf("suite %s: %d runs with %d repetitions each, records in %s/\n", a.file, lines,
           a.repetitions, dir);
    return rc;
}

static const char calibrate_usage[] =
    "usage: stagebench calibrate SUITE [--repetitions N] [--out FILE] [--records DIR]\n"
    "                            [--floor X] [run options]\n"
    "       stagebench calibrate --from RECORDS... --out FILE [--floor X]\n"
    "\n"
    "Measures the noise between runs on this device: runs SUITE (see stagebench suite --help)\n"
    "twice, each line with N repetitions in separate processes (default 10), into DIR/a and\n"
    "DIR/b (default results/runs/calibration-<UTC time>/) -- an A-vs-A -- and writes, per\n"
    "benchmark, the spread of the log of each repetition's median over both halves and the\n"
    "threshold stagebench compare --calibration FILE then uses: max(floor, e^(2 spread) - 1),\n"
    "the floor 0.01 unless --floor. It then compares the halves with that calibration (an\n"
    "A-vs-A that should find nothing). --from computes the same from existing records (files\n"
    "or directories with repetitions), running nothing.\n";

int sb_cmd_calibrate(int argc, char **argv)
{
    suite_args a = {.repetitions = 10};
    int rc = parse_args("calibrate", argc, argv, &a, calibrate_usage);
    if (rc != 0)
        return rc > 0 ? 0 : (fprintf(stderr, "stagebench calibrate: %s\n", sb_error()), 2);
    if ((a.nfrom > 0) == (a.file != NULL) || (a.nfrom > 0 && !a.out)) {
        fprintf(stderr, "stagebench calibrate: give a suite file or --from RECORDS... --out FILE "
                        "(see --help)\n");
        return 2;
    }
    char out[4096], dir[2048], halves[2][2100];
    const char *paths[16];
    int npaths = a.nfrom;
    for (int i = 0; i < a.nfrom; i++)
        paths[i] = a.from[i];
    if (a.file) {
        sb_suite s;
        if (sb_suite_read(&s, a.file) != 0) {
            sb_suite_free(&s);
            fprintf(stderr, "stagebench calibrate: %s\n", sb_error());
            return 2;
        }
        if (a.records)
            snprintf(dir, sizeof dir, "%s", a.records);
        else
            sb_default_run_path("calibration", "", dir, sizeof dir);
        /* one progress over both halves: each repetition of each line, twice */
        sb_progress progress;
        char what[2100];
        snprintf(what, sizeof what, "calibrate %s", a.file);
        sb_progress_start(&progress, what, 2 * s.n * a.repetitions, 0, 0, a.quiet);
        for (int h = 0; h < 2 && rc >= 0 && rc != 2; h++) {
            snprintf(halves[h], sizeof halves[h], "%s/%c", dir, 'a' + h);
            paths[h] = halves[h];
            sb_progress_clear(&progress);
            printf("calibrate: half %c of the A-vs-A\n", 'A' + h);
            /* before each item's label: which half */
            snprintf(progress.prefix, sizeof progress.prefix, "half %c", 'A' + h);
            int status = run_suite(&s, a.repetitions, halves[h], a.extra, a.nextra, a.quiet,
                                   &progress);
            rc = status < 0 || status == 2 ? status : rc > status ? rc : status;
        }
        sb_suite_free(&s);
        if (rc < 0 || rc == 2) {
            sb_progress_clear(&progress);
            fprintf(stderr, "stagebench calibrate: %s\n", sb_error());
            return 2;
        }
        sb_progress_end(&progress);
        npaths = 2;
    }
    if (a.out)
        snprintf(out, sizeof out, "%s", a.out);
    else
        snprintf(out, sizeof out, "%s.json", dir);
    if (sb_calibrate_files(paths, npaths, a.floor, out, stdout) != 0) {
        fprintf(stderr, "stagebench calibrate: %s\n", sb_error());
        return 2;
    }
    if (npaths >= 2) {
        sb_compare_options opt = {.threshold = 0.05, .alpha = 0.05, .calibration = out,
                                  .floor = a.floor};
        printf("A-vs-A, %s against %s with this calibration:\n", paths[1], paths[0]);
        if (sb_compare_files(paths[0], paths[1], &opt, stdout) < 0) {
            fprintf(stderr, "stagebench calibrate: %s\n", sb_error());
            return 2;
        }
    }
    return rc;
}
