#include "sampling.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/base/error.h"
#include "measure.h"

const char *sb_stop_name(sb_stop stop)
{
    switch (stop) {
    case SB_STOP_NOISE: return "noise";
    case SB_STOP_CONVERGED: return "converged";
    case SB_STOP_TIMEOUT: return "timeout";
    default: return NULL;
    }
}

int sb_runs_per_sample(double run_seconds, double sample_time)
{
    if (!(sample_time > 0) || !(run_seconds < sample_time))
        return 1;
    if (!(run_seconds > 0)) /* too short to time: as many as allowed */
        return SB_MAX_RUNS_PER_SAMPLE;
    double k = ceil(sample_time / run_seconds);
    return k < SB_MAX_RUNS_PER_SAMPLE ? (int)k : SB_MAX_RUNS_PER_SAMPLE;
}

double sb_stop_noise(const sb_measure_options *o, const sb_stats *t)
{
    return o->noise_measure == SB_NOISE_STDEV ? t->noise : t->noise_robust;
}

sb_stop sb_stop_rule(const sb_measure_options *o, const sb_stats *t, double elapsed)
{
    if (t->n >= o->min_samples && elapsed >= o->min_time) {
        if (sb_stop_noise(o, t) < o->max_noise)
            return SB_STOP_NOISE;
        if (t->median_ci < o->max_noise)
            return SB_STOP_CONVERGED;
    }
    return elapsed >= o->timeout ? SB_STOP_TIMEOUT : SB_STOP_NONE;
}

static int push(sb_result *res, int *cap, double time_s, double wall_s)
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

static int agreed(const sb_sampler *s, int decision)
{
    return s->agree ? s->agree(decision) : decision;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The warm-up's runs, one at a time; *run_seconds: the median time of its last runs (the first
 * of several left out: it may load modules or fault pages in), 0 without a warm-up. */
#define WARMUP_KEPT 15
static int warm_up(const sb_measure_options *o, const sb_sampler *s, int *runs,
                   double *run_seconds)
{
    double kept[WARMUP_KEPT], first = 0, begin = s->now(s->ctx);
    int n = 0;
    *runs = 0;
    *run_seconds = 0;
    for (;;) {
        int more = o->warmup_runs > 0 &&
                   (*runs < o->warmup_runs ||
                    (o->warmup_time > 0 && s->now(s->ctx) - begin < o->warmup_time));
        if (!agreed(s, more))
            break;
        double t = 0, w = 0;
        if (s->sample(s->ctx, 1, 1, &t, &w) != 0)
            return -1;
        if (++*runs == 1)
            first = t;
        else
            kept[n++ % WARMUP_KEPT] = t;
    }
    int m = n < WARMUP_KEPT ? n : WARMUP_KEPT;
    if (m > 0) {
        qsort(kept, (size_t)m, sizeof *kept, compare_doubles);
        *run_seconds = kept[m / 2];
    } else {
        *run_seconds = first;
    }
    return 0;
}

static void describe(const sb_measure_options *o, sb_stop stop, double elapsed, sb_result *res)
{
    const sb_stats *t = &res->time;
    const char *measure = o->noise_measure == SB_NOISE_STDEV ? "stdev/mean" : "robust noise";
    double noise = 100 * sb_stop_noise(o, t), target = 100 * o->max_noise;
    char ci[64];
    if (isfinite(t->median_ci))
        snprintf(ci, sizeof ci, "median known to +-%.2f %% (95 %%)", 100 * t->median_ci);
    else
        snprintf(ci, sizeof ci, "median not bounded yet (< 8 samples)");
    int n = res->nsamples, k = res->runs_per_sample;
    switch (stop) {
    case SB_STOP_NOISE:
        snprintf(res->stop_detail, sizeof res->stop_detail,
                 "%s %.2f %% < %.2f %% after %d samples of %d run%s, %.2f s", measure, noise,
                 target, n, k, k == 1 ? "" : "s", elapsed);
        break;
    case SB_STOP_CONVERGED:
        snprintf(res->stop_detail, sizeof res->stop_detail,
                 "%s < %.2f %% after %d samples of %d run%s, %.2f s; %s %.2f %% stayed above "
                 "it", ci, target, n, k, k == 1 ? "" : "s", elapsed, measure, noise);
        break;
    default:
        snprintf(res->stop_detail, sizeof res->stop_detail,
                 "%.3g s timeout after %d samples of %d run%s: %s %.2f %%, %s (target %.2f %%)",
                 o->timeout, n, k, k == 1 ? "" : "s", measure, noise, ci, target);
    }
}

int sb_sample(const sb_measure_options *o, const sb_sampler *s, sb_result *res)
{
    double warm_run = 0;
    if (warm_up(o, s, &res->warmup_runs, &warm_run) != 0)
        return 1;
    /* Without a warm-up the first sample is one run, which decides the rest. */
    int k = res->warmup_runs > 0 ? agreed(s, sb_runs_per_sample(warm_run, o->sample_time)) : 1;
    int decided = res->warmup_runs > 0, cap = 0, checked = 0;
    res->runs_per_sample = k;
    double begin = s->now(s->ctx), elapsed = 0;
    sb_stop stop = SB_STOP_NONE;
    while (stop == SB_STOP_NONE) {
        double time_s = 0, wall_s = 0;
        if (s->sample(s->ctx, decided ? k : 1, 0, &time_s, &wall_s) != 0 ||
            push(res, &cap, time_s, wall_s) != 0)
            return -1;
        elapsed = s->now(s->ctx) - begin;
        if (!decided) {
            k = agreed(s, sb_runs_per_sample(time_s, o->sample_time));
            res->runs_per_sample = k;
            decided = 1;
        }
        /* The statistics sort every sample: after each of the first 100 samples, then after
         * every 2 % more, so that very many short samples do not cost quadratic host time. */
        int n = res->nsamples;
        if (n <= 100 || n - checked >= n / 50) {
            sb_stats_compute(res->time_samples, n, &res->time);
            checked = n;
            stop = sb_stop_rule(o, &res->time, elapsed);
        } else {
            stop = elapsed >= o->timeout ? SB_STOP_TIMEOUT : SB_STOP_NONE;
        }
        stop = (sb_stop)agreed(s, (int)stop);
    }
    sb_stats_compute(res->time_samples, res->nsamples, &res->time);
    sb_stats_compute(res->wall_samples, res->nsamples, &res->wall);
    res->stop_reason = sb_stop_name(stop);
    describe(o, stop, elapsed, res);
    return 0;
}
