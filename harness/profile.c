#include "profile.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../cuda/timing.h"
#include "../cuda/base/error.h"

/* The metric names a pass collects: the user's, or the default set. */
static int metric_list(const sb_measure_options *opt, const char **names)
{
    if (opt->nmetrics == 0) {
        for (int i = 0; i < sb_ndefault_metrics; i++)
            names[i] = sb_default_metrics[i];
        return sb_ndefault_metrics;
    }
    for (int i = 0; i < opt->nmetrics; i++)
        names[i] = opt->metrics[i];
    return opt->nmetrics;
}

int sb_profile_check(const sb_measure_options *opt, int device)
{
    const char *names[SB_MAX_METRICS];
    int n = metric_list(opt, names);
    if (opt->counters == SB_COUNTERS_OFF)
        return 0;
    sb_counters *c = NULL;
    int rc = sb_counters_open(&c, device, names, n);
    if (rc == 0) {
        sb_counters_close(c);
        return 0;
    }
    if (rc == SB_COUNTERS_UNAVAILABLE && opt->counters != SB_COUNTERS_REQUIRED)
        return 0; /* each record will say why */
    if (rc == SB_COUNTERS_UNAVAILABLE)
        return sb_fail("--metrics: hardware counters cannot be read on device %d: %s", device,
                       sb_error());
    return -1; /* a bad name: the message lists close matches */
}

static int counter_passes(sb_session *s, sb_counters *c, sb_counter_result *out)
{
    sb_l2_flusher flusher = {0};
    cudaStream_t stream = s->env.streams[0];
    int rc = sb_l2_flusher_init(&flusher, s->env.devices[0]);
    /* CUPTI plans the passes; a backend that never says done must not loop forever */
    int limit = 4 * sb_counters_passes(c) + 4, done = 0;
    for (int pass = 0; rc == 0 && !done; pass++) {
        if (pass == limit) {
            rc = sb_fail("the profiler asked for more than %d passes", limit);
            break;
        }
        if (sb_l2_flush(&flusher, stream) != 0 || cudaStreamSynchronize(stream) != cudaSuccess) {
            rc = sb_fail("L2 flush before counter pass %d failed", pass + 1);
            break;
        }
        sb_range_push(s->label, "counters");
        rc = sb_counters_begin_pass(c);
        if (rc == 0)
            rc = s->variant->ops->run(s->state);
        if (rc == 0 && cudaDeviceSynchronize() != cudaSuccess)
            rc = sb_fail("counter pass %d: %s", pass + 1, cudaGetErrorString(cudaGetLastError()));
        if (rc == 0)
            rc = sb_counters_end_pass(c, &done);
        sb_range_pop();
        out->passes = pass + 1;
    }
    if (rc == 0)
        rc = sb_counters_values(c, out->values);
    sb_l2_flusher_free(&flusher);
    return rc;
}

int sb_profile_counters(sb_session *s, const sb_measure_options *opt, sb_counter_result *out)
{
    const char *names[SB_MAX_METRICS];
    int n = metric_list(opt, names);
    out->n = n;
    for (int i = 0; i < n; i++) {
        snprintf(out->names[i], sizeof out->names[i], "%s", names[i]);
        out->values[i] = NAN;
    }
    if (opt->counters == SB_COUNTERS_OFF) {
        out->status = "off";
        return 0;
    }
    out->device = s->env.devices[0];
    sb_counters *c = NULL;
    sb_error_clear();
    int rc = sb_counters_open(&c, out->device, names, n);
    if (rc == 0) {
        out->backend = sb_counters_backend(c);
        out->replay = sb_counters_replay(c);
        rc = counter_passes(s, c, out);
        sb_counters_close(c);
        /* the profiler must leave the variant's device current */
        cudaSetDevice(s->env.devices[0]);
    }
    if (rc == 0) {
        out->status = "collected";
        return 0;
    }
    out->status = rc == SB_COUNTERS_UNAVAILABLE ? "unavailable" : "failed";
    snprintf(out->reason, sizeof out->reason, "%s", sb_error());
    return opt->counters == SB_COUNTERS_REQUIRED ? -1 : 0;
}

int sb_profile_activity_begin(const sb_measure_options *opt, sb_activity_result *a)
{
    memset(a, 0, sizeof *a);
    if (!opt->activity) {
        a->status = "off";
        return -1;
    }
    if (sb_activity_start() != 0) {
        a->status = "unavailable";
        snprintf(a->reason, sizeof a->reason, "%s", sb_error());
        return -1;
    }
    a->status = "collected";
    return 0;
}

void sb_profile_activity_window(sb_activity_result *a, const sb_env *env, sb_activity *into)
{
    if (strcmp(a->status, "collected") != 0)
        return;
    if (sb_activity_collect(env->devices, env->ndevices, into) != 0) {
        a->status = "unavailable";
        snprintf(a->reason, sizeof a->reason, "%s", sb_error());
    }
}

static void disagree(sb_activity_result *a, const char *what, long long cupti, long long tracked)
{
    size_t len = strlen(a->disagreement);
    snprintf(a->disagreement + len, sizeof a->disagreement - len, "%s%s: CUPTI %lld, tracked %lld",
             len ? "; " : "", what, cupti, tracked);
}

void sb_profile_activity_end(sb_activity_result *a, const sb_env *env,
                             const sb_transfers *tracked_run)
{
    sb_activity_stop();
    if (strcmp(a->status, "collected") != 0)
        return;
    const sb_activity *su = &a->setup, *run = &a->run;
    /* setup's allocations stay live through the run unless setup freed them */
    long long setup_end = su->live_end_bytes;
    a->device_peak_bytes = su->live_peak_bytes > setup_end + run->live_peak_bytes
                               ? su->live_peak_bytes
                               : setup_end + run->live_peak_bytes;
    a->disagreement[0] = '\0';
    if (run->h2d != (long long)tracked_run->h2d)
        disagree(a, "host-to-device bytes", run->h2d, (long long)tracked_run->h2d);
    if (run->d2h != (long long)tracked_run->d2h)
        disagree(a, "device-to-host bytes", run->d2h, (long long)tracked_run->d2h);
    if (run->d2d != (long long)tracked_run->d2d)
        disagree(a, "device-to-device bytes", run->d2d, (long long)tracked_run->d2d);
    if (run->peer != (long long)tracked_run->peer)
        disagree(a, "peer bytes", run->peer, (long long)tracked_run->peer);
    if (a->device_peak_bytes != (long long)env->mem.peak)
        disagree(a, "peak device bytes", a->device_peak_bytes, (long long)env->mem.peak);
    if (su->dropped || run->dropped)
        disagree(a, "records dropped", su->dropped + run->dropped, 0);
    a->agrees = a->disagreement[0] == '\0';
}
