#include "runner.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../cuda/base/error.h"
#include "../../harness/json.h"
#include "../../harness/refcache.h"
#include "../../harness/profile.h"
#include "../../variants/registry.h"
#include "../../harness/repeat.h"
#include "../../harness/sampling.h"

void sb_default_run_path(const char *name, const char *suffix, char *out, size_t cap)
{
    char stamp[32];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", gmtime(&now));
    snprintf(out, cap, "results/runs/%s-%s%s", name, stamp, suffix);
}

const char *sb_format_seconds(double s, char *buf, unsigned cap)
{
    if (s >= 1.0)
        snprintf(buf, cap, "%.3f s", s);
    else if (s >= 1e-3)
        snprintf(buf, cap, "%.3f ms", s * 1e3);
    else
        snprintf(buf, cap, "%.3f us", s * 1e6);
    return buf;
}

int sb_devices_select(sb_devices *d, const char *which, int measure_bandwidth)
{
    memset(d, 0, sizeof *d);
    d->count = sb_device_count();
    if (d->count > SB_MAX_DEVICES)
        d->count = SB_MAX_DEVICES;
    for (int i = 0; i < d->count; i++)
        if (sb_device_query(i, &d->info[i]) != 0)
            return -1;
    if (which && strcmp(which, "all") == 0) {
        for (int i = 0; i < d->count; i++)
            d->selected[d->nselected++] = i;
    } else if (which) {
        char *end;
        long n = strtol(which, &end, 10);
        if (end == which || *end || n < 0)
            return sb_fail("--device %s: give a device number or 'all'", which);
        if (d->count == 0)
            return sb_fail("--device %s: this machine has no GPU (%s)", which,
                           sb_no_device_reason());
        if (n >= d->count)
            return sb_fail("--device %s: only %d GPU(s) visible, numbered 0..%d", which, d->count,
                           d->count - 1);
        d->selected[d->nselected++] = (int)n;
    } else if (d->count > 0) {
        d->selected[d->nselected++] = 0;
    }
    /* The timed device of every variant: the selected ones, and device 0 for multi-GPU ones. */
    for (int i = 0; i < d->count; i++) {
        int used = i == 0;
        for (int k = 0; k < d->nselected; k++)
            used |= d->selected[k] == i;
        if (used && measure_bandwidth &&
            sb_device_measure_bandwidth(i, &d->info[i].peak_bw_measured) != 0)
            return -1;
    }
    return 0;
}

