#include "runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../harness/error.h"
#include "../harness/json.h"
#include "../harness/profile.h"
#include "../harness/registry.h"

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

int sb_devices_select(sb_devices *d, const char *which)
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
        if (used && sb_device_measure_bandwidth(i, &d->info[i].peak_bw_measured) != 0)
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

/* The validation run's kernels (--kernels): one row per kernel and launch shape, most time
 * first, with the share of the run's kernel time and the theoretical occupancy. */
static void print_kernels(const sb_activity_result *a)
{
    if (strcmp(a->status, "collected") != 0) {
        printf("    no kernel table: activity records %s%s%s\n", a->status,
               a->reason[0] ? ": " : "", a->reason);
        return;
    }
    const sb_activity *run = &a->run;
    if (run->nkernel_table == 0 && run->kernel_table_omitted_launches == 0) {
        printf("    no kernel launched from the host in the validation run\n");
        return;
    }
    printf("    %-44s %3s %8s %6s %4s %7s %5s %8s %9s %5s  %s\n", "kernel (validation run)", "dev",
           "launches", "time", "regs", "local B", "block", "shared B", "blocks/SM", "occ.",
           "limited by");
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

static void print_result(const sb_result *res, const sb_point *p)
{
    const sb_workload *w = p->workload;
    char t[32], mem[32];
    if (res->status == SB_SKIPPED && res->variant->needs & SB_NEEDS_GPU && res->ndevices == 0)
        return; /* said once for the point (no GPU) */
    if (res->status != SB_VALID) {
        printf("  %-48s %-8s %s\n", res->name, sb_status_name(res->status), res->reason);
        return;
    }
    double per_s = res->time.median > 0 ? res->figures.items / res->time.median : 0;
    printf("  %-48s valid    %12s  noise %5.2f%%  %4d samples (%s)  %.3g %s/s%s%s\n",
           res->name, sb_format_seconds(res->time.median, t, sizeof t), 100 * res->time.noise,
           res->nsamples, res->stop_reason, per_s, w->item_unit,
           res->device >= 0 ? "  device peak " : "",
           res->device >= 0 ? sb_format_bytes((double)res->peak_tracked_bytes, mem, sizeof mem)
                            : "");
    if (p->kernels && res->device >= 0)
        print_kernels(&res->activity);
    fflush(stdout);
}

static int record(sb_records *records, sb_result *res, const sb_point *p, sb_point_outcome *o,
                  int named, const sb_variant *ref)
{
    if (res->against)
        res->against = ref->name;
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

int sb_point_run(const sb_point *p, sb_records *records, sb_point_outcome *o)
{
    const sb_workload *w = p->workload;
    const sb_devices *devs = p->devices;
    const sb_variant *list[64];
    int n, named = p->variants && strcmp(p->variants, "all") != 0;
    void *model = NULL, *ref_out = NULL, *out = NULL;
    if (variant_list(w, p->variants, list, &n) != 0 || w->load(p->params, &model) != 0)
        return -1;
    int rc = -1;
    const sb_variant *ref = sb_find_variant(w, p->reference ? p->reference : w->reference);
    ref_out = w->output_new(model);
    out = w->output_new(model);
    if (!ref_out || !out) {
        sb_fail("out of host memory for outputs");
        goto done;
    }
    /* The reference output: from timing the reference when it is selected, else from one run. */
    int ref_selected = 0;
    for (int i = 0; i < n; i++)
        ref_selected |= list[i] == ref;
    /* A GPU reference (for runs too long for the CPU one) runs on the first selected GPU. */
    int ref_gpu = (ref->needs & SB_NEEDS_GPU) != 0;
    const int *ref_devices = ref_gpu ? &devs->selected[0] : NULL;
    const sb_device_info *ref_info = ref_gpu ? &devs->info[devs->selected[0]] : NULL;
    if (ref_selected) {
        sb_result res;
        sb_measure(w, ref, model, p->params, ref_devices, ref_gpu, ref_info, NULL, ref_out,
                   p->opt, &res);
        int ok = res.status == SB_VALID;
        if (record(records, &res, p, o, named, ref) != 0)
            goto done;
        if (!ok) { /* nothing can be validated: the point ends, failed */
            rc = 0;
            goto done;
        }
    } else if (sb_run_once(w, ref, model, p->params, ref_devices, ref_gpu, ref_out) != 0) {
        fprintf(stderr, "stagebench: the reference failed, nothing validated: %s\n", sb_error());
        o->failed++;
        rc = 0;
        goto done;
    }
    int gpu_listed = 0;
    for (int i = 0; i < n; i++)
        gpu_listed |= (list[i]->needs & SB_NEEDS_GPU) != 0;
    if (gpu_listed && devs->count == 0 && !p->quiet)
        printf("  GPU variants skipped: %s\n", sb_no_device_reason());
    for (int i = 0; i < n; i++) {
        const sb_variant *v = list[i];
        if (v == ref)
            continue;
        if (!(v->needs & SB_NEEDS_GPU) || devs->nselected == 0) {
            sb_result res;
            sb_measure(w, v, model, p->params, NULL, 0, NULL, ref_out, out, p->opt, &res);
            if (record(records, &res, p, o, named, ref) != 0)
                goto done;
            continue;
        }
        if (v->needs & SB_NEEDS_MULTI_GPU) { /* every visible GPU, timed on device 0 */
            int all[SB_MAX_DEVICES];
            for (int d = 0; d < devs->count; d++)
                all[d] = d;
            sb_result res;
            sb_measure(w, v, model, p->params, all, devs->count, &devs->info[0], ref_out, out,
                       p->opt, &res);
            if (record(records, &res, p, o, named, ref) != 0)
                goto done;
            continue;
        }
        for (int k = 0; k < devs->nselected; k++) {
            int dev = devs->selected[k];
            sb_result res;
            sb_measure(w, v, model, p->params, &dev, 1, &devs->info[dev], ref_out, out, p->opt,
                       &res);
            if (devs->nselected > 1) {
                size_t len = strlen(res.name);
                snprintf(res.name + len, sizeof res.name - len, "/device:%d", dev);
            }
            if (record(records, &res, p, o, named, ref) != 0)
                goto done;
        }
    }
    rc = p->dump_output ? w->output_write(model, ref_out, p->dump_output) : 0;
done:
    if (ref_out)
        w->output_free(ref_out);
    if (out)
        w->output_free(out);
    w->free_model(model);
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
    } else {
        return 1;
    }
    return 0;
}
