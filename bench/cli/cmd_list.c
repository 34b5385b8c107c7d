/* stagebench list [workload]: what can be run, with its parameters and its ladder.
 * stagebench list --metrics [--device N]: the hardware counters a GPU can read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/counters.h"
#include "../../cuda/devinfo.h"
#include "../../cuda/base/error.h"
#include "../../variants/registry.h"
#include "commands.h"

/* a build with cmake -DSB_CDP=OFF has no dynamic parallelism and no device-side graph loops:
 * the host launches and loops in their place */
#ifdef SB_NO_CDP
#define CDP_TEXT ",dynamic-parallelism (from the host)"
#else
#define CDP_TEXT ",dynamic-parallelism"
#endif
#ifdef SB_GRAPH_LOOP_ON_HOST
#define GRAPH_LOOP_TEXT ",graph-loop (on the host)"
#else
#define GRAPH_LOOP_TEXT ",graph-loop"
#endif

static void needs_text(unsigned needs, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s%s%s%s%s", needs & SB_NEEDS_GPU ? "gpu" : "cpu",
             needs & SB_NEEDS_CDP ? CDP_TEXT : "", needs & SB_NEEDS_MULTI_GPU ? ",all-gpus" : "",
             !(needs & SB_NEEDS_GRAPH_LOOP)            ? ""
             : sb_build_lacks(SB_NEEDS_GRAPH_LOOP) ? ",graph-loop (off)"
                                                   : GRAPH_LOOP_TEXT,
             !(needs & SB_NEEDS_NCCL)            ? ""
             : sb_build_lacks(SB_NEEDS_NCCL) ? ",nccl (off)"
                                             : ",nccl",
             !(needs & SB_NEEDS_INDEPENDENT_THREADS)            ? ""
             : sb_build_lacks(SB_NEEDS_INDEPENDENT_THREADS) ? ",independent-threads (off)"
                                                            : ",independent-threads");
}

/* The shortest %g that reads back as x: 4294967295 rather than 4.29497e+09, 1e-09 rather than
 * 1.0000000000000001e-09, 100 rather than 1e+02. */
static void shortest(double x, char *buf, size_t cap)
{
    char try[32];
    buf[0] = '\0';
    for (int digits = 17; digits >= 1; digits--) {
        snprintf(try, sizeof try, "%.*g", digits, x);
        if (strtod(try, NULL) == x && (!buf[0] || strlen(try) <= strlen(buf)))
            snprintf(buf, cap, "%s", try);
    }
}

/* What a parameter accepts: [min, max] for numbers (as the refusal of a value outside says it),
 * the words of a choice, a preset or a file. */
static void range_text(const sb_param_decl *d, char *buf, size_t cap)
{
    char lo[32], hi[32];
    switch (d->type) {
    case SB_PARAM_INT:
    case SB_PARAM_FLOAT:
        shortest(d->min, lo, sizeof lo);
        shortest(d->max, hi, sizeof hi);
        snprintf(buf, cap, "[%s, %s]", lo, hi);
        break;
    case SB_PARAM_CHOICE:
        snprintf(buf, cap, "%s", d->choices);
        break;
    case SB_PARAM_PATH:
    case SB_PARAM_TEXT_T:
        if (d->choices)
            snprintf(buf, cap, "%s or a file", d->choices);
        else
            snprintf(buf, cap, "%s", d->type == SB_PARAM_PATH ? "a file" : "text");
        break;
    }
}

static void list_workload(const sb_workload *w)
{
    printf("%s: %s\n  parameters (--param name=value):\n    %-18s %-10s %-22s %s\n", w->name,
           w->summary, "name", "default", "range", "what");
    for (int i = 0; i < w->nparams; i++) {
        const sb_param_decl *d = &w->params[i];
        char range[256];
        range_text(d, range, sizeof range);
        printf("    %-18s %-10s %-22s %s\n", d->name, d->def ? d->def : "-", range, d->help);
    }
    printf("  variants (reference: %s):\n    %-5s %-21s %-30s %s\n", w->reference, "stage",
           "name", "needs", "adds / source");
    for (int i = 0; i < w->nvariants; i++) {
        const sb_variant *v = &w->variants[i];
        char needs[96];
        needs_text(v->needs, needs, sizeof needs);
        printf("    %-5d %-21s %-30s %s\n    %-5s %-21s %-30s [%s]%s\n", v->stage, v->name, needs,
               v->adds, "", "", "", v->source,
               v->kernel_level ? " kernel-level: L2 flushed before each sample unless --warm" : "");
        const char *lacks = sb_build_lacks(v->needs);
        if (lacks) /* "(off)" above: compiled out of this build, recorded as skipped */
            printf("    %-5s %-21s %-30s skipped: %s\n", "", "", "", lacks);
    }
}

static int list_metrics(const char *device_arg)
{
    char *end;
    long device = device_arg ? strtol(device_arg, &end, 10) : 0;
    if (device_arg && (end == device_arg || *end || device < 0)) {
        fprintf(stderr, "stagebench list: --device %s: give a device number\n", device_arg);
        return 2;
    }
    int count = sb_device_count();
    if (device >= count) {
        fprintf(stderr, "stagebench list --metrics: %s\n",
                count ? "no such device (see nvidia-smi)" : sb_no_device_reason());
        return 2;
    }
    printf("# default: ");
    for (int i = 0; i < sb_ndefault_metrics; i++)
        printf("%s%s", i ? "," : "", sb_default_metrics[i]);
    printf("\n");
    if (sb_counters_list((int)device, stdout) != 0) {
        fprintf(stderr, "stagebench list --metrics: %s\n", sb_error());
        return 2;
    }
    return 0;
}

int sb_cmd_list(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--metrics") == 0 &&
        (argc == 2 || (argc == 4 && strcmp(argv[2], "--device") == 0)))
        return list_metrics(argc == 4 ? argv[3] : NULL);
    if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
        fputs("usage: stagebench list [workload]\n"
              "       stagebench list --metrics [--device N]\n",
              argc == 2 && !strcmp(argv[1], "--help") ? stdout : stderr);
        return argc == 2 && !strcmp(argv[1], "--help") ? 0 : 2;
    }
    if (argc == 2) {
        const sb_workload *w = sb_find_workload(argv[1]);
        if (!w) {
            fprintf(stderr, "stagebench list: %s\n", sb_error());
            return 2;
        }
        list_workload(w);
        return 0;
    }
    for (int i = 0; i < sb_workload_count(); i++)
        list_workload(sb_workload_at(i));
    return 0;
}
