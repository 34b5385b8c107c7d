#include "measure.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../cuda/check.h"
#include "../cuda/timing.h"
#include "error.h"
#include "smclock.h"

void sb_measure_defaults(sb_measure_options *o)
{
    o->max_noise = 0.01;
    o->min_samples = 10;
    o->min_time = 0.5;
    o->timeout = 20.0;
    o->warmup_runs = 1;
    o->cold = 0;
}

const char *sb_status_name(sb_status s)
{
    static const char *names[] = {"valid", "invalid", "failed", "skipped"};
    return names[s];
}

double sb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void sb_phases_clear(sb_phases *p)
{
    p->n = 0;
}

void sb_phase_add(sb_phases *p, const char *name, double seconds)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->name[i], name) == 0) {
            p->seconds[i] += seconds;
            return;
        }
    if (p->n < SB_MAX_PHASES) {
        p->name[p->n] = name;
        p->seconds[p->n++] = seconds;
    }
}

static int env_open(sb_env *env, const sb_params *params, const int *devices, int ndevices)
{
    memset(env, 0, sizeof *env);
    env->params = params;
    env->cpu_threads = omp_get_max_threads();
    env->ndevices = ndevices;
    for (int i = 0; i < ndevices; i++) {
        env->devices[i] = devices[i];
        SB_CUDA(cudaSetDevice(devices[i]));
        SB_CUDA(cudaStreamCreateWithFlags(&env->streams[i], cudaStreamNonBlocking));
    }
    if (ndevices > 0)
        SB_CUDA(cudaSetDevice(devices[0]));
    return 0;
}

static void env_close(sb_env *env)
{
    sb_dev_free_all(&env->mem);
    for (int i = 0; i < env->ndevices; i++) {
        cudaSetDevice(env->devices[i]);
        cudaStreamDestroy(env->streams[i]);
    }
}

static size_t free_device_bytes(int device)
{
    size_t free_bytes = 0, total = 0;
    cudaSetDevice(device);
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess)
        cudaGetLastError();
    return free_bytes;
}

static void set_reason(sb_result *res, sb_status status, const char *fmt, const char *detail)
{
    res->status = status;
    snprintf(res->reason, sizeof res->reason, fmt, detail);
}

