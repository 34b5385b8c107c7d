/* stagebench run <workload> ...: every selected variant at one parameter point, into one records
 * file (JSON + CSV). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../harness/context.h"
#include "../../cuda/base/error.h"
#include "../../harness/json.h"
#include "../../variants/registry.h"
#include "../../harness/repeat.h"
#include "commands.h"
#include "../run/runner.h"

static const char usage[] =
    "usage: stagebench run <workload> [options]\n"
    "  --variant a,b|all  variants to measure (default all); repeated, the union of the lists\n"
    "  --param name=value a workload parameter (repeatable; `stagebench list` shows them)\n"
    "  --seed S           same as --param seed=S\n"
    "  --device N|all     GPU to time single-GPU variants on (default 0); all = each GPU\n"
    SB_MEASURE_OPTIONS_HELP
    "  --reference V      variant whose output validates the others (default the workload's\n"
    "                     CPU reference); a single-GPU variant for runs too long for the CPU\n"
    "  --out FILE         records file (default results/runs/<workload>-<UTC time>.json),\n"
    "                     checked before anything runs: an existing one is replaced only if\n"
    "                     stagebench wrote it (or it is empty)\n"
    "  --dump-output FILE the (validated) output, as text\n"
    SB_ISOLATE_OPTIONS_HELP
    "  --quiet            no line per variant, no progress (else on stderr: k of N over the\n"
    "                     variants x devices timed, or the repetitions; elapsed, time left)\n"
    "  --kernels          under each valid GPU result, the kernels of its validation run\n"
    "                     and of one more run after the samples, as they ran it (a CUDA\n"
    "                     graph's kernels too): launches, time, registers, local and\n"
    "                     shared memory, occupancy\n";

/* The progress this process reports on (its own, or its parent's it resumed), whose live line
 * an error's line replaces. */
static sb_progress *active_progress;

static int fail(void)
{
    if (active_progress)
        sb_progress_clear(active_progress);
    fprintf(stderr, "stagebench run: %s\n", sb_error());
    return 2;
}

/* The repetitions' table: per benchmark, the median of the repetitions' medians and their
 * spread (the aggregates sb_merge_repetitions wrote). */
static void print_repetitions(const char *path)
{
    json_t *doc = sb_json_load(path), *e;
    size_t i;
    if (!doc)
        return;
    printf("%-72s %4s %12s %9s\n", "benchmark (repetitions: separate processes)", "reps",
           "median", "between");
    json_array_foreach(json_object_get(doc, "benchmarks"), i, e) {
        const char *aggregate = json_string_value(json_object_get(e, "aggregate_name"));
        if (!aggregate || strcmp(aggregate, "median") != 0)
            continue;
        json_t *cv = NULL, *other;
        size_t j;
        json_array_foreach(json_object_get(doc, "benchmarks"), j, other) /* its cv aggregate */
            if (!cv && json_string_value(json_object_get(other, "aggregate_name")) &&
                !strcmp(json_string_value(json_object_get(other, "aggregate_name")), "cv") &&
                !strcmp(json_string_value(json_object_get(other, "run_name")),
                        json_string_value(json_object_get(e, "run_name"))))
                cv = other;
        char median[32];
        sb_format_seconds(json_number_value(json_object_get(e, "real_time")) * 1e-3, median,
                          sizeof median);
        printf("%-72s %4d %12s %8.2f%%\n", json_string_value(json_object_get(e, "run_name")),
               (int)json_integer_value(json_object_get(e, "iterations")), median,
               100 * json_number_value(json_object_get(cv, "real_time")));
    }
    json_decref(doc);
}

/* `run ... --repetitions N`: the same command N times, each a process of its own writing its
 * own file, merged into `path` after every repetition (a run cut off keeps the repetitions it
 * finished). Each repetition is an item of `progress` (this run's own, started here, or its
 * parent's: a suite's line). Returns the exit status. */
