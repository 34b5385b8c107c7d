/* stagebench study: a paper's figures as sweeps (bench/report/study.c runs them). */
#include <stdio.h>
#include <string.h>

#include "../report/study.h"
#include "commands.h"

static const char usage[] =
    "usage: stagebench study <file.study> [--define KEY=VALUE]... [--out DIR] [--quiet]\n"
    "                        [--run NAME]... [--figures-only] [--check] [--resume]\n"
    "                        [--estimate-from DIR]\n"
    "  runs every sweep of the study file into DIR (default results/runs/<study>-<UTC time>/),\n"
    "  one records file per sweep, then draws its figures there (PNG and SVG) and prints its\n"
    "  tables (also written there as NAME.md).\n"
    "  --run NAME: only that sweep (repeatable); figures and tables are then left for\n"
    "  --figures-only.\n"
    "  --figures-only: draw the figures and print the tables from the records already in DIR\n"
    "  (--out required), e.g. after running the sweeps on a machine without gnuplot; a figure\n"
    "  or table it cannot make is an error (exit 2, the reason on stderr), but for figures\n"
    "  skipped because gnuplot is not installed (said; the tables are still made).\n"
    "  --check: check the file (every point's parameters, the files they name, variants,\n"
    "  references, figure inputs and scripts), print what it would run and how long that should\n"
    "  take, and run nothing.\n"
    "  --estimate-from DIR: the records the estimate (and the progress) reads: a folder of a run\n"
    "  of this study, or a device's folder holding one (default: this GPU's under\n"
    "  results/baselines/).\n"
    "  --define KEY=VALUE: KEY must be one the file uses as ${KEY} (DATA and STUDY_DIR always).\n"
    "  While the sweeps run, the progress (k of N points, the time taken and left) goes to\n"
    "  stderr: a line rewritten in place on a terminal, plain lines otherwise; --quiet: none.\n"
    "  --resume: go on where a study cut off (killed, crashed, machine lost) stopped in DIR\n"
    "  (--out required): the records DIR/<run>.json holds are kept (valid, invalid, skipped),\n"
    "  failed ones and the rest are run and appended; leftover temporary files are removed.\n"
    "  Each variant at each point runs in a process of its own (a crash, a sticky CUDA error or\n"
    "  a hang is that record's failure, the rest still run; each process makes the reference\n"
    "  output itself): `option no-isolate` runs them in the study's process, `option\n"
    "  variant-timeout S` sets their time limit (default 10 x timeout + 1800 s).\n";

int sb_cmd_study(int argc, char **argv)
{
    sb_study_args a = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--define") && i + 1 < argc && a.ndefines < SB_STUDY_MAX_DEFINES) {
            a.defines[a.ndefines++] = argv[++i];
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            a.out = argv[++i];
        } else if (!strcmp(argv[i], "--quiet")) {
            a.quiet = 1;
        } else if (!strcmp(argv[i], "--run") && i + 1 < argc && a.nonly < SB_STUDY_MAX_RUNS) {
            a.only[a.nonly++] = argv[++i];
        } else if (!strcmp(argv[i], "--figures-only")) {
            a.figures_only = 1;
        } else if (!strcmp(argv[i], "--check")) {
            a.check = 1;
        } else if (!strcmp(argv[i], "--resume")) {
            a.resume = 1;
        } else if (!strcmp(argv[i], "--estimate-from") && i + 1 < argc) {
            a.estimate_from = argv[++i];
        } else if (argv[i][0] != '-' && !a.file) {
            a.file = argv[i];
        } else {
            fprintf(stderr, "stagebench study: unexpected argument '%s'\n%s", argv[i], usage);
            return 2;
        }
    }
    if (a.file && a.resume && !a.out) {
        fputs("stagebench study: --resume needs --out DIR (the folder of the study to go on "
              "with)\n",
              stderr);
        return 2;
    }
    if (!a.file || (a.figures_only && !a.out)) {
        fputs(a.figures_only ? "stagebench study: --figures-only needs --out DIR (where the records "
                             "are)\n"
                           : usage,
              stderr);
        return 2;
    }
    return sb_study_main(&a, argc, argv);
}