/* Growable sample arrays. */
static int push_sample(sb_result *res, int *cap, double time_s, double wall_s)
{
    if (res->nsamples == *cap) {
        int n = *cap ? 2 * *cap : 64;
        double *t = realloc(res->time_samples, (size_t)n * sizeof *t);
        if (t)
            res->time_samples = t;
        double *w = realloc(res->wall_samples, (size_t)n * sizeof *w);
        if (w)
            res->wall_samples = w;
        if (!t || !w)
            return sb_fail("out of host memory for %d samples", n);
        *cap = n;
    }
    res->time_samples[res->nsamples] = time_s;
    res->wall_samples[res->nsamples] = wall_s;
    res->nsamples++;
    return 0;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One timed call of run(): events on the timed device's stream and the host clock around it. */
static int timed_run(const sb_variant *v, void *state, const sb_env *env, cudaEvent_t start,
                     cudaEvent_t stop, double *time_s, double *wall_s)
{
    int use_events = env->ndevices > 0;
    if (use_events)
        SB_CUDA(cudaEventRecord(start, env->streams[0]));
    double t0 = sb_now();
    int rc = v->ops->run(state);
    if (rc != 0)
        return rc;
    if (use_events) {
        SB_CUDA(cudaEventRecord(stop, env->streams[0]));
        SB_CUDA(cudaEventSynchronize(stop));
    }
    *wall_s = sb_now() - t0;
    if (use_events)
        return sb_event_seconds(start, stop, time_s);
    *time_s = *wall_s;
    return 0;
}

static int sample_until_done(const sb_variant *v, void *state, const sb_env *env,
                             const sb_measure_options *opt, const sb_smclock *clock,
                             sb_result *res)
{
    cudaEvent_t start = NULL, stop = NULL;
    sb_l2_flusher flusher = {0};
    double *mhz = NULL;
    int cap = 0, mhz_n = 0, rc = -1;
    if (env->ndevices > 0) {
        SB_CUDA(cudaEventCreate(&start));
        SB_CUDA(cudaEventCreate(&stop));
        if (opt->cold && sb_l2_flusher_init(&flusher, env->devices[0]) != 0)
            goto done;
    }
    double begin = sb_now();
    for (;;) {
        double time_s = 0, wall_s = 0;
        unsigned mhz_before = 0, mhz_after = 0;
        int slow_before = 0, slow_after = 0;
        if (flusher.buffer && (sb_l2_flush(&flusher, env->streams[0]) != 0 ||
                               cudaStreamSynchronize(env->streams[0]) != cudaSuccess))
            goto done;
        int have_clock = sb_smclock_read(clock, &mhz_before, &slow_before) == 0;
        rc = timed_run(v, state, env, start, stop, &time_s, &wall_s);
        if (rc != 0)
            goto done;
        rc = -1;
        if (have_clock && sb_smclock_read(clock, &mhz_after, &slow_after) == 0) {
            double *m = realloc(mhz, (size_t)(mhz_n + 2) * sizeof *m);
            if (!m)
                goto done;
            mhz = m;
            mhz[mhz_n++] = mhz_before;
            mhz[mhz_n++] = mhz_after;
            res->throttled_samples += slow_before || slow_after;
        }
        if (push_sample(res, &cap, time_s, wall_s) != 0)
            goto done;
        double elapsed = sb_now() - begin;
        sb_stats_compute(res->time_samples, res->nsamples, &res->time);
        if (res->nsamples >= opt->min_samples && elapsed >= opt->min_time &&
            res->time.noise < opt->max_noise) {
            res->stop_reason = "noise";
            break;
        }
        if (elapsed >= opt->timeout) {
            res->stop_reason = "timeout";
            break;
        }
    }
    sb_stats_compute(res->wall_samples, res->nsamples, &res->wall);
    if (mhz_n > 0) {
        qsort(mhz, (size_t)mhz_n, sizeof *mhz, compare_doubles);
        res->clock_available = 1;
        res->sm_mhz_min = mhz[0];
        res->sm_mhz_max = mhz[mhz_n - 1];
        res->sm_mhz_median = mhz[mhz_n / 2];
    }
    rc = 0;
done:
    free(mhz);
    sb_l2_flusher_free(&flusher);
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    return rc;
}

static void transfers_delta(const sb_transfers *after, const sb_transfers *before,
                            sb_transfers *delta)
{
    delta->h2d = after->h2d - before->h2d;
    delta->d2h = after->d2h - before->d2h;
    delta->d2d = after->d2d - before->d2d;
    delta->peer = after->peer - before->peer;
}

/* Runs once and checks the output against the reference (NULL: v is the reference). */
static int validated_run(const sb_workload *w, const sb_variant *v, void *state, sb_env *env,
                         const void *model, const void *reference, void *out, sb_result *res)
{
    sb_transfers before = env->xfer;
    w->output_poison(out);
    int rc = v->ops->run(state);
    if (rc == 0)
        rc = v->ops->output(state, out);
    if (rc != 0)
        return rc;
    transfers_delta(&env->xfer, &before, &res->transfers);
    if (!reference) {
        res->validation = "is-reference";
        return 0;
    }
    if (!w->output_equal(model, reference, out, res->validation_detail,
                         sizeof res->validation_detail)) {
        res->validation = "failed";
        return 1;
    }
    res->validation = "passed";
    return 0;
}

int sb_measure(const sb_workload *w, const sb_variant *v, const void *model,
               const sb_params *params, const int *devices, int ndevices,
               const sb_device_info *timed_device, const void *reference, void *out,
               const sb_measure_options *opt, sb_result *res)
{
    sb_env env;
    void *state = NULL;
    int gpu = (v->needs & SB_NEEDS_GPU) != 0;
    memset(res, 0, sizeof *res);
    res->workload = w;
    res->variant = v;
    res->params = params;
    res->device = gpu && ndevices > 0 ? devices[0] : -1;
    res->ndevices = gpu ? ndevices : 0;
    res->validation = "not-run";
    res->against = reference ? w->reference : NULL;
    res->event_timer = gpu;
    res->peak_bw = gpu && timed_device ? timed_device->peak_bw_measured : 0;
    char pname[SB_PARAM_TEXT];
    sb_params_name(params, pname, sizeof pname);
    if (snprintf(res->name, sizeof res->name, "%s/%s%s%s", w->name, v->name, pname[0] ? "/" : "",
                 pname) >= (int)sizeof res->name)
        res->name[sizeof res->name - 2] = '~'; /* visibly cut */
    if (gpu && ndevices == 0) {
        set_reason(res, SB_SKIPPED, "GPU variant skipped: %s", sb_no_device_reason());
        return 0;
    }
    if (env_open(&env, params, devices, gpu ? ndevices : 0) != 0) {
        set_reason(res, SB_FAILED, "%s", sb_error());
        env_close(&env);
        return 0;
    }
    size_t free_before = gpu ? free_device_bytes(devices[0]) : 0;
    size_t free_least = free_before;
    sb_error_clear();
    int rc = v->ops->setup(&env, model, &state);
    if (rc == SB_REFUSED) {
        set_reason(res, SB_SKIPPED, "%s", sb_error());
        goto done;
    }
    if (rc != 0) {
        set_reason(res, SB_FAILED, "set-up failed: %s", sb_error());
        goto done;
    }
    rc = validated_run(w, v, state, &env, model, reference, out, res);
    if (rc == SB_REFUSED) {
        set_reason(res, SB_SKIPPED, "%s", sb_error());
        goto done;
    }
    if (rc == 1) {
        set_reason(res, SB_INVALID, "output differs from the reference: %s",
                   res->validation_detail);
        goto done;
    }
    if (rc != 0) {
        set_reason(res, SB_FAILED, "%s", sb_error());
        goto done;
    }
    if (gpu && free_device_bytes(devices[0]) < free_least)
        free_least = free_device_bytes(devices[0]);
    for (int i = 0; i < opt->warmup_runs; i++) {
        if (v->ops->run(state) != 0) {
            set_reason(res, SB_FAILED, "warm-up run failed: %s", sb_error());
            goto done;
        }
    }
    sb_smclock clock = {0};
    if (gpu && timed_device)
        sb_smclock_open(&clock, timed_device->uuid);
    if (sample_until_done(v, state, &env, opt, &clock, res) != 0) {
        set_reason(res, SB_FAILED, "timed run failed: %s", sb_error());
        goto done;
    }
    if (gpu && free_device_bytes(devices[0]) < free_least)
        free_least = free_device_bytes(devices[0]);
    /* The last timed run's output must still match: a race shows up as a moving result. */
    if (reference) {
        w->output_poison(out);
        if (v->ops->output(state, out) != 0) {
            set_reason(res, SB_FAILED, "output after timing failed: %s", sb_error());
            goto done;
        }
        if (!w->output_equal(model, reference, out, res->validation_detail,
                             sizeof res->validation_detail)) {
            res->validation = "failed";
            set_reason(res, SB_INVALID, "output changed during timing: %s",
                       res->validation_detail);
            goto done;
        }
    }
    res->status = SB_VALID;
    if (v->ops->report)
        v->ops->report(state, &res->report);
    w->figures(model, out, &res->figures);
done:
    res->peak_tracked_bytes = env.mem.peak;
    res->memgetinfo_delta_bytes = (long long)free_before - (long long)free_least;
    if (state)
        v->ops->teardown(state);
    env_close(&env);
    return 0;
}

void sb_result_free(sb_result *res)
{
    free(res->time_samples);
    free(res->wall_samples);
    res->time_samples = res->wall_samples = NULL;
}

int sb_run_once(const sb_workload *w, const sb_variant *v, const void *model,
                const sb_params *params, const int *devices, int ndevices, void *out)
{
    sb_env env;
    void *state = NULL;
    int gpu = (v->needs & SB_NEEDS_GPU) != 0;
    int rc = env_open(&env, params, devices, gpu ? ndevices : 0);
    if (rc == 0)
        rc = v->ops->setup(&env, model, &state);
    if (rc == 0)
        rc = v->ops->run(state);
    if (rc == 0)
        rc = v->ops->output(state, out);
    if (state)
        v->ops->teardown(state);
    env_close(&env);
    if (rc != 0)
        sb_fail_context("%s/%s", w->name, v->name);
    return rc;
}
