#define _GNU_SOURCE /* RUSAGE_THREAD */
#include "measure.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../cuda/check.h"
#include "../cuda/timing.h"
#include "../cuda/base/error.h"
#include "profile.h"
#include "sampling.h"
#include "smclock.h"

void sb_measure_defaults(sb_measure_options *o)
{
    o->max_noise = 0.01;
    o->min_samples = 10;
    o->min_time = 0.5;
    o->timeout = 20.0;
    o->warmup_runs = 1;
    o->warmup_time = 0.05;
    o->sample_time = 0.05;
    o->noise_measure = SB_NOISE_ROBUST;
    o->cold = SB_COLD_KERNEL_LEVEL;
    o->counters = SB_COUNTERS_IF_AVAILABLE;
    o->nmetrics = 0;
    o->activity = 1;
    o->repetitions = 1;
    o->isolate = 0;
    o->variant_timeout = 0;
}

double sb_variant_time_limit(const sb_measure_options *o)
{
    return o->variant_timeout > 0 ? o->variant_timeout : 10 * o->timeout + 1800;
}

const char *sb_status_name(sb_status s)
{
    static const char *names[] = {"valid", "invalid", "failed", "skipped"};
    return names[s];
}

static int env_open(sb_env *env, const char *label, const sb_params *params, const int *devices,
                    int ndevices)
{
    memset(env, 0, sizeof *env);
    snprintf(env->label, sizeof env->label, "%s", label);
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

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

const char *sb_build_lacks(unsigned needs)
{
#ifdef SB_NO_GRAPH_LOOP
    if (needs & SB_NEEDS_GRAPH_LOOP)
        return "loops on the device through conditional graph nodes, which this build's CUDA "
               "toolkit lacks (CUDA 12.4+; compiled out by cmake's feature probe)";
#endif
#ifdef SB_NO_INDEPENDENT_THREADS
    if (needs & SB_NEEDS_INDEPENDENT_THREADS)
        return "has lanes of a warp wait for one another, which needs independent thread "
               "scheduling (compute capability 7.0+), and this build's architectures include "
               "older ones (compiled out by cmake's feature probe)";
#endif
#ifdef SB_NO_NCCL
    if (needs & SB_NEEDS_NCCL)
        return "uses NCCL, which this build was configured without (not found beside an older "
               "CUDA toolkit; compiled out)";
#endif
    (void)needs;
    return NULL;
}

int sb_session_open(sb_session *s, const sb_workload *w, const sb_variant *v, const void *model,
                    const sb_params *params, const int *devices, int ndevices)
{
    memset(s, 0, sizeof *s);
    s->workload = w;
    s->variant = v;
    s->model = model;
    s->gpu = (v->needs & SB_NEEDS_GPU) != 0;
    snprintf(s->label, sizeof s->label, "%s/%s", w->name, v->name);
    sb_error_clear();
    const char *lacks = sb_build_lacks(v->needs);
    if (lacks) { /* compiled out: cannot run, a skip */
        sb_fail("%s %s", v->name, lacks);
        return SB_REFUSED;
    }
    int rc = env_open(&s->env, s->label, params, devices, s->gpu ? ndevices : 0);
    if (rc == 0 && s->gpu) {
        SB_CUDA(cudaEventCreate(&s->start));
        SB_CUDA(cudaEventCreate(&s->stop));
    }
    if (rc != 0)
        return rc;
    sb_range_push(s->label, "setup");
    rc = v->ops->setup(&s->env, model, &s->state);
    sb_range_pop();
    return rc;
}

int sb_session_validate(sb_session *s, const void *reference, void *out, char *detail,
                        size_t cap)
{
    const sb_workload *w = s->workload;
    sb_range_push(s->label, "validation");
    w->output_poison(out);
    int rc = s->variant->ops->run(s->state);
    if (rc == 0)
        rc = s->variant->ops->output(s->state, out);
    if (rc == 0 && reference && !w->output_equal(s->model, reference, out, detail, cap))
        rc = 1;
    sb_range_pop();
    return rc;
}

int sb_session_recheck(sb_session *s, const void *reference, void *out, char *detail, size_t cap)
{
    s->workload->output_poison(out);
    if (s->variant->ops->output(s->state, out) != 0)
        return -1;
    return s->workload->output_equal(s->model, reference, out, detail, cap) ? 0 : 1;
}

void sb_benchmark_name(const sb_workload *w, const sb_variant *v, const sb_params *params,
                       char *out, size_t cap)
{
    char pname[SB_PARAM_TEXT];
    sb_params_name(params, pname, sizeof pname);
    if (snprintf(out, cap, "%s/%s%s%s", w->name, v->name, pname[0] ? "/" : "", pname) >=
        (int)cap)
        out[cap - 2] = '~'; /* visibly cut */
}

/* Events on the timed device's stream and the host clock around one run(); the NVTX range is
 * named after the phase ("sample", "warm-up"). */
static int session_run_timed(sb_session *s, const char *phase, double *time_s, double *wall_s)
{
    sb_range_push(s->label, phase);
    if (s->gpu)
        SB_CUDA(cudaEventRecord(s->start, s->env.streams[0]));
    double w0 = sb_now();
    int rc = s->variant->ops->run(s->state);
    if (rc == 0 && s->gpu) {
        SB_CUDA(cudaEventRecord(s->stop, s->env.streams[0]));
        SB_CUDA(cudaEventSynchronize(s->stop));
    }
    *wall_s = sb_now() - w0;
    sb_range_pop();
    if (rc != 0)
        return rc;
    if (s->gpu)
        return sb_event_seconds(s->start, s->stop, time_s);
    *time_s = *wall_s;
    return 0;
}

int sb_session_sample(sb_session *s, double *time_s, double *wall_s)
{
    return session_run_timed(s, "sample", time_s, wall_s);
}

/* One more run after the samples, as they ran it, with CUPTI's activity records: its kernels in
 * a->timed (a graph's kernels included, which the validation run may launch otherwise). */
static int timed_run_kernels(sb_session *s, sb_activity_result *a)
{
    if (sb_activity_start() != 0)
        return -1;
    double time_s, wall_s;
    int rc = session_run_timed(s, "kernels", &time_s, &wall_s);
    if (rc == 0)
        rc = sb_activity_collect(s->env.devices, s->env.ndevices, &a->timed);
    sb_activity_stop();
    a->has_timed = rc == 0;
    return rc;
}

void sb_session_close(sb_session *s)
{
    if (s->state)
        s->variant->ops->teardown(s->state);
    s->state = NULL;
    if (s->start)
        cudaEventDestroy(s->start);
    if (s->stop)
        cudaEventDestroy(s->stop);
    s->start = s->stop = NULL;
    env_close(&s->env);
}

/* What sb_sample calls to time runs (harness/sampling.h): the L2 flushed before each run when
 * asked (outside the events), and the SM clock read before and after each sample. */
typedef struct cuda_sampler {
    sb_session *s;
    sb_l2_flusher flusher;
    cudaStream_t stream;
    const sb_smclock *clock;
    double *mhz;
    int mhz_n;
    unsigned char *preempted; /* per sample: the thread was preempted during it */
    int samples;
    sb_result *res;
} cuda_sampler;

/* Times the sampling thread was preempted (involuntary context switches): another task took its
 * core, so a sample with one may hold host interference. */
static long preemptions(void)
{
    struct rusage u;
    return getrusage(RUSAGE_THREAD, &u) == 0 ? u.ru_nivcsw : 0;
}

static double sampler_now(void *ctx)
{
    (void)ctx;
    return sb_now();
}

static int sampler_sample(void *ctx, int runs, int warmup, double *time_s, double *wall_s)
{
    cuda_sampler *c = ctx;
    unsigned mhz_before = 0, mhz_after = 0;
    int slow_before = 0, slow_after = 0;
    int have_clock = !warmup && sb_smclock_read(c->clock, &mhz_before, &slow_before) == 0;
    long switches = warmup ? 0 : preemptions();
    double time_sum = 0, wall_sum = 0;
    for (int i = 0; i < runs; i++) {
        double t = 0, w = 0;
        if (c->flusher.buffer) {
            if (sb_l2_flush(&c->flusher, c->stream) != 0)
                return -1;
            cudaError_t e = cudaStreamSynchronize(c->stream);
            if (e != cudaSuccess)
                return sb_fail("the L2 flush before a run failed: %s", cudaGetErrorString(e));
        }
        int rc = session_run_timed(c->s, warmup ? "warm-up" : "sample", &t, &w);
        if (rc != 0)
            return rc;
        time_sum += t;
        wall_sum += w;
    }
    *time_s = time_sum / runs;
    *wall_s = wall_sum / runs;
    if (!warmup) {
        unsigned char *p = realloc(c->preempted, (size_t)c->samples + 1);
        if (!p)
            return sb_fail("out of host memory for %d samples", c->samples + 1);
        c->preempted = p;
        c->preempted[c->samples++] = preemptions() != switches;
    }
    if (have_clock && sb_smclock_read(c->clock, &mhz_after, &slow_after) == 0) {
        double *m = realloc(c->mhz, (size_t)(c->mhz_n + 2) * sizeof *m);
        if (!m)
            return sb_fail("out of host memory for clock readings");
        c->mhz = m;
        c->mhz[c->mhz_n++] = mhz_before;
        c->mhz[c->mhz_n++] = mhz_after;
        c->res->throttled_samples += slow_before || slow_after;
        unsigned celsius;
        if (sb_smclock_temperature(c->clock, &celsius) == 0 && celsius > c->res->temperature_c_max)
            c->res->temperature_c_max = celsius;
    }
    return 0;
}

/* Warm-up and samples (harness/sampling.h). 0; 1 when a warm-up run failed; -1 otherwise. */
static int warm_up_and_sample(sb_session *s, const sb_measure_options *opt,
                              const sb_smclock *clock, sb_result *res)
{
    cuda_sampler c = {.s = s, .stream = s->gpu ? s->env.streams[0] : NULL, .clock = clock,
                      .res = res};
    int cold = opt->cold == SB_COLD_KERNEL_LEVEL ? res->variant->kernel_level : opt->cold;
    if (s->gpu && cold && sb_l2_flusher_init(&c.flusher, s->env.devices[0]) != 0)
        return -1;
    res->l2_flushed = c.flusher.buffer != NULL;
    sb_sampler sampler = {&c, sampler_sample, sampler_now, s->env.agree};
    int rc = sb_sample(opt, &sampler, res);
    for (int i = 0; rc == 0 && i < res->nsamples && i < c.samples; i++) {
        int slow = res->time_samples[i] > 1.1 * res->time.median;
        res->preempted_samples += c.preempted[i];
        res->slow_samples += slow;
        res->slow_preempted += slow && c.preempted[i];
    }
    free(c.preempted);
    if (rc == 0 && c.mhz_n > 0) {
        qsort(c.mhz, (size_t)c.mhz_n, sizeof *c.mhz, compare_doubles);
        res->clock_available = 1;
        res->sm_mhz_min = c.mhz[0];
        res->sm_mhz_max = c.mhz[c.mhz_n - 1];
        res->sm_mhz_median = c.mhz[c.mhz_n / 2];
    }
    free(c.mhz);
    sb_l2_flusher_free(&c.flusher);
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

/* What a record holds before anything ran. */
static void result_init(sb_result *res, const sb_workload *w, const sb_variant *v,
                        const sb_params *params, int device, int ndevices, const char *against)
{
    int gpu = (v->needs & SB_NEEDS_GPU) != 0;
    memset(res, 0, sizeof *res);
    res->workload = w;
    res->variant = v;
    res->params = params;
    res->device = gpu && ndevices > 0 ? device : -1;
    res->ndevices = gpu ? ndevices : 0;
    res->validation = "not-run";
    res->against = against;
    res->event_timer = gpu;
    /* "not-run" stays when the benchmark ends before the pass */
    res->counters.status = res->activity.status = gpu ? "not-run" : "not-applicable";
    sb_benchmark_name(w, v, params, res->name, sizeof res->name);
}

void sb_result_failed(sb_result *res, const sb_workload *w, const sb_variant *v,
                      const sb_params *params, int device, int ndevices, const char *against,
                      const char *reason)
{
    result_init(res, w, v, params, device, ndevices, against);
    set_reason(res, SB_FAILED, "%s", reason);
}

int sb_measure(const sb_workload *w, const sb_variant *v, const void *model,
               const sb_params *params, const int *devices, int ndevices,
               const sb_device_info *timed_device, const void *reference, void *out,
               const sb_measure_options *opt, sb_result *res)
{
    sb_session s;
    int gpu = (v->needs & SB_NEEDS_GPU) != 0;
    result_init(res, w, v, params, ndevices > 0 ? devices[0] : -1, ndevices,
                reference ? w->reference : NULL);
    res->peak_bw = gpu && timed_device ? timed_device->peak_bw_measured : 0;
    if (gpu && ndevices == 0) {
        set_reason(res, SB_SKIPPED, "GPU variant skipped: %s", sb_no_device_reason());
        return 0;
    }
    size_t free_before = gpu ? free_device_bytes(devices[0]) : 0;
    size_t free_least = free_before;
    int recording = gpu && sb_profile_activity_begin(opt, &res->activity) == 0;
    int rc = sb_session_open(&s, w, v, model, params, devices, ndevices);
    if (recording)
        sb_profile_activity_window(&res->activity, &s.env, &res->activity.setup);
    if (rc == SB_REFUSED) {
        set_reason(res, SB_SKIPPED, "%s", sb_error());
        goto done;
    }
    if (rc != 0) {
        set_reason(res, SB_FAILED, "set-up failed: %s", sb_error());
        goto done;
    }
    sb_transfers before = s.env.xfer;
    rc = sb_session_validate(&s, reference, out, res->validation_detail,
                             sizeof res->validation_detail);
    transfers_delta(&s.env.xfer, &before, &res->transfers);
    if (recording) {
        sb_profile_activity_window(&res->activity, &s.env, &res->activity.run);
        sb_profile_activity_end(&res->activity, &s.env, &res->transfers);
        recording = 0;
    }
    if (rc == SB_REFUSED) {
        set_reason(res, SB_SKIPPED, "%s", sb_error());
        goto done;
    }
    if (rc == 1) {
        res->validation = "failed";
        set_reason(res, SB_INVALID, "output differs from the reference: %s",
                   res->validation_detail);
        goto done;
    }
    if (rc != 0) {
        set_reason(res, SB_FAILED, "%s", sb_error());
        goto done;
    }
    res->validation = reference ? "passed" : "is-reference";
    if (gpu && free_device_bytes(devices[0]) < free_least)
        free_least = free_device_bytes(devices[0]);
    sb_smclock clock = {0};
    if (gpu && timed_device)
        sb_smclock_open(&clock, timed_device->uuid);
    rc = warm_up_and_sample(&s, opt, &clock, res);
    if (rc != 0) {
        set_reason(res, SB_FAILED, rc == 1 ? "warm-up run failed: %s" : "timed run failed: %s",
                   sb_error());
        goto done;
    }
    if (gpu && free_device_bytes(devices[0]) < free_least)
        free_least = free_device_bytes(devices[0]);
    if (reference) {
        rc = sb_session_recheck(&s, reference, out, res->validation_detail,
                                sizeof res->validation_detail);
        if (rc == 1) {
            res->validation = "failed";
            set_reason(res, SB_INVALID, "output changed during timing: %s",
                       res->validation_detail);
            goto done;
        }
        if (rc != 0) {
            set_reason(res, SB_FAILED, "output after timing failed: %s", sb_error());
            goto done;
        }
    }
    if (v->ops->report)
        v->ops->report(s.state, &res->report);
    w->figures(model, out, &res->figures);
    if (gpu && w->problem_floor)
        w->problem_floor(model, &res->problem);
    if (gpu && timed_device) {
        double mhz = res->clock_available ? res->sm_mhz_median : timed_device->sm_clock_max_mhz;
        res->issue_rate = (double)timed_device->sm_count * SB_ISSUE_PER_SM_CYCLE * mhz * 1e6;
    }
    if (gpu && opt->timed_kernels && strcmp(res->activity.status, "collected") == 0 &&
        timed_run_kernels(&s, &res->activity) != 0) {
        set_reason(res, SB_FAILED, "the run recorded for --kernels failed: %s", sb_error());
        goto done;
    }
    /* Counters last, in passes of their own: the timed samples never run under the profiler. */
    if (gpu && sb_profile_counters(&s, opt, &res->counters) != 0) {
        set_reason(res, SB_FAILED, "hardware counters were asked for: %s", res->counters.reason);
        goto done;
    }
    res->status = SB_VALID;
done:
    if (recording)
        sb_profile_activity_end(&res->activity, &s.env, &res->transfers);
    res->peak_tracked_bytes = s.env.mem.peak;
    res->memgetinfo_delta_bytes = (long long)free_before - (long long)free_least;
    sb_session_close(&s);
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
    sb_session s;
    int rc = sb_session_open(&s, w, v, model, params, devices, ndevices);
    if (rc == 0)
        rc = sb_session_validate(&s, NULL, out, NULL, 0);
    sb_session_close(&s);
    if (rc != 0)
        sb_fail_context("%s/%s", w->name, v->name);
    return rc;
}
