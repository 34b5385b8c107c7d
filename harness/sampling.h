/* Sampling: how long a warm-up lasts, how many runs make a sample, when to stop and why.
 *
 * No CUDA here: measure.c hands over a function that times a given number of consecutive runs
 * (CUDA events around each, the L2 flushed before each when asked), so that the rules can be
 * tested on a CPU with made-up timings and a made-up clock (tests/test_sampling.c).
 *
 * The rules (docs/harness.md, "Noise"):
 * - warm up for at least --warmup runs and --warmup-time seconds (with --warmup 0, none);
 * - a sample is the mean of k consecutive runs, k chosen once, from the warm-up's run time (or
 *   the first sample's, without a warm-up), so that a sample lasts at least --sample-time;
 * - after --min-samples samples and --min-time seconds of sampling, stop when the noise
 *   (--noise-measure: robust or stdev) is under --max-noise ("noise"), or when the median is
 *   already known within --max-noise (half its 95 % interval, "converged": the samples spread
 *   wider than the target, but more of them would not move the median by more than it);
 * - stop anyway at --timeout seconds of sampling ("timeout"). */
#ifndef SB_SAMPLING_H
#define SB_SAMPLING_H

#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sb_measure_options;
struct sb_result;

typedef enum sb_stop { SB_STOP_NONE, SB_STOP_NOISE, SB_STOP_CONVERGED, SB_STOP_TIMEOUT } sb_stop;

/* "noise", "converged", "timeout" (NULL for SB_STOP_NONE): a record's stop_reason. */
const char *sb_stop_name(sb_stop stop);

/* Runs a sample averages so that it lasts at least sample_time, one run taking run_seconds:
 * 1 when sample_time <= 0 or a run is that long already, at most SB_MAX_RUNS_PER_SAMPLE. */
#define SB_MAX_RUNS_PER_SAMPLE 100000
int sb_runs_per_sample(double run_seconds, double sample_time);

/* The noise the stopping rule reads from t (o->noise_measure). */
double sb_stop_noise(const struct sb_measure_options *o, const sb_stats *t);

/* The stopping rule after a sample: t over the samples so far (t->n of them), `elapsed`
 * seconds of sampling. SB_STOP_NONE: take another. */
sb_stop sb_stop_rule(const struct sb_measure_options *o, const sb_stats *t, double elapsed);

/* What sb_sample needs from its caller. */
typedef struct sb_sampler {
    void *ctx;
    /* Times `runs` consecutive runs and gives their mean time per run on the primary timer
     * (time_s) and the wall clock (wall_s), in seconds; `warmup` says the runs are warm-up.
     * Returns 0, or what a failing run returned (non-zero), which ends sampling. */
    int (*sample)(void *ctx, int runs, int warmup, double *time_s, double *wall_s);
    /* The clock the time limits are on, seconds (monotonic). */
    double (*now)(void *ctx);
    /* Processes in lockstep: rank 0's value for all (env->agree); NULL when alone. */
    int (*agree)(int decision);
} sb_sampler;

/* Warms up, then samples until the rule stops it, into res: time_samples, wall_samples,
 * nsamples, time, wall, runs_per_sample, warmup_runs, stop_reason, stop_detail. 0; 1 when a
 * warm-up run failed; -1 when a timed run failed or host memory ran out (sb_error says why). */
int sb_sample(const struct sb_measure_options *o, const sb_sampler *s, struct sb_result *res);

#ifdef __cplusplus
}
#endif

#endif