static int run_repetitions(int argc, char **argv, int n, const char *path, int quiet,
                           sb_progress *progress, int own_progress)
{
    char **child = calloc((size_t)argc + 6, sizeof *child), rep_paths[64][4096];
    const char *paths[64];
    if (!child)
        return fail();
    int worst = 0, merged = 0;
    if (own_progress)
        sb_progress_start(progress, progress->what, n, 0, 0, quiet);
    active_progress = progress;
    for (int k = 0; k < n; k++) {
        int m = 0;
        child[m++] = "stagebench";
        child[m++] = "run";
        for (int i = 1; i < argc; i++) {
            const char *a = argv[i];
            int takes_value = !strcmp(a, "--repetitions") || !strcmp(a, "--out") ||
                              !strcmp(a, "--dump-output");
            if (!strncmp(a, "--repetitions", 13) || !strncmp(a, "--out", 5) ||
                (k > 0 && !strncmp(a, "--dump-output", 13))) {
                i += takes_value;
                continue;
            }
            child[m++] = argv[i];
        }
        sb_repetition_path(path, k, rep_paths[k], sizeof rep_paths[k]);
        paths[k] = rep_paths[k];
        child[m++] = "--out";
        child[m++] = rep_paths[k];
        if (k > 0 || quiet)
            child[m++] = "--quiet";
        child[m] = NULL;
        char label[48];
        snprintf(label, sizeof label, "repetition %d of %d", k + 1, n);
        sb_progress_clear(progress);
        if (!quiet)
            printf("repetition %d of %d (a process of its own)\n", k + 1, n);
        fflush(stdout);
        sb_progress_item(progress, label, 1);
        /* on a terminal the repetition clears the live line before it prints a result */
        if (progress->live && sb_progress_hand_over(progress, label, 1) != 0) {
            free(child);
            sb_fail("cannot hand the progress to repetition %d: out of environment space", k + 1);
            return fail();
        }
        int status = sb_run_repetition(child, k, n);
        unsetenv(SB_PROGRESS_ENV);
        sb_progress_done(progress);
        if (status < 0) {
            free(child);
            return fail();
        }
        if (status == 2 && k == 0) { /* bad usage or inputs: the child said why, wrote nothing */
            free(child);
            return 2;
        }
        if (status > 2) {
            sb_progress_clear(progress);
            fprintf(stderr, "stagebench run: repetition %d of %d ended with status %d%s; the "
                    "others are kept\n", k + 1, n, status,
                    status > 128 ? " (a signal)" : "");
        }
        worst = status > 2 ? 1 : status > worst ? status : worst;
        if ((merged = sb_merge_repetitions(paths, k + 1, n, path)) < 0) {
            free(child);
            return fail();
        }
    }
    free(child);
    if (own_progress)
        sb_progress_end(progress);
    else
        sb_progress_clear(progress); /* the parent's: it goes on counting */
    for (int k = 0; k < n; k++) {
        char csv[4096];
        sb_records_sibling(paths[k], ".csv", csv, sizeof csv);
        remove(paths[k]);
        remove(csv);
    }
    print_repetitions(path);
    printf("%d of %d repetitions merged; records: %s (and .csv)\n", merged, n, path);
    return worst;
}

/* Under mpirun every process runs the same command (the mpi stage's processes meet inside its
 * runs); the first prints and writes, the others keep their records to themselves. */
static int process_rank(void)
{
    const char *names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (getenv(names[i]))
            return atoi(getenv(names[i]));
    return 0;
}

/* The options of `run WORKLOAD ...` as given. */
typedef struct run_args {
    const char *variants, *device, *out, *dump, *reference;
    char variant_union[1024]; /* the --variant lists so far, merged (variants points here) */
    const char *assignments[SB_MAX_PARAMS * 4]; /* --param's and --seed's, in order */
    int nassign, quiet, kernels;
    char seed_assignment[64];
    sb_measure_options opt;
} run_args;

/* One more --variant list: the union with those given before, in the order first named, each
 * name once ("all" is every variant: the union is then all). A repeated --variant adds to the
 * selection rather than replacing it, as a repeated --param adds a parameter. */
static int add_variants(run_args *a, const char *list)
{
    char merged[sizeof a->variant_union], buf[sizeof a->variant_union];
    size_t len = 0;
    merged[0] = '\0';
    if (!strcmp(list, "all") || (a->variants && !strcmp(a->variants, "all"))) {
        a->variants = "all";
        return 0;
    }
    for (int pass = 0; pass < 2; pass++) {
        const char *from = pass == 0 ? (a->variants ? a->variants : "") : list;
        if (strlen(from) >= sizeof buf)
            return sb_fail("--variant %.40s...: a list longer than %zu characters; name fewer, "
                           "or --variant all", from, sizeof buf - 1);
        snprintf(buf, sizeof buf, "%s", from);
        for (char *save = NULL, *name = strtok_r(buf, ",", &save); name;
             name = strtok_r(NULL, ",", &save)) {
            int seen = 0; /* already in the union: a whole name between commas */
            for (const char *m = strstr(merged, name); m && !seen; m = strstr(m + 1, name))
                seen = (m == merged || m[-1] == ',') && (m[strlen(name)] == ',' ||
                                                         !m[strlen(name)]);
            if (seen)
                continue;
            if (len + strlen(name) + 2 > sizeof merged)
                return sb_fail("--variant %s: the variants named come to more than %zu "
                               "characters; name fewer, or --variant all", list,
                               sizeof merged - 1);
            len += (size_t)snprintf(merged + len, sizeof merged - len, "%s%s", len ? "," : "",
                                    name);
        }
    }
    memcpy(a->variant_union, merged, len + 1);
    a->variants = a->variant_union;
    return 0;
}

