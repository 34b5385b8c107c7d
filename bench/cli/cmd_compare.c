/* stagebench compare <base> <new> [--threshold 0.05] [--alpha 0.05] [--calibration FILE] ... */
#include "commands.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/compare.h"
#include "../../cuda/base/error.h"

static const char usage[] =
    "usage: stagebench compare <base> <new> [options]\n"
    "\n"
    "Compares two sets of records (each a file from stagebench run or Google Benchmark JSON, or a\n"
    "directory of them) benchmark by benchmark: medians, their ratio (new / base), the threshold,\n"
    "the minimum detectable effect, the test and its p-value, a verdict. With repetitions on both\n"
    "sides (run --repetitions N) the test is over the repetitions' medians (a t test on their\n"
    "logs), else a Mann-Whitney U test over the samples of one process. \"same\" only after a\n"
    "test that could find a change: \"not tested\" where too few samples could never reach\n"
    "alpha, \"one sample each\" with one sample a side.\n"
    "\n"
    "Records of two kinds of GPU (their contexts name two devices; two cards of one name are one\n"
    "kind) are a device comparison: per benchmark the time ratio with its 95 % interval (from\n"
    "the repetitions, else the samples), the ratios a DRAM-, an issue- (SM count x clock) and an\n"
    "FP64-bound stage would show, and the bound it follows; no regression verdict, exit 0.\n"
    "\n"
    "  --calibration F  thresholds and between-run spread per benchmark from stagebench calibrate\n"
    "  --floor X        a calibrated threshold is never below X (default 0.01: 1 %)\n"
    "  --threshold X    relative change that counts where no calibration names the benchmark,\n"
    "                   in (0, 10) (default 0.05: 5 %)\n"
    "  --alpha A        family-wise significance level, in (0, 1) (default 0.05); a device\n"
    "                   comparison's intervals are 1 - A\n"
    "  --no-correction  each benchmark's p against alpha alone (default: Holm over all of them)\n"
    "  --markdown       the table as markdown (for a pull request's comment)\n"
    "  -h, --help       this text\n"
    "\n"
    "Exit status: 0 no regression, or a device comparison; 1 a benchmark is SLOWER (by more than\n"
    "its threshold, with adjusted p < alpha) or NOW-INVALID (valid in base, not in new); 2 bad\n"
    "usage or input.\n";

/* One line on stderr; returns the exit status of bad usage. */
static int usage_error(const char *fmt, ...) SB_PRINTF(1, 2);
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("stagebench compare: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

/* A number strictly between low and high, or -1. */
static int parse_bounded(const char *text, double low, double high, double *value)
{
    char *end;
    *value = strtod(text, &end);
    if (end == text || *end || !isfinite(*value) || *value <= low || *value >= high)
        return -1;
    return 0;
}

int sb_cmd_compare(int argc, char **argv)
{
    sb_compare_options opt = {.threshold = 0.05, .alpha = 0.05, .floor = SB_COMPARE_FLOOR};
    const char *paths[2];
    int npaths = 0;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(arg, "--no-correction") == 0 || strcmp(arg, "--markdown") == 0) {
            *(strcmp(arg, "--markdown") == 0 ? &opt.markdown : &opt.no_correction) = 1;
            continue;
        }
        if (strcmp(arg, "--calibration") == 0) {
            if (i + 1 == argc)
                return usage_error("--calibration needs a file made by stagebench calibrate");
            opt.calibration = argv[++i];
            continue;
        }
        if (strcmp(arg, "--floor") == 0) {
            if (i + 1 == argc || parse_bounded(argv[i + 1], 0, 10, &opt.floor) != 0)
                return usage_error("--floor must be a number in (0, 10), e.g. 0.01 for 1 %%");
            i++;
            continue;
        }
        if (strcmp(arg, "--threshold") == 0 || strcmp(arg, "--alpha") == 0) {
            int is_threshold = strcmp(arg, "--threshold") == 0;
            if (i + 1 == argc)
                return usage_error("%s needs a value, e.g. 0.05", arg);
            const char *value = argv[++i];
            if (is_threshold && parse_bounded(value, 0, 10, &opt.threshold) != 0)
                return usage_error("--threshold must be a number in (0, 10), e.g. 0.05 for 5 %%; "
                                   "got '%s'", value);
            if (!is_threshold && parse_bounded(value, 0, 1, &opt.alpha) != 0)
                return usage_error("--alpha must be a number in (0, 1), e.g. 0.05; got '%s'",
                                   value);
            continue;
        }
        if (arg[0] == '-')
            return usage_error("unknown option '%s'; see stagebench compare --help", arg);
        if (npaths == 2)
            return usage_error("unexpected argument '%s': give exactly two records files or "
                               "directories, <base> <new>", arg);
        paths[npaths++] = arg;
    }
    if (npaths != 2)
        return usage_error("%s: give two records files or directories, <base> <new> "
                           "(see stagebench compare --help)",
                           npaths == 0 ? "no records files" : "only one records file");

    int rc = sb_compare_files(paths[0], paths[1], &opt, stdout);
    if (rc < 0) {
        fprintf(stderr, "stagebench compare: %s\n", sb_error());
        return 2;
    }
    return rc;
}
