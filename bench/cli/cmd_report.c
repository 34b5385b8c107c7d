/* stagebench report DIR... [--out OUTDIR]: a page per GPU of study outputs (bench/report/report.c). */
#include "commands.h"

#include <stdio.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "../report/report.h"
#include "../run/paths.h"

static const char usage[] =
    "usage: stagebench report DIR... [--out OUTDIR]\n"
    "\n"
    "Writes a page per GPU of the records under the DIRs: OUTDIR/report-<device>.md and\n"
    "report-<device>.html (the same page standing alone: its figures embedded). A DIR is a\n"
    "study's output folder (records *.json, figures *.png and tables *.md from stagebench study)\n"
    "or a folder of such folders, e.g. results/baselines/h100-80gb-hbm3. A page names the GPU and\n"
    "the builds, sums up the goals the tables state (met, missed, not measured), then gives each\n"
    "folder's tables as written and its figures. Records are grouped by the GPU their context\n"
    "names; a folder's tables and figures go on the page of the records beside them (folders\n"
    "without records are left out, and said to be). docs/report.md describes the page.\n"
    "\n"
    "  --out OUTDIR  where the pages go (default: a fresh results/runs/report-<UTC time>/;\n"
    "                nothing is written into the DIRs unless --out names one)\n"
    "  -h, --help    this text\n"
    "\n"
    "Exit status: 0 written; 2 bad usage, a DIR without records, or a file there that cannot be\n"
    "read (nothing is written then).\n";

/* "DIR/" as "DIR": the paths on the pages and the ones printed read as typed, without "//". */
static char *without_trailing_slash(char *path)
{
    for (size_t len = strlen(path); len > 1 && path[len - 1] == '/'; len--)
        path[len - 1] = '\0';
    return path;
}

int sb_cmd_report(int argc, char **argv)
{
    const char *out = NULL;
    int ndirs = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--out") == 0) {
            if (i + 1 == argc || argv[i + 1][0] == '\0') {
                fputs("stagebench report: --out needs the folder the pages go to\n", stderr);
                return 2;
            }
            out = without_trailing_slash(argv[++i]);
        } else if (argv[i][0] == '-') {
            fprintf(stderr,
                    "stagebench report: unknown option '%s'; see stagebench report --help\n",
                    argv[i]);
            return 2;
        } else {
            /* the DIRs, gathered at the front in their order */
            argv[1 + ndirs++] = without_trailing_slash(argv[i]);
        }
    }
    if (ndirs == 0) {
        fputs("stagebench report: no DIR: give a study's output folder or a folder of them, e.g. "
              "results/baselines/h100-80gb-hbm3 (see stagebench report --help)\n",
              stderr);
        return 2;
    }
    /* A fresh folder of its own: never into a DIR (a committed baseline's folder) unless asked. */
    char fresh[1024];
    if (!out) {
        sb_default_run_path("report", "", fresh, sizeof fresh);
        out = fresh;
    }
    if (sb_report((const char *const *)argv + 1, ndirs, out, stdout) != 0) {
        fprintf(stderr, "stagebench report: %s\n", sb_error());
        return 2;
    }
    return 0;
}
