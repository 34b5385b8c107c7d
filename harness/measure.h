/* The measurement loop (nvbench's discipline): validate, warm up, sample until the noise is low
 * enough or time runs out, and say which ended it. */
#ifndef SB_MEASURE_H
#define SB_MEASURE_H

#include "../cuda/activity.h"
#include "../cuda/counters.h"
#include "../cuda/devinfo.h"
#include "stats.h"
#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_measure_options {
    double max_noise;  /* stop when the noise (noise_measure) of the primary timer is below
                          this, or the median is known within it (harness/sampling.h)... */
    int min_samples;   /* ...after at least this many samples... */
    double min_time;   /* ...and this many seconds of sampling */
    double timeout;    /* stop anyway after this many seconds of sampling */
    int warmup_runs;   /* untimed runs before sampling, at least... */
    double warmup_time; /* ...and until this many seconds of them (0: no time) */
    double sample_time; /* a sample is as many consecutive runs as last this long together,
                           judged from the warm-up (0: one run a sample) */
    int noise_measure;  /* SB_NOISE_ROBUST (the default) or SB_NOISE_STDEV */
    int cold;          /* flush L2 before each sample: 1 always, 0 never, SB_COLD_KERNEL_LEVEL
                          for kernel-level variants only (the default) */
    /* Hardware counters, in a pass of their own after the timed samples (SB_COUNTERS_*). */
    int counters;
    int nmetrics;                              /* 0: sb_default_metrics */
    char metrics[SB_MAX_METRICS][SB_METRIC_NAME];
    int activity; /* CUPTI activity records over setup and the validation run */
    /* --kernels: after the samples, one more run under CUPTI, its kernels recorded: the form the
     * samples took (a graph's kernels), where the validation run may launch another */
    int timed_kernels;
    /* Processes the command runs in, each its own repetition (harness/repeat.h); 1: this one. */
    int repetitions;
    /* Each variant (on each device) in a process of its own (bench/run/runner.h): 1 for studies,
     * 0 for `run` unless --isolate. */
    int isolate;
    /* Seconds an isolated variant's process may take before it is killed; 0: the default,
     * sb_variant_time_limit. */
    double variant_timeout;
} sb_measure_options;

/* The time limit of an isolated variant's process: variant_timeout, or 10 x timeout + 30 min by
 * default (a single run may take minutes: the reference the process makes, its validation run,
 * warm-up and samples all count). */
double sb_variant_time_limit(const sb_measure_options *o);

enum {
    SB_COUNTERS_OFF,
    SB_COUNTERS_IF_AVAILABLE, /* the default: a record says why when they cannot be read */
    SB_COUNTERS_REQUIRED      /* asked for with --metrics: not reading them fails the run */
};

#define SB_COLD_KERNEL_LEVEL (-1)

/* The noise the stopping rule reads: sb_stats.noise_robust (median absolute deviation over the
 * median) or sb_stats.noise (stdev/mean). */
enum { SB_NOISE_ROBUST, SB_NOISE_STDEV };

void sb_measure_defaults(sb_measure_options *o);

typedef enum sb_status { SB_VALID, SB_INVALID, SB_FAILED, SB_SKIPPED } sb_status;
const char *sb_status_name(sb_status s);

/* The counter pass of one benchmark. */
typedef struct sb_counter_result {
    const char *status; /* collected, unavailable, off, not-applicable, failed */
    char reason[512];
    const char *backend, *replay;
    int passes, device;
    int n;
    char names[SB_MAX_METRICS][SB_METRIC_NAME];
    double values[SB_MAX_METRICS];
} sb_counter_result;

/* What CUPTI saw the variant do, beside what the harness tracked. */
typedef struct sb_activity_result {
    const char *status; /* collected, unavailable, off, not-applicable */
    char reason[256];
    sb_activity setup, run; /* setup; one validation run */
    int has_timed;          /* timed_kernels: one run as the samples ran it, recorded in timed */
    sb_activity timed;
    long long device_peak_bytes; /* most device bytes live at once over both windows */
    int agrees;          /* copies by direction and the peak match the tracked counts */
    char disagreement[256];
} sb_activity_result;

/* Warp instructions an SM can issue a cycle: one a scheduler, four schedulers an SM from Maxwell
 * on (Kepler's dual issue can pass it). The issue floor is a run's instructions at this rate. */
#define SB_ISSUE_PER_SM_CYCLE 4