/* Splits "a,b,c" into the variants of w; "all" is every variant in ladder order. */
static int variant_list(const sb_workload *w, const char *spec, const sb_variant **out, int *n)
{
    *n = 0;
    if (!spec || strcmp(spec, "all") == 0) {
        for (int i = 0; i < w->nvariants; i++)
            out[(*n)++] = &w->variants[i];
        return 0;
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *name = strtok_r(buf, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
        const sb_variant *v = sb_find_variant(w, name);
        if (!v) {
            char known[1024] = "";
            for (int i = 0; i < w->nvariants; i++) {
                strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
                strncat(known, w->variants[i].name, sizeof known - strlen(known) - 1);
            }
            return sb_fail("unknown variant '%s' of %s; its variants: %s (or all)", name, w->name,
                           known);
        }
        if (*n == w->nvariants)
            return sb_fail("variant list '%s' repeats a variant", spec);
        out[(*n)++] = v;
    }
    return 0;
}

int sb_point_check(const sb_point *p)
{
    const sb_workload *w = p->workload;
    const sb_variant *list[64];
    int n;
    if (variant_list(w, p->variants, list, &n) != 0)
        return -1;
    int named = p->variants && strcmp(p->variants, "all") != 0;
    for (int i = 0; named && i < n; i++)
        if ((list[i]->needs & SB_NEEDS_GPU) && p->devices->count == 0)
            return sb_fail("variant %s needs a GPU and this machine has none (%s); run the CPU "
                           "variants or --variant all",
                           list[i]->name, sb_no_device_reason());
    const char *ref = p->reference ? p->reference : w->reference;
    const sb_variant *rv = sb_find_variant(w, ref);
    if (!rv)
        return sb_fail("--reference %s: %s has no such variant", ref, w->name);
    if ((rv->needs & SB_NEEDS_GPU) && p->devices->nselected == 0)
        return sb_fail("--reference %s needs a GPU and this machine has none (%s); use the CPU "
                       "reference %s",
                       ref, sb_no_device_reason(), w->reference);
    if (rv->needs & SB_NEEDS_MULTI_GPU)
        return sb_fail("--reference %s: a reference runs on one GPU; name a single-GPU variant",
                       ref);
    const sb_devices *d = p->devices;
    if (d->count > 0)
        return sb_profile_check(p->opt, d->nselected ? d->selected[0] : 0);
    if (p->opt->counters == SB_COUNTERS_REQUIRED)
        return sb_fail("--metrics: hardware counters need a GPU and this machine has none (%s)",
                       sb_no_device_reason());
    return 0;
}

/* A name cut to its last cap - 2 characters behind a '~' when it does not fit: a kernel's own
 * name comes last, after its namespaces. */
static const char *name_tail(const char *name, char *buf, size_t cap)
{
    size_t n = strlen(name);
    if (n < cap)
        return name;
    snprintf(buf, cap, "~%s", name + n - (cap - 2));
    return buf;
}

/* A run's kernels: one row per kernel and launch shape, most time first, with the share of the
 * run's kernel time and the theoretical occupancy. */
static void print_kernel_table(const sb_activity *run, const char *which)
{
    if (run->nkernel_table == 0 && run->kernel_table_omitted_launches == 0) {
        printf("    no kernel launched from the host in the %s\n", which);
        return;
    }
    char title[64];
    snprintf(title, sizeof title, "kernel (%s)", which);
    printf("    %-44s %3s %8s %6s %4s %7s %5s %8s %9s %5s  %s\n", title, "dev", "launches", "time",
           "regs", "local B", "block", "shared B", "blocks/SM", "occ.", "limited by");
    for (int i = 0; i < run->nkernel_table; i++) {
        const sb_kernel *k = &run->kernel_table[i];
        char name[45], share[16] = "-", blocks[16] = "-", occupancy[16] = "-";
        if (run->kernel_s > 0)
            snprintf(share, sizeof share, "%.1f%%", 100 * k->seconds / run->kernel_s);
        if (!isnan(k->occupancy)) {
            snprintf(blocks, sizeof blocks, "%d", k->blocks_per_sm);
            snprintf(occupancy, sizeof occupancy, "%.0f%%", 100 * k->occupancy);
        }
        printf("    %-44s %3d %8lld %6s %4d %7d %5d %8d %9s %5s  %s\n",
               name_tail(k->name, name, sizeof name), k->device, k->launches, share, k->registers,
               k->local_bytes_per_thread, k->block_threads,
               k->static_shared_bytes + k->dynamic_shared_bytes, blocks, occupancy,
               k->limited_by[0] ? k->limited_by : "-");
    }
    if (run->kernel_table_omitted_launches > 0)
        printf("    and %lld launches of kernels past the table's %d rows\n",
               run->kernel_table_omitted_launches, SB_KERNEL_TABLE_ROWS);
}

/* --kernels: the validation run's kernels, then those of one run as the samples ran it (which,
 * for a variant that launches a CUDA graph, are its nodes'). */
static void print_kernels(const sb_activity_result *a)
{
    if (strcmp(a->status, "collected") != 0) {
        printf("    no kernel table: activity records %s%s%s\n", a->status,
               a->reason[0] ? ": " : "", a->reason);
        return;
    }
    print_kernel_table(&a->run, "validation run");
    if (a->has_timed)
        print_kernel_table(&a->timed, "a run as timed");
}

static void print_result(const sb_result *res, const sb_point *p)
{
    const sb_workload *w = p->workload;
    char t[32], mem[32];
    if (res->status == SB_SKIPPED && res->variant->needs & SB_NEEDS_GPU && res->ndevices == 0)
        return; /* said once for the point (no GPU) */
    if (res->status != SB_VALID) {
        printf("  %-48s %-8s %s\n", res->name, sb_status_name(res->status), res->reason);
        fflush(stdout); /* said before a crash of the next variant can lose it */
        return;
    }
    double per_s = res->time.median > 0 ? res->figures.items / res->time.median : 0;
    char runs[24] = "";
    if (res->runs_per_sample > 1)
        snprintf(runs, sizeof runs, " x %d runs", res->runs_per_sample);
    printf("  %-48s valid    %12s  noise %5.2f%% (sd %5.2f%%)  %4d samples%s (%s)  %.3g %s/s"
           "%s%s\n",
           res->name, sb_format_seconds(res->time.median, t, sizeof t),
           100 * sb_stop_noise(p->opt, &res->time), 100 * res->time.noise, res->nsamples, runs,
           res->stop_reason, per_s, w->item_unit,
           res->device >= 0 ? "  device peak " : "",
           res->device >= 0 ? sb_format_bytes((double)res->peak_tracked_bytes, mem, sizeof mem)
                            : "");
    if (res->stop_reason && strcmp(res->stop_reason, "timeout") == 0)
        printf("    %s\n", res->stop_detail);
    if (p->kernels && res->device >= 0)
        print_kernels(&res->activity);
    fflush(stdout);
}

/* Before a line of this point's: the progress's live line, if there is one, makes way. */
static void clear_live(const sb_point *p)
{
    if (p->progress)
        sb_progress_clear(p->progress);
}

static int record(sb_records *records, sb_result *res, const sb_point *p, sb_point_outcome *o,
                  int named, const sb_variant *ref)
{
    if (res->against)
        res->against = ref->name;
    clear_live(p); /* the result's line in place of the live one */
    if (!p->quiet)
        print_result(res, p);
    o->valid += res->status == SB_VALID;
    o->invalid += res->status == SB_INVALID;
    o->failed += res->status == SB_FAILED;
    o->skipped += res->status == SB_SKIPPED;
    o->refused_named += named && res->status == SB_SKIPPED;
    int rc = sb_records_add(records, res);
    sb_result_free(res);
    return rc;
}

int sb_under_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

/* One record a point makes: a variant on its device(s). */
typedef struct job {
    const sb_variant *v;
    int ndevices; /* 0: a CPU variant, or a GPU variant without a GPU (skipped) */
    int devices[SB_MAX_DEVICES];
    const sb_device_info *info;
    char suffix[32];    /* "/device:N" when the point covers several devices */
    char name[1024];    /* the record's name */
    const char *kept;   /* the status of this record made before (--resume), or NULL */
} job;

static void add_job(job *j, const sb_point *p, const sb_variant *v, const int *devices,
                    int ndevices, const sb_device_info *info, int suffix, const sb_records *r)
{
    memset(j, 0, sizeof *j);
    j->v = v;
    j->ndevices = ndevices;
    for (int i = 0; i < ndevices; i++)
        j->devices[i] = devices[i];
    j->info = info;
    if (suffix)
        snprintf(j->suffix, sizeof j->suffix, "/device:%d", devices[0]);
    sb_benchmark_name(p->workload, v, p->params, j->name, sizeof j->name);
    size_t len = strlen(j->name);
    snprintf(j->name + len, sizeof j->name - len, "%s%s", j->suffix,
             p->isolated_suffix ? p->isolated_suffix : "");
    j->kept = sb_records_find(r, j->name, p->params);
}

/* The point's records in the order they are made: the reference first when it is listed, then
 * each variant on each selected device (every GPU for a multi-GPU one). */
static int make_jobs(const sb_point *p, const sb_variant **list, int n, const sb_variant *ref,
                     const sb_records *r, job **jobs)
{
    const sb_devices *devs = p->devices;
    int cap = 1 + n * (devs->nselected > 0 ? devs->nselected : 1), count = 0;
    if (!(*jobs = calloc((size_t)cap, sizeof **jobs)))
        return sb_fail("out of host memory");
    int ref_gpu = (ref->needs & SB_NEEDS_GPU) != 0;
    for (int i = 0; i < n; i++)
        if (list[i] == ref)
            add_job(&(*jobs)[count++], p, ref, ref_gpu ? &devs->selected[0] : NULL, ref_gpu,
                    ref_gpu ? &devs->info[devs->selected[0]] : NULL, 0, r);
    for (int i = 0; i < n; i++) {
        const sb_variant *v = list[i];
        if (v == ref)
            continue;
        if (!(v->needs & SB_NEEDS_GPU) || devs->nselected == 0) {
            add_job(&(*jobs)[count++], p, v, NULL, 0, NULL, 0, r);
        } else if (v->needs & SB_NEEDS_MULTI_GPU) { /* every visible GPU, timed on device 0 */
            int all[SB_MAX_DEVICES];
            for (int d = 0; d < devs->count; d++)
                all[d] = d;
            add_job(&(*jobs)[count++], p, v, all, devs->count, &devs->info[0], 0, r);
        } else {
            for (int k = 0; k < devs->nselected; k++)
                add_job(&(*jobs)[count++], p, v, &devs->selected[k], 1,
                        &devs->info[devs->selected[k]], devs->nselected > 1, r);
        }
    }
    return count;
}

/* Whether job j is timed here, an item of the point's progress: not kept from an earlier
 * session, and not a GPU variant on a machine without a GPU (skipped at once). */
static int timed(const job *j)
{
    return !j->kept && !((j->v->needs & SB_NEEDS_GPU) && j->ndevices == 0);
}

/* Starts the point's own progress (p->progress not started by the caller) over its jobs. */
static void progress_start(const sb_point *p, const job *jobs, int njobs)
{
    sb_progress *g = p->progress;
    if (!g || g->total > 0)
        return;
    int n = 0;
    for (int i = 0; i < njobs; i++)
        n += timed(&jobs[i]);
    sb_progress_start(g, g->what, n, 0, 0, g->quiet);
}

/* Job j's item begins (when it is one): "gpu", "gpu/device:1". */
static void progress_item(const sb_point *p, const job *j)
{
    char label[160];
    if (!p->progress || !timed(j))
        return;
    snprintf(label, sizeof label, "%s%s", j->v->name, j->suffix);
    sb_progress_item(p->progress, label, 1);
}

static void progress_done(const sb_point *p, const job *j)
{
    if (p->progress && timed(j))
        sb_progress_done(p->progress);
}

/* Ends the point's own progress (one the point started): its last line, or, when the point
 * stops on an error, the live line cleared for the error's. */
static void progress_end(const sb_point *p, int own, int ok)
{
    if (own && ok)
        sb_progress_end(p->progress);
    else if (own)
        sb_progress_clear(p->progress);
}

/* A record kept from an earlier session: counted, and said. */
static void keep(const job *j, const sb_point *p, sb_point_outcome *o, int named)
{
    o->kept++;
    o->valid += !strcmp(j->kept, "valid");
    o->invalid += !strcmp(j->kept, "invalid");
    o->skipped += !strcmp(j->kept, "skipped");
    o->refused_named += named && !strcmp(j->kept, "skipped");
    clear_live(p);
    if (!p->quiet)
        printf("  %-48s kept     %s (recorded before; --resume)\n", j->name, j->kept);
}

/* The measurement options as `run` reads them (what an isolated variant's process is given). */
static void measure_argv(const sb_measure_options *o, char (*buf)[64], char **argv, int *n)
{
    int b = 0;
#define OPT(flag, fmt, value)                                                                      \
    do {                                                                                           \
        argv[(*n)++] = flag;                                                                       \
        snprintf(buf[b], sizeof buf[b], fmt, value);                                               \
        argv[(*n)++] = buf[b++];                                                                   \
    } while (0)
    OPT("--max-noise", "%.17g", o->max_noise);
    OPT("--min-samples", "%d", o->min_samples);
    OPT("--min-time", "%.17g", o->min_time);
    OPT("--timeout", "%.17g", o->timeout);
    OPT("--warmup", "%d", o->warmup_runs);
    OPT("--warmup-time", "%.17g", o->warmup_time);
    OPT("--sample-time", "%.17g", o->sample_time);
    OPT("--noise-measure", "%s", o->noise_measure == SB_NOISE_STDEV ? "stdev" : "robust");
#undef OPT
    if (o->cold != SB_COLD_KERNEL_LEVEL)
        argv[(*n)++] = o->cold ? "--cold" : "--warm";
    if (!o->activity)
        argv[(*n)++] = "--no-activity";
}

static char *metrics_arg(const sb_measure_options *o)
{
    size_t cap = (size_t)(o->nmetrics + 1) * SB_METRIC_NAME, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    s[0] = '\0';
    if (o->counters == SB_COUNTERS_OFF)
        snprintf(s, cap, "none");
    for (int i = 0; o->counters == SB_COUNTERS_REQUIRED && i < o->nmetrics; i++)
        len += (size_t)snprintf(s + len, cap - len, "%s%s", i ? "," : "", o->metrics[i]);
    return s;
}

/* Where isolated processes write: DIR/.isolated-<pid>/ beside the records. */
static void isolated_dir(const sb_records *r, char *dir, size_t cap)
{
    const char *slash = strrchr(r->json_path, '/');
    if (slash)
        snprintf(dir, cap, "%.*s/.isolated-%ld", (int)(slash - r->json_path), r->json_path,
                 (long)getpid());
    else
        snprintf(dir, cap, ".isolated-%ld", (long)getpid());
}

/* Runs job j in a process of its own and merges its record; a process that left none becomes a
 * failed record. *status: the record's status. 0, or -1 when records cannot be written or the
 * process cannot start. */
static int run_isolated(const sb_point *p, const job *j, const sb_variant *ref, int dump,
                        sb_records *records, sb_point_outcome *o, int named, sb_status *status)
{
    const sb_workload *w = p->workload;
    const sb_params *params = p->params;
    const sb_devices *devs = p->devices;
    char dir[4096], out[4200], device[16], (*opt_buf)[64] = calloc(8, sizeof *opt_buf);
    char **argv = calloc(2 * (size_t)params->n + 40, sizeof *argv);
    char *params_buf = calloc((size_t)params->n + 1, SB_PARAM_TEXT + 70);
    char *metrics = metrics_arg(p->opt);
    static long serial;
    int n = 0, rc = -1;
    if (!opt_buf || !argv || !params_buf || !metrics) {
        sb_fail("out of host memory");
        goto done;
    }
    isolated_dir(records, dir, sizeof dir);
    snprintf(out, sizeof out, "%s/%ld.json", dir, serial++);
    if (sb_make_parent_dirs(out) != 0)
        goto done;
    argv[n++] = "stagebench";
    argv[n++] = "run";
    argv[n++] = (char *)w->name;
    argv[n++] = "--variant";
    argv[n++] = (char *)j->v->name;
    for (int i = 0, off = 0; i < params->n; i++) {
        if (!params->v[i].given)
            continue;
        argv[n++] = "--param";
        argv[n++] = params_buf + off;
        off += snprintf(params_buf + off, SB_PARAM_TEXT + 70, "%s=%s", params->decls[i].name,
                        params->v[i].text) + 1;
    }
    if (devs->nselected > 0) { /* the variant's device; a CPU variant's GPU reference's */
        snprintf(device, sizeof device, "%d",
                 j->ndevices == 1 ? j->devices[0] : devs->selected[0]);
        argv[n++] = "--device";
        argv[n++] = device;
    }
    argv[n++] = "--reference";
    argv[n++] = (char *)ref->name;
    if (dump) {
        argv[n++] = "--dump-output";
        argv[n++] = (char *)p->dump_output;
    }
    measure_argv(p->opt, opt_buf, argv, &n);
    if (metrics[0]) {
        argv[n++] = "--metrics";
        argv[n++] = metrics;
    }
    argv[n++] = "--no-isolate";
    argv[n++] = "--out";
    argv[n++] = out;
    if (p->quiet)
        argv[n++] = "--quiet";
    if (p->kernels)
        argv[n++] = "--kernels";
    argv[n] = NULL;

    sb_child_end end;
    double limit = sb_variant_time_limit(p->opt);
    if (sb_run_isolated(NULL, argv, SB_ISOLATED_ENV, j->suffix, NULL, limit, &end) != 0)
        goto done;
    int counts[4] = {0, 0, 0, 0};
    int merged = sb_records_merge(records, out, counts);
    if (merged < 0)
        goto done;
    if (merged > 0) {
        o->valid += counts[SB_VALID];
        o->invalid += counts[SB_INVALID];
        o->failed += counts[SB_FAILED];
        o->skipped += counts[SB_SKIPPED];
        o->refused_named += named ? counts[SB_SKIPPED] : 0;
        *status = counts[SB_VALID] ? SB_VALID : counts[SB_INVALID] ? SB_INVALID
                  : counts[SB_SKIPPED]                              ? SB_SKIPPED
                                                                    : SB_FAILED;
        clear_live(p);
        if (!end.exited)
            fprintf(stderr, "stagebench: %s: its process ended with signal %d (%s) after "
                    "writing its record, which is kept\n",
                    j->name, end.signal, sb_signal_name(end.signal));
    } else {
        char reason[256];
        if (end.timed_out)
            snprintf(reason, sizeof reason, "exceeded its %g s time limit", limit);
        else if (!end.exited)
            snprintf(reason, sizeof reason, "crashed: signal %d (%s)", end.signal,
                     sb_signal_name(end.signal));
        else
            snprintf(reason, sizeof reason, "exit %d without a record", end.status);
        sb_result res;
        sb_result_failed(&res, w, j->v, params, j->ndevices ? j->devices[0] : -1, j->ndevices,
                         j->v == ref ? NULL : ref->name, reason);
        snprintf(res.name, sizeof res.name, "%s", j->name);
        *status = SB_FAILED;
        if (record(records, &res, p, o, named, ref) != 0)
            goto done;
    }
    rc = 0;
done:
    sb_remove_dir_files(dir);
    free(opt_buf);
    free(argv);
    free(params_buf);
    free(metrics);
    return rc;
}

/* The jobs of an isolated point: each in its process but the GPU variants a machine without a
 * GPU skips (said here, without a process). The parent loads the inputs once, to refuse bad
 * ones in one line before any process starts, and runs nothing. */
static int run_point_isolated(const sb_point *p, sb_records *records, sb_point_outcome *o,
                              job *jobs, int njobs, const sb_variant *ref, int named)
{
    const sb_workload *w = p->workload;
    void *model = NULL;
    if (w->load(p->params, &model) != 0)
        return -1;
    w->free_model(model);
    int own = p->progress && p->progress->total == 0;
    progress_start(p, jobs, njobs);
    int gpu_listed = 0, dumped = !p->dump_output, rc = 0;
    for (int i = 0; i < njobs; i++)
        gpu_listed |= !jobs[i].kept && (jobs[i].v->needs & SB_NEEDS_GPU) != 0;
    clear_live(p);
    if (gpu_listed && p->devices->count == 0 && !p->quiet)
        printf("  GPU variants skipped: %s\n", sb_no_device_reason());
    for (int i = 0; i < njobs && rc == 0; i++) {
        const job *j = &jobs[i];
        if (j->kept) {
            keep(j, p, o, named);
            continue;
        }
        sb_status status = SB_FAILED;
        if ((j->v->needs & SB_NEEDS_GPU) && j->ndevices == 0) {
            sb_result res; /* skipped at once: no GPU */
            sb_measure(w, j->v, NULL, p->params, NULL, 0, NULL, NULL, NULL, p->opt, &res);
            rc = record(records, &res, p, o, named, ref);
            continue;
        }
        progress_item(p, j);
        /* on a terminal its process clears the live line before it prints its result */
        if (p->progress && p->progress->live && sb_progress_hand_over(p->progress, "", 1) != 0)
            rc = sb_fail("cannot hand the progress to a variant's process: %s", strerror(errno));
        if (rc == 0)
            rc = run_isolated(p, j, ref, !dumped, records, o, named, &status);
        unsetenv(SB_PROGRESS_ENV);
        progress_done(p, j);
        dumped |= status != SB_FAILED;
        if (rc == 0 && j->v == ref && status != SB_VALID)
            break; /* nothing can be validated: the point ends, failed */
    }
    progress_end(p, own, rc == 0);
    char dir[4096];
    isolated_dir(records, dir, sizeof dir);
    rmdir(dir);
    return rc;
}

int sb_point_run(const sb_point *p, sb_records *records, sb_point_outcome *o)
{
    const sb_workload *w = p->workload;
    const sb_devices *devs = p->devices;
    const sb_variant *list[64];
    job *jobs = NULL;
    int n, named = p->variants && strcmp(p->variants, "all") != 0;
    void *model = NULL, *ref_out = NULL, *out = NULL;
    if (variant_list(w, p->variants, list, &n) != 0)
        return -1;
    const sb_variant *ref = sb_find_variant(w, p->reference ? p->reference : w->reference);
    int njobs = make_jobs(p, list, n, ref, records, &jobs);
    if (njobs < 0)
        return -1;
    int pending = 0, rc = 0;
    for (int i = 0; i < njobs; i++)
        pending += !jobs[i].kept;
    /* A reference recorded but not valid: nothing more of the point could be validated. */
    if (pending == 0 || (jobs[0].v == ref && jobs[0].kept && strcmp(jobs[0].kept, "valid"))) {
        for (int i = 0; i < njobs; i++)
            if (jobs[i].kept)
                keep(&jobs[i], p, o, named);
        free(jobs);
        return 0;
    }
    if (p->opt->isolate && !p->isolated_suffix) {
        rc = run_point_isolated(p, records, o, jobs, njobs, ref, named);
        free(jobs);
        return rc;
    }
    if (w->load(p->params, &model) != 0) {
        free(jobs);
        return -1;
    }
    int own = p->progress && p->progress->total == 0;
    progress_start(p, jobs, njobs);
    rc = -1;
    ref_out = w->output_new(model);
    out = w->output_new(model);
    if (!ref_out || !out) {
        sb_fail("out of host memory for outputs");
        goto done;
    }
    int first = 0, cached = 0;
    /* the reference's output kept for the processes after this one (SB_REFERENCE_CACHE) */
    int cache = sb_refcache_dir(w, ref) != NULL;
    if (jobs[0].v == ref && !jobs[0].kept) {
        /* The reference output: from timing the reference when it is selected... */
        const job *j = &jobs[0];
        sb_result res;
        progress_item(p, j);
        sb_measure(w, ref, model, p->params, j->devices, j->ndevices, j->info, NULL, ref_out,
                   p->opt, &res);
        snprintf(res.name, sizeof res.name, "%s", j->name);
        int ok = res.status == SB_VALID;
        int recorded = record(records, &res, p, o, named, ref);
        progress_done(p, j);
        if (recorded != 0)
            goto done;
        if (!ok) { /* nothing can be validated: the point ends, failed */
            rc = 0;
            goto done;
        }
        if (cache)
            sb_refcache_save(w, ref, p->params, model, ref_out);
        first = 1;
    } else if (cache && sb_refcache_load(w, ref, p->params, model, ref_out)) {
        /* ...else from the run of an earlier process of this gate run or study... */
        if (jobs[0].v == ref)
            keep(&jobs[0], p, o, named), first = 1;
        cached = 1;
    } else {
        /* ...else from one run, on the first selected GPU for a GPU reference (for runs too
         * long for the CPU one) */
        int ref_gpu = (ref->needs & SB_NEEDS_GPU) != 0;
        if (jobs[0].v == ref)
            keep(&jobs[0], p, o, named), first = 1;
        if (sb_run_once(w, ref, model, p->params, ref_gpu ? &devs->selected[0] : NULL, ref_gpu,
                        ref_out) != 0) {
            if (!p->isolated_suffix) {
                clear_live(p);
                fprintf(stderr, "stagebench: the reference failed, nothing validated: %s\n",
                        sb_error());
                o->failed++;
                rc = 0;
                goto done;
            }
            /* an isolated variant's process: its record says the reference failed */
            char reason[1024];
            snprintf(reason, sizeof reason, "not run: the reference %s failed: %s", ref->name,
                     sb_error());
            for (int i = first; i < njobs; i++) {
                sb_result res;
                if (jobs[i].kept)
                    continue;
                sb_result_failed(&res, w, jobs[i].v, p->params,
                                 jobs[i].ndevices ? jobs[i].devices[0] : -1, jobs[i].ndevices,
                                 ref->name, reason);
                snprintf(res.name, sizeof res.name, "%s", jobs[i].name);
                if (record(records, &res, p, o, named, ref) != 0)
                    goto done;
            }
            rc = 0;
            goto done;
        }
        if (cache)
            sb_refcache_save(w, ref, p->params, model, ref_out);
    }
    /* The dump before the variants' records: a point whose records are complete has its dump. */
    if (p->dump_output && w->output_write(model, ref_out, p->dump_output) != 0)
        goto done;
    int gpu_listed = 0;
    for (int i = first; i < njobs; i++)
        gpu_listed |= !jobs[i].kept && (jobs[i].v->needs & SB_NEEDS_GPU) != 0;
    clear_live(p);
    if (gpu_listed && devs->count == 0 && !p->quiet)
        printf("  GPU variants skipped: %s\n", sb_no_device_reason());
    for (int i = first; i < njobs; i++) {
        const job *j = &jobs[i];
        if (j->kept) {
            keep(j, p, o, named);
            continue;
        }
        sb_result res;
        progress_item(p, j);
        sb_measure(w, j->v, model, p->params, j->devices, j->ndevices, j->info, ref_out, out,
                   p->opt, &res);
        res.reference_cached = cached;
        snprintf(res.name, sizeof res.name, "%s", j->name);
        int recorded = record(records, &res, p, o, named, ref);
        progress_done(p, j);
        if (recorded != 0)
            goto done;
    }
    rc = 0;
done:
    progress_end(p, own, rc == 0);
    if (ref_out)
        w->output_free(ref_out);
    if (out)
        w->output_free(out);
    w->free_model(model);
    free(jobs);
    return rc;
}

static int number_in(const char *name, const char *value, double lo, double hi, double *x)
{
    char *end;
    if (!value)
        return sb_fail("--%s needs a value", name);
    *x = strtod(value, &end);
    if (end == value || *end || !(*x >= lo && *x <= hi))
        return sb_fail("--%s %s: give a number in [%g, %g]", name, value, lo, hi);
    return 0;
}

/* "none", "default", "default,m1,m2" or "m1,m2": asking by name makes counters required. */
static int metrics_option(sb_measure_options *o, const char *value)
{
    if (!value || !*value)
        return sb_fail("--metrics needs a value: default, none or a comma-separated metric list");
    o->counters = SB_COUNTERS_REQUIRED;
    o->nmetrics = 0;
    if (strcmp(value, "none") == 0) {
        o->counters = SB_COUNTERS_OFF;
        return 0;
    }
    char buf[SB_MAX_METRICS * SB_METRIC_NAME];
    snprintf(buf, sizeof buf, "%s", value);
    for (char *save = NULL, *m = strtok_r(buf, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
        int is_default = strcmp(m, "default") == 0;
        int count = is_default ? sb_ndefault_metrics : 1;
        if (o->nmetrics + count > SB_MAX_METRICS)
            return sb_fail("--metrics: at most %d metrics per run", SB_MAX_METRICS);
        if (strlen(m) >= SB_METRIC_NAME)
            return sb_fail("--metrics: '%.40s...' is longer than a metric name can be", m);
        for (int i = 0; i < count; i++)
            snprintf(o->metrics[o->nmetrics++], SB_METRIC_NAME, "%s",
                     is_default ? sb_default_metrics[i] : m);
    }
    return 0;
}

int sb_measure_option(sb_measure_options *o, const char *name, const char *value)
{
    double x = 0;
    if (strcmp(name, "cold") == 0 || strcmp(name, "warm") == 0) {
        o->cold = strcmp(name, "cold") == 0;
        return 0;
    }
    if (strcmp(name, "no-activity") == 0) {
        o->activity = 0;
        return 0;
    }
    if (strcmp(name, "isolate") == 0 || strcmp(name, "no-isolate") == 0) {
        o->isolate = strcmp(name, "isolate") == 0;
        return 0;
    }
    if (strcmp(name, "variant-timeout") == 0) {
        if (number_in(name, value, 0.001, 1e7, &x))
            return -1;
        o->variant_timeout = x;
        return 0;
    }
    if (strcmp(name, "metrics") == 0)
        return metrics_option(o, value);
    if (strcmp(name, "max-noise") == 0) {
        if (number_in(name, value, 0, 1, &x))
            return -1;
        o->max_noise = x;
    } else if (strcmp(name, "min-samples") == 0) {
        if (number_in(name, value, 1, 1e6, &x))
            return -1;
        o->min_samples = (int)x;
    } else if (strcmp(name, "min-time") == 0) {
        if (number_in(name, value, 0, 1e6, &x))
            return -1;
        o->min_time = x;
    } else if (strcmp(name, "timeout") == 0) {
        if (number_in(name, value, 1e-3, 1e6, &x))
            return -1;
        o->timeout = x;
    } else if (strcmp(name, "repetitions") == 0) {
        if (number_in(name, value, 1, 1000, &x))
            return -1;
        o->repetitions = (int)x;
    } else if (strcmp(name, "warmup") == 0) {
        if (number_in(name, value, 0, 1000, &x))
            return -1;
        o->warmup_runs = (int)x;
    } else if (strcmp(name, "warmup-time") == 0) {
        if (number_in(name, value, 0, 1e6, &x))
            return -1;
        o->warmup_time = x;
    } else if (strcmp(name, "sample-time") == 0) {
        if (number_in(name, value, 0, 1e6, &x))
            return -1;
        o->sample_time = x;
    } else if (strcmp(name, "noise-measure") == 0) {
        if (!value || (strcmp(value, "robust") && strcmp(value, "stdev")))
            return sb_fail("--noise-measure %s%s: give robust (median absolute deviation over "
                           "the median) or stdev (stdev/mean)", value ? value : "",
                           value ? "" : "needs a value");
        o->noise_measure = strcmp(value, "stdev") == 0 ? SB_NOISE_STDEV : SB_NOISE_ROBUST;
    } else {
        return 1;
    }
    return 0;
}
