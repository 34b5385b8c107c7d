/* stagebench plot: figures from records files (bench/report/plot.c draws them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "../../harness/json.h"
#include "../report/plot.h"
#include "../run/paths.h"
#include "commands.h"

static void print_usage(FILE *f)
{
    fprintf(f,
            "usage: stagebench plot <records.json>... [--kind time|speedup|series|counters]\n"
            "           [--x PARAM] [--baseline VARIANT] [--variants a,b] [--series NAME]\n"
            "           [--where k=v,...] [--title TEXT] [--script FILE] [--out PREFIX]\n"
            "\n"
            "Draws PREFIX.png and PREFIX.svg with gnuplot; the plotted data goes to PREFIX.dat.\n"
            "Only records with stagebench.status \"valid\" are plotted.\n"
            "\n"
            "  --kind time      median time per variant vs x, min..max as error bars (default)\n"
            "  --kind speedup   baseline's median time / each variant's, at the same x\n"
            "  --kind series    a series the variants report (--series NAME), at one point\n"
            "  --kind counters  hardware counters at one point, a bar per GPU variant: DRAM\n"
            "                   throughput as %% of the measured peak, achieved occupancy, and\n"
            "                   DRAM bytes read + written beside the variant's own count of the\n"
            "                   bytes it must move (records of stagebench run --metrics default)\n"
            "  --x PARAM        parameter on the x axis (default: the one that varies)\n"
            "  --baseline V     variant the speed-up is measured against (e.g. cpu-reference)\n"
            "  --variants a,b   these variants, in this order (default: all, by stage)\n"
            "  --where k=v,...  only records with these parameter values\n"
            "  --title TEXT     figure title (default: workload and what is plotted)\n"
            "  --script FILE    gnuplot script (default: time.gp, speedup.gp, series.gp or\n"
            "                   counters.gp in %s)\n"
            "  --out PREFIX     default: results/runs/plot-<UTC time>/ and the first input's\n"
            "                   name without .json, plus -time, -speedup, -NAME or -counters\n"
            "                   (nothing is written beside the inputs)\n",
            sb_plots_dir());
}

/* Where an option's value goes; NULL for an unknown option. */
static const char **option_value(sb_plot_request *r, const char *option, const char **kind)
{
    if (strcmp(option, "--kind") == 0)
        return kind;
    if (strcmp(option, "--x") == 0)
        return &r->x_param;
    if (strcmp(option, "--baseline") == 0)
        return &r->baseline;
    if (strcmp(option, "--variants") == 0)
        return &r->variants;
    if (strcmp(option, "--series") == 0)
        return &r->series;
    if (strcmp(option, "--where") == 0)
        return &r->where;
    if (strcmp(option, "--title") == 0)
        return &r->title;
    if (strcmp(option, "--script") == 0)
        return &r->script;
    if (strcmp(option, "--out") == 0)
        return &r->out_prefix;
    return NULL;
}

/* Fills r (inputs point into argv); 1 when help was asked for. */
static int parse_args(int argc, char **argv, sb_plot_request *r, const char **inputs)
{
    const char *kind = "time";

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
            return 1;
        if (arg[0] != '-') {
            inputs[r->ninputs++] = arg;
            continue;
        }
        const char **value = option_value(r, arg, &kind);
        if (!value)
            return sb_fail("unknown option %s (stagebench plot --help lists them)", arg);
        if (i + 1 == argc)
            return sb_fail("%s needs a value (stagebench plot --help)", arg);
        *value = argv[++i];
    }
    if (r->ninputs == 0)
        return sb_fail("no records file: stagebench plot <records.json>... (see --help)");
    for (r->kind = SB_PLOT_TIME; r->kind <= SB_PLOT_COUNTERS; r->kind++)
        if (strcmp(kind, sb_plot_kind_name(r->kind)) == 0)
            return 0;
    return sb_fail("--kind %s: expected time, speedup, series or counters", kind);
}

int sb_cmd_plot(int argc, char **argv)
{
    sb_plot_request r = {0};
    const char **inputs = calloc((size_t)argc, sizeof *inputs);
    char out_prefix[4096];
    if (!inputs) {
        fprintf(stderr, "stagebench plot: out of host memory\n");
        return 1;
    }
    int rc = parse_args(argc, argv, &r, inputs);

    if (rc == 1) {
        print_usage(stdout);
        free(inputs);
        return 0;
    }
    if (rc == 0 && !r.out_prefix) {
        /* A fresh folder of its own, never beside the inputs (a committed baseline's folder):
         * results/runs/plot-<UTC time>/<first input's name>-<kind>. */
        char dir[1024];
        const char *base = strrchr(inputs[0], '/');
        base = base ? base + 1 : inputs[0];
        size_t len = sb_is_json_name(base) ? sb_records_stem(base) : strlen(base);
        sb_default_run_path("plot", "", dir, sizeof dir);
        snprintf(out_prefix, sizeof out_prefix, "%s/%.*s-%s", dir, (int)len, base,
                 r.kind == SB_PLOT_SERIES && r.series ? r.series : sb_plot_kind_name(r.kind));
        r.out_prefix = out_prefix;
    }
    r.inputs = inputs;
    if (rc == 0)
        rc = sb_plot(&r);
    free(inputs);
    if (rc != 0) {
        fprintf(stderr, "stagebench plot: %s\n", sb_error());
        return 2;
    }
    printf("%s.png\n%s.svg\n%s.dat\n", r.out_prefix, r.out_prefix, r.out_prefix);
    return 0;
}