/* One benchmark: what a record holds. */
typedef struct sb_result {
    const sb_workload *workload;
    const sb_variant *variant;
    const sb_params *params;
    int device;                /* timed CUDA ordinal; -1 for CPU variants */
    int ndevices;              /* GPUs the variant used */
    char name[1024];
    sb_status status;
    char reason[1024];
    const char *validation;    /* "passed", "failed", "is-reference", "not-run" */
    const char *against;
    int reference_cached;      /* against's output was loaded from SB_REFERENCE_CACHE */
    char validation_detail[512];
    int event_timer;           /* primary timer: CUDA events (1) or wall clock (0) */
    int nsamples;
    double *time_samples, *wall_samples; /* seconds per run: each sample's mean */
    sb_stats time, wall;
    int runs_per_sample; /* consecutive runs each sample averages (0: not sampled) */
    int warmup_runs;     /* warm-up runs made */
    const char *stop_reason; /* sb_stop_name: noise, converged, timeout */
    char stop_detail[192];   /* the figures that ended sampling, in words */
    /* Host interference: samples during which the sampling thread was preempted (another task
     * took its core); samples more than 10 % above the median, and how many of those were. */
    int preempted_samples, slow_samples, slow_preempted;
    int l2_flushed; /* the L2 was flushed before every sample */
    int clock_available;
    double sm_mhz_min, sm_mhz_median, sm_mhz_max;
    int throttled_samples;
    double temperature_c_max; /* the hottest the GPU was after a sample; 0: not known */
    size_t peak_tracked_bytes;
    long long memgetinfo_delta_bytes;
    sb_transfers transfers;    /* per run */
    sb_figures figures;
    sb_report report;
    double peak_bw;            /* measured peak of the timed device, bytes/s (0: CPU or unknown) */
    sb_problem_floor problem;  /* the workload's floor for this model (bytes 0: none) */
    /* warp instructions the timed device can issue a second: SMs x SB_ISSUE_PER_SM_CYCLE x the
     * SM clock the samples ran at (the maximum where NVML did not say); 0: CPU or unknown */
    double issue_rate;
    sb_counter_result counters;
    sb_activity_result activity;
} sb_result;

/* Measures variant v of workload w on `model`. For GPU variants `devices` lists the CUDA ordinals
 * to use (the first is timed); CPU variants get ndevices 0. `reference` is the reference output
 * (NULL when v is the reference itself); `out` receives v's output (allocated by the workload).
 * Always fills res (status says how it went); returns -1 only on harness failures. */
int sb_measure(const sb_workload *w, const sb_variant *v, const void *model,
               const sb_params *params, const int *devices, int ndevices,
               const sb_device_info *timed_device, const void *reference, void *out,
               const sb_measure_options *opt, sb_result *res);

/* A variant set up and ready to run: the steps sb_measure takes, for other drivers (the Google
 * Benchmark binary) to take the same way. NVTX ranges <workload>/<variant>/<phase> mark setup,
 * validation and every sample. */
typedef struct sb_session {
    const sb_workload *workload;
    const sb_variant *variant;
    const void *model;
    sb_env env;
    void *state;
    int gpu;
    cudaEvent_t start, stop;
    char label[192]; /* "<workload>/<variant>" */
} sb_session;

/* Opens the environment and runs setup. 0; SB_REFUSED (cannot run here); -1 (sb_error says why). */
int sb_session_open(sb_session *s, const sb_workload *w, const sb_variant *v, const void *model,
                    const sb_params *params, const int *devices, int ndevices);
/* One run on a poisoned output, checked against `reference` (NULL: v is the reference). 0 when
 * equal, 1 when not (why in detail), SB_REFUSED or -1 as run() returned. */
int sb_session_validate(sb_session *s, const void *reference, void *out, char *detail,
                        size_t cap);
/* One timed run: CUDA events on the timed device's stream for GPU variants (time_s), the host
 * clock around it (wall_s; also time_s for CPU variants). */
int sb_session_sample(sb_session *s, double *time_s, double *wall_s);
/* After timing: the last run's output, taken again and checked against `reference` (a race
 * shows up as a result that moved). 0 when equal, 1 when not (why in detail), -1 when output()
 * failed. */
int sb_session_recheck(sb_session *s, const void *reference, void *out, char *detail,
                       size_t cap);
void sb_session_close(sb_session *s);

/* "<workload>/<variant>/<param>:<value>/...": the given parameters (sb_params_name), cut
 * visibly ('~') when longer than cap. */
void sb_benchmark_name(const sb_workload *w, const sb_variant *v, const sb_params *params,
                       char *out, size_t cap);

void sb_result_free(sb_result *res);

/* A failed record made without running anything: the variant's process died or hung (an
 * isolated run), `reason` says how. device: the timed CUDA ordinal, -1 for CPU variants;
 * ndevices: GPUs it would use; against: the reference variant (NULL when v is it). */
void sb_result_failed(sb_result *res, const sb_workload *w, const sb_variant *v,
                      const sb_params *params, int device, int ndevices, const char *against,
                      const char *reason);

/* Setup, one run, output, teardown: how the reference output is made when the reference is not
 * itself being timed. */
int sb_run_once(const sb_workload *w, const sb_variant *v, const void *model,
                const sb_params *params, const int *devices, int ndevices, void *out);

#ifdef __cplusplus
}
#endif

#endif