/* argv[2...] into a; -1 (the error said) on an option that is unknown or lacks its value. */
static int parse_options(int argc, char **argv, run_args *a)
{
    for (int i = 2; i < argc; i++) {
        char name[64];
        const char *arg = argv[i], *value = NULL;
        if (strncmp(arg, "--", 2) != 0)
            return sb_fail("unexpected argument '%s' (see stagebench run --help)", arg);
        const char *eq = strchr(arg, '=');
        int inline_value = eq && strncmp(arg, "--param", 7) != 0; /* --name=value */
        size_t len = inline_value ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        snprintf(name, sizeof name, "%.*s", (int)len, arg + 2);
        if (inline_value)
            value = eq + 1;
        else if (strcmp(name, "cold") && strcmp(name, "warm") && strcmp(name, "quiet") &&
                 strcmp(name, "kernels") && strcmp(name, "isolate") &&
                 strcmp(name, "no-isolate") && strcmp(name, "no-activity") && i + 1 < argc)
            value = argv[++i];
        int known = sb_measure_option(&a->opt, name, value);
        if (known < 0)
            return -1;
        if (known == 0)
            continue;
        if (strcmp(name, "quiet") == 0) {
            a->quiet = 1;
            continue;
        }
        if (strcmp(name, "kernels") == 0) {
            a->kernels = 1;
            continue;
        }
        if (!value)
            return sb_fail("--%s needs a value (see stagebench run --help)", name);
        if (strcmp(name, "variant") == 0) {
            if (add_variants(a, value) != 0)
                return -1;
        } else if ((strcmp(name, "param") == 0 || strcmp(name, "seed") == 0) &&
                 a->nassign == (int)(sizeof a->assignments / sizeof *a->assignments))
            return sb_fail("--%s %s: more than %d --param and --seed", name, value, a->nassign);
        else if (strcmp(name, "param") == 0)
            a->assignments[a->nassign++] = value;
        else if (strcmp(name, "seed") == 0) {
            snprintf(a->seed_assignment, sizeof a->seed_assignment, "seed=%s", value);
            a->assignments[a->nassign++] = a->seed_assignment;
        } else if (strcmp(name, "device") == 0)
            a->device = value;
        else if (strcmp(name, "out") == 0)
            a->out = value;
        else if (strcmp(name, "dump-output") == 0)
            a->dump = value;
        else if (strcmp(name, "reference") == 0)
            a->reference = value;
        else
            return sb_fail("unknown option --%s (see stagebench run --help)", name);
    }
    return 0;
}

/* What the repetitions' processes would refuse, refused here once, before any of them starts
 * and before the first progress line (a refusal stays one line): the devices, the variant list,
 * the inputs (loaded and let go, as the isolated variants' parent does). */
static int check_inputs(const sb_workload *w, const sb_params *params, const run_args *a,
                        const sb_measure_options *opt)
{
    sb_devices devices;
    if (sb_devices_select(&devices, a->device, 0) != 0)
        return -1;
    sb_point point = {w, params, a->variants, a->reference, NULL, opt, &devices, 1, 0, NULL, NULL};
    void *model = NULL;
    if (sb_point_check(&point) != 0 || w->load(params, &model) != 0)
        return -1;
    w->free_model(model);
    return 0;
}

