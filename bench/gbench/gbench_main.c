/* stagebench-gbench: every variant of every workload, at the workload's default scenario, as
 * Google Benchmark benchmarks named <workload>/<variant>/<param>:<value>... Each one is set up,
 * validated against the workload's reference output and warmed up like `stagebench run` does
 * (the sb_session steps of harness/measure.h); Google Benchmark then decides how many samples to
 * take and reports them in its own formats, so its tools (compare.py) read the results. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/devinfo.h"
#include "../../cuda/base/error.h"
#include "../../harness/measure.h"
#include "../../harness/params.h"
#include "../../variants/registry.h"
#include "gbench.h"
#include "sb_version.h"

#define PROGRAM "stagebench-gbench"
#define MAX_USER_PARAMS 64

static const char usage[] =
    "usage: " PROGRAM " [--param name=value]... [--device N] [Google Benchmark flags]\n"
    "Every variant of every workload at its default scenario, validated against the workload's\n"
    "reference, timed with CUDA events (GPU variants) or the host clock (CPU variants) as\n"
    "Google Benchmark's manual time.\n"
    "  --param name=value  set a parameter of every workload that declares it (repeatable)\n"
    "  --device N          GPU to time single-GPU variants on (default 0)\n"
    "  --help              this text, then Google Benchmark's flags (--benchmark_filter=REGEX,\n"
    "                      --benchmark_repetitions=N, --benchmark_format=json,\n"
    "                      --benchmark_out=FILE, ...)\n"
    "Exit status: 0; 1 when a variant failed validation or failed while running; 2 on bad\n"
    "arguments or when no workload could be loaded.\n\n";

/* The GPUs: how many there are and which one single-GPU variants are timed on. */
typedef struct gpu_choice {
    int count;
    int timed;
} gpu_choice;

struct loaded_workload;

/* The argument of one registered benchmark. */
typedef struct variant_benchmark {
    struct loaded_workload *loaded;
    const sb_variant *variant;
    const gpu_choice *gpus;
    int *failures; /* benchmarks that failed validation or a run (not skips) */
} variant_benchmark;

/* What every benchmark of one workload shares, kept until the benchmarks have run. */
typedef struct loaded_workload {
    const sb_workload *workload;
    int left_out;
    sb_params params;
    void *model;
    void *reference_output;
    variant_benchmark *benchmarks; /* one per variant */
} loaded_workload;

