/* The stagebench command line: the subcommands by name. stagebench's main (bench/cli/main.c) is
 * this, and so is a test executable's that adds a workload first (tests/faulty_stagebench.c). */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static const char usage[] =
    "usage: stagebench <command> [arguments]\n"
    "  list [workload]                  workloads, variants, stages, needs, sources\n"
    "  run <workload> [options]         measure variants at one parameter point\n"
    "  study <file> [--define K=V]      a paper-figure sweep: records and figures\n"
    "  compare <base> <new> [options]   exit 1 on a significant regression\n"
    "  suite <file> [--repetitions N]   a fixed list of runs, repeated in separate processes\n"
    "  calibrate <suite>|--from ...     the noise between runs: thresholds for compare\n"
    "  gate <suite> --base P --head P   two builds in one session: SAME/SLOWER/FASTER/UNSURE\n"
    "  plot <records.json>... [options] gnuplot figures (PNG and SVG)\n"
    "  history add|show|check <db> ...  the performance history and its change points\n"
    "  report DIR... [--out OUTDIR]     a page per GPU (markdown, HTML) of study outputs\n"
    "`stagebench <command> --help` describes each.\n";

int sb_dispatch(const sb_command *commands, size_t n, const char *usage, int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    return -1;
}

int sb_main(int argc, char **argv)
{
    static const sb_command commands[] = {{"list", sb_cmd_list},
                                          {"run", sb_cmd_run},
                                          {"study", sb_cmd_study},
                                          {"compare", sb_cmd_compare},
                                          {"suite", sb_cmd_suite},
                                          {"calibrate", sb_cmd_calibrate},
                                          {"gate", sb_cmd_gate},
                                          {"plot", sb_cmd_plot},
                                          {"history", sb_cmd_history},
                                          {"report", sb_cmd_report}};
    int rc = sb_dispatch(commands, sizeof commands / sizeof commands[0], usage, argc, argv);
    if (rc < 0) {
        fprintf(stderr, "stagebench: unknown command '%s'\n%s", argv[1], usage);
        return 2;
    }
    return rc;
}