int sb_cmd_run(int argc, char **argv)
{
    run_args a = {.variants = NULL};
    sb_measure_defaults(&a.opt);
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const sb_workload *w = sb_find_workload(argv[1]);
    if (!w || parse_options(argc, argv, &a) != 0)
        return fail();
    if (!a.variants) /* none named: every variant */
        a.variants = "all";
    /* A parent's progress handed over (a suite's line, a repetition's or an isolated variant's
     * process): this process reports on it, rather than on a progress of its own. */
    sb_progress progress = {0};
    char what[96];
    int resumed = sb_progress_resume(&progress, a.quiet);
    if (resumed)
        active_progress = &progress;
    sb_measure_options opt = a.opt;
    int quiet = a.quiet, kernels = a.kernels;

    /* An isolated variant's process (SB_ISOLATED set by its parent) runs its one variant here. */
    const char *isolated = getenv(SB_ISOLATED_ENV);
    if (isolated)
        opt.isolate = 0;
    if (opt.isolate && (process_rank() > 0 || sb_under_mpirun())) {
        sb_fail("--isolate under mpirun: the mpi stages' processes meet inside their runs; run "
                "without it (each rank is a process already)");
        return fail();
    }
    if (kernels && !opt.activity) {
        sb_fail("--kernels needs the activity records, which --no-activity turns off: drop one");
        return fail();
    }
    opt.timed_kernels = kernels;

    sb_params params;
    sb_params_init(&params, w->params, w->nparams);
    for (int i = 0; i < a.nassign; i++)
        if (sb_params_assign(&params, a.assignments[i]) != 0)
            return fail();
    /* Where the records go, checked before anything is measured: a path that cannot take them
     * would otherwise end the run at its first record, the measuring done for nothing. */
    char path[4096], label[4200];
    if (a.out)
        snprintf(path, sizeof path, "%s", a.out);
    else
        sb_default_run_path(w->name, ".json", path, sizeof path);
    snprintf(label, sizeof label, a.out ? "--out %s" : "the records file %s (--out names another)",
             path);
    if (sb_records_check_path(path, label) != 0)
        return fail();
    if (opt.repetitions > 1 && sb_repetition_index(NULL) == 0 && !getenv(SB_REPETITION_ENV)) {
        if (process_rank() > 0 || getenv("OMPI_COMM_WORLD_SIZE")) {
            sb_fail("--repetitions under mpirun: run mpirun once per repetition instead (each "
                    "is then a process of its own)");
            return fail();
        }
        if (opt.repetitions > 64) {
            sb_fail("--repetitions %d: at most 64", opt.repetitions);
            return fail();
        }
        if (check_inputs(w, &params, &a, &opt) != 0)
            return fail();
        snprintf(what, sizeof what, "run %s", w->name);
        if (!resumed)
            progress.what = what;
        return run_repetitions(argc, argv, opt.repetitions, path, quiet, &progress, !resumed);
    }

    sb_devices devices;
    if (sb_devices_select(&devices, a.device, !opt.isolate) != 0)
        return fail();
    sb_point point = {w,    &params,  a.variants, a.reference, a.dump,
                      &opt, &devices, quiet,      kernels,     isolated, NULL};
    if (sb_point_check(&point) != 0)
        return fail();

    int rank = process_rank();
    if (rank > 0) { /* a private file, removed below */
        const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(path, sizeof path, "%s/stagebench-rank%d-%ld.json", tmp, rank, (long)getpid());
        point.dump_output = NULL;
        point.quiet = quiet = 1;
        progress.quiet = 1;
        if (!freopen("/dev/null", "w", stdout))
            return fail();
    }
    /* k of N over the variants and devices it times: its own, for a run the user started; a
     * repetition's or an isolated variant's process counts on its parent's, or on none */
    if (resumed) {
        point.progress = &progress;
    } else if (!isolated && !getenv(SB_REPETITION_ENV)) {
        snprintf(what, sizeof what, "run %s", w->name);
        progress.what = what;
        progress.quiet = quiet;
        point.progress = active_progress = &progress; /* started once the inputs have loaded */
    }
    sb_records records;
    json_t *context = sb_context_json(argc, argv, devices.info, devices.count, &opt);
    if (!context || sb_records_open(&records, path, context, w) != 0)
        return fail();
    if (active_progress) /* a parent's live line makes way for this run's lines */
        sb_progress_clear(active_progress);
    if (isolated)
        ; /* the parent says what the run is */
    else if (!quiet && devices.count)
        printf("stagebench run %s: %d GPU(s) visible, timing on %s\n", w->name, devices.count,
               devices.info[devices.nselected ? devices.selected[0] : 0].name);
    else if (!quiet)
        printf("stagebench run %s: %s\n", w->name, sb_no_device_reason());
    sb_point_outcome outcome = {0, 0, 0, 0, 0, 0};
    int rc = sb_point_run(&point, &records, &outcome);
    sb_records_close(&records);
    if (rank > 0) {
        char csv[sizeof path + 8];
        sb_records_sibling(path, ".csv", csv, sizeof csv);
        remove(path);
        remove(csv);
    }
    if (rc != 0)
        return fail();
    if (active_progress)
        sb_progress_clear(active_progress);
    if (!isolated)
        printf("%d valid, %d invalid, %d failed, %d skipped; records: %s (and .csv)\n",
               outcome.valid, outcome.invalid, outcome.failed, outcome.skipped, path);
    if (outcome.invalid || outcome.failed)
        return 1;
    return outcome.refused_named ? 2 : 0;
}