static _Noreturn void usage_error(const char *fmt, ...) SB_PRINTF(1, 2);
static _Noreturn void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(PROGRAM ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* The timed device first: multi-GPU variants use every GPU, the others only the timed one. */
static int devices_for(const sb_variant *v, const gpu_choice *gpus, int *devices)
{
    int n = 0;
    devices[n++] = gpus->timed;
    for (int d = 0; (v->needs & SB_NEEDS_MULTI_GPU) && d < gpus->count && n < SB_MAX_DEVICES; d++)
        if (d != gpus->timed)
            devices[n++] = d;
    return n;
}

static int make_reference(loaded_workload *lw);

static void skip(sb_gb_state *st, const char *what, const char *why)
{
    char msg[1280];
    snprintf(msg, sizeof msg, "%s%s", what, why);
    sb_gb_skip_with_error(st, msg);
}

/* One Google Benchmark run of a variant: open, validate, warm up, then sample while Google
 * Benchmark asks. It may be called several times per benchmark (repetitions, iteration-count
 * trials); each call validates again, so no timed sample comes from an unchecked set-up. */
static void bench_variant(sb_gb_state *st, void *arg)
{
    const variant_benchmark *b = arg;
    loaded_workload *lw = b->loaded;
    const sb_workload *w = lw->workload;
    const sb_variant *v = b->variant;
    int devices[SB_MAX_DEVICES], ndevices = 0;
    if (v->needs & SB_NEEDS_GPU) {
        if (b->gpus->count == 0) { /* not a failure: this machine cannot run it */
            skip(st, "GPU variant skipped: ", sb_no_device_reason());
            return;
        }
        ndevices = devices_for(v, b->gpus, devices);
    }
    if (!lw->reference_output && make_reference(lw) != 0) {
        skip(st, "the reference failed: ", sb_error());
        ++*b->failures;
        return;
    }
    void *out = w->output_new(lw->model);
    if (!out) {
        skip(st, "out of host memory for the output", "");
        ++*b->failures;
        return;
    }
    sb_session s; /* closed whatever open returned: a failed set-up may hold resources */
    const char *error = NULL, *why = NULL; /* the start of the error message, its detail */
    char detail[512] = "";
    double time_s = 0, wall_s = 0;
    int rc = sb_session_open(&s, w, v, lw->model, &lw->params, devices, ndevices);
    if (rc != 0) {
        error = rc == SB_REFUSED ? "" : "set-up failed: ";
        goto end;
    }
    /* The validation run is a whole run: its transfers are what one iteration moves. */
    sb_transfers before = s.env.xfer;
    rc = sb_session_validate(&s, lw->reference_output, out, detail, sizeof detail);
    sb_transfers after = s.env.xfer;
    if (rc == 1) {
        error = "output differs from the reference: ";
        why = detail;
        goto end;
    }
    if (rc != 0) {
        error = "";
        goto end;
    }
    if ((rc = sb_session_sample(&s, &time_s, &wall_s)) != 0) {
        error = "warm-up run failed: ";
        goto end;
    }
    while (sb_gb_keep_running(st)) {
        if ((rc = sb_session_sample(&s, &time_s, &wall_s)) != 0) {
            error = "timed run failed: ";
            goto end; /* Google Benchmark's way out of the loop: skip, then leave */
        }
        sb_gb_set_iteration_time(st, time_s);
    }
    rc = sb_session_recheck(&s, lw->reference_output, out, detail, sizeof detail);
    if (rc != 0) {
        error = rc == 1 ? "output changed during timing: " : "output after timing failed: ";
        why = rc == 1 ? detail : NULL;
        goto end;
    }
    sb_figures fig = {0};
    w->figures(lw->model, out, &fig);
    sb_gb_counter(st, "items_per_second", fig.items, SB_GB_COUNTER_ITERATION_INVARIANT_RATE);
    sb_gb_counter(st, "validated", 1, SB_GB_COUNTER_DEFAULT);
    sb_gb_counter(st, "device_peak_bytes", (double)s.env.mem.peak, SB_GB_COUNTER_DEFAULT);
    sb_gb_counter(st, "h2d_bytes", (double)(after.h2d - before.h2d), SB_GB_COUNTER_DEFAULT);
    sb_gb_counter(st, "d2h_bytes", (double)(after.d2h - before.d2h), SB_GB_COUNTER_DEFAULT);
    sb_report report;
    memset(&report, 0, sizeof report);
    if (v->ops->report)
        v->ops->report(s.state, &report);
    if (report.bytes_moved > 0)
        sb_gb_counter(st, "bytes_per_second", report.bytes_moved,
                      SB_GB_COUNTER_ITERATION_INVARIANT_RATE);
end:
    if (error) {
        skip(st, error, why ? why : sb_error());
        *b->failures += rc != SB_REFUSED; /* SB_REFUSED: cannot run here, a skip */
    }
    sb_session_close(&s);
    w->output_free(out);
}

static int declares(const sb_workload *w, const char *assignment)
{
    size_t len = strcspn(assignment, "=");
    for (int i = 0; i < w->nparams; i++)
        if (strlen(w->params[i].name) == len && strncmp(w->params[i].name, assignment, len) == 0)
            return 1;
    return 0;
}

/* Default scenario, then the user's --param; a bad value is a usage error (exit 2). 0, or -1
 * when the default scenario cannot be set (the workload is left out). */
static int scenario_params(const sb_workload *w, char **user, int nuser, sb_params *p)
{
    sb_params_init(p, w->params, w->nparams);
    if (w->default_scenario && w->default_scenario(p) != 0)
        return -1;
    for (int i = 0; i < nuser; i++)
        if (declares(w, user[i]) && sb_params_assign(p, user[i]) != 0)
            usage_error("--param %s: %s", user[i], sb_error());
    return 0;
}

/* Loads the model; -1 (sb_error says why) leaves w out. */
static int load_workload(loaded_workload *lw)
{
    const sb_workload *w = lw->workload;
    if (!sb_find_variant(w, w->reference))
        return sb_fail("its reference variant '%s' is not in its table", w->reference);
    return w->load(&lw->params, &lw->model);
}

/* The reference output, made when a benchmark of the workload first runs: a filter that leaves
 * a workload out does not pay for its reference. */
static int make_reference(loaded_workload *lw)
{
    const sb_workload *w = lw->workload;
    lw->reference_output = w->output_new(lw->model);
    if (!lw->reference_output)
        return sb_fail("out of host memory for the reference output");
    if (sb_run_once(w, sb_find_variant(w, w->reference), lw->model, &lw->params, NULL, 0,
                    lw->reference_output) != 0) {
        w->output_free(lw->reference_output);
        lw->reference_output = NULL;
        return -1;
    }
    return 0;
}

static void unload_workload(loaded_workload *lw)
{
    if (lw->reference_output)
        lw->workload->output_free(lw->reference_output);
    if (lw->model)
        lw->workload->free_model(lw->model);
    lw->reference_output = lw->model = NULL;
}

/* --device N: the GPU single-GPU variants are timed on; an error (exit 2) where it is absent. */
static void choose_gpu(const char *which, gpu_choice *gpus)
{
    gpus->count = sb_device_count();
    gpus->timed = 0;
    if (!which)
        return;
    char *end;
    long n = strtol(which, &end, 10);
    if (end == which || *end || n < 0)
        usage_error("--device %s: give a GPU number (0, 1, ...)", which);
    if (gpus->count == 0)
        usage_error("--device %s: %s; leave --device out to run the "
                    "CPU variants",
                    which, sb_no_device_reason());
    if (n >= gpus->count)
        usage_error("--device %s: only %d GPU(s) visible, numbered 0..%d", which, gpus->count,
                    gpus->count - 1);
    gpus->timed = (int)n;
}

/* The stagebench build and the timed GPU, beside Google Benchmark's own context. */
static void add_context(const gpu_choice *gpus)
{
    sb_gb_add_custom_context("stagebench_commit", SB_GIT_COMMIT);
    sb_gb_add_custom_context("timer", "cuda-event (manual time); host clock for CPU variants");
    if (gpus->count == 0) {
        sb_gb_add_custom_context("device", sb_no_device_reason());
        return;
    }
    sb_device_info info;
    if (sb_device_query(gpus->timed, &info) != 0) {
        fprintf(stderr, PROGRAM ": GPU %d: %s\n", gpus->timed, sb_error());
        exit(1);
    }
    char name[300], cc[32];
    snprintf(name, sizeof name, "%s (GPU %d)", info.name, info.ordinal);
    snprintf(cc, sizeof cc, "%d.%d", info.cc_major, info.cc_minor);
    sb_gb_add_custom_context("device", name);
    sb_gb_add_custom_context("compute_capability", cc);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            /* ours, then Google Benchmark prints its flags and exits */
            fputs(usage, stdout);
            fflush(stdout);
            char help[] = "--help";
            char *help_argv[] = {argv[0], help, NULL};
            int help_argc = 2;
            sb_gb_initialize(&help_argc, help_argv);
            return 0;
        }
    sb_gb_initialize(&argc, argv); /* removes Google Benchmark's flags from argv */

    char *user[MAX_USER_PARAMS];
    int nuser = 0;
    const char *device = NULL;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i], *value = NULL;
        if (strcmp(a, "--param") == 0 || strcmp(a, "--device") == 0) {
            if (i + 1 == argc)
                usage_error("%s needs a value (see --help)", a);
            value = argv[++i];
        } else if (strncmp(a, "--param=", 8) == 0 || strncmp(a, "--device=", 9) == 0) {
            value = strchr(a, '=') + 1;
        } else {
            usage_error("unknown argument '%s'; see --help (Google Benchmark's flags start with "
                        "--benchmark_)",
                        a);
        }
        if (strncmp(a, "--device", 8) == 0)
            device = value;
        else if (nuser == MAX_USER_PARAMS)
            usage_error("--param %s: more than %d --param options", value, MAX_USER_PARAMS);
        else
            user[nuser++] = value;
    }
    int nworkloads = sb_workload_count();
    for (int i = 0; i < nuser; i++) {
        int known = 0;
        for (int k = 0; k < nworkloads; k++)
            known |= declares(sb_workload_at(k), user[i]);
        if (!known)
            usage_error("--param %s: no workload declares this parameter; `stagebench list` "
                        "shows each workload's parameters",
                        user[i]);
    }
    gpu_choice gpus;
    choose_gpu(device, &gpus);

    /* Every workload's parameters first, so that a bad --param stops before anything loads. */
    loaded_workload *loaded = calloc((size_t)nworkloads, sizeof *loaded);
    if (!loaded) {
        fprintf(stderr, PROGRAM ": out of host memory\n");
        return 1;
    }
    for (int k = 0; k < nworkloads; k++) {
        loaded_workload *lw = &loaded[k];
        lw->workload = sb_workload_at(k);
        sb_error_clear();
        if (scenario_params(lw->workload, user, nuser, &lw->params) != 0) {
            fprintf(stderr, PROGRAM ": left out %s: its default scenario: %s\n",
                    lw->workload->name, sb_error());
            lw->left_out = 1;
        }
    }
    int failures = 0, registered = 0;
    for (int k = 0; k < nworkloads; k++) {
        loaded_workload *lw = &loaded[k];
        const sb_workload *w = lw->workload;
        if (lw->left_out)
            continue;
        sb_error_clear();
        if (load_workload(lw) != 0) {
            fprintf(stderr, PROGRAM ": left out %s: %s\n", w->name, sb_error());
            unload_workload(lw);
            lw->left_out = 1;
            continue;
        }
        lw->benchmarks = calloc((size_t)w->nvariants, sizeof *lw->benchmarks);
        if (!lw->benchmarks) {
            fprintf(stderr, PROGRAM ": out of host memory\n");
            return 1;
        }
        char name[SB_PARAM_TEXT + 256];
        for (int i = 0; i < w->nvariants; i++) {
            variant_benchmark *b = &lw->benchmarks[i];
            b->loaded = lw;
            b->variant = &w->variants[i];
            b->gpus = &gpus;
            b->failures = &failures;
            sb_benchmark_name(w, b->variant, &lw->params, name, sizeof name);
            sb_gb_register(name, bench_variant, b);
            registered++;
        }
    }
    if (registered == 0) {
        fprintf(stderr, PROGRAM ": no workload could be loaded, nothing to benchmark (see the "
                        "lines above)\n");
        return 2;
    }
    add_context(&gpus);
    sb_gb_run();
    sb_gb_shutdown();
    for (int k = 0; k < nworkloads; k++) {
        unload_workload(&loaded[k]);
        free(loaded[k].benchmarks);
    }
    free(loaded);
    return failures ? 1 : 0;
}
