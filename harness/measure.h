/* The measurement loop (nvbench's discipline): validate, warm up, sample until the noise is low
 * enough or time runs out, and say which ended it. */
#ifndef SB_MEASURE_H
#define SB_MEASURE_H

#include "../cuda/devinfo.h"
#include "stats.h"
#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_measure_options {
    double max_noise;  /* stop when stdev/mean of the primary timer is below this... */
    int min_samples;   /* ...after at least this many samples... */
    double min_time;   /* ...and this many seconds of sampling */
    double timeout;    /* stop anyway after this many seconds of sampling */
    int warmup_runs;
    int cold;          /* flush L2 before each sample */
} sb_measure_options;

void sb_measure_defaults(sb_measure_options *o);

typedef enum sb_status { SB_VALID, SB_INVALID, SB_FAILED, SB_SKIPPED } sb_status;
const char *sb_status_name(sb_status s);

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
    char validation_detail[512];
    int event_timer;           /* primary timer: CUDA events (1) or wall clock (0) */
    int nsamples;
    double *time_samples, *wall_samples; /* seconds */
    sb_stats time, wall;
    const char *stop_reason;
    int clock_available;
    double sm_mhz_min, sm_mhz_median, sm_mhz_max;
    int throttled_samples;
    size_t peak_tracked_bytes;
    long long memgetinfo_delta_bytes;
    sb_transfers transfers;    /* per run */
    sb_figures figures;
    sb_report report;
    double peak_bw;            /* measured peak of the timed device, bytes/s (0: CPU or unknown) */
} sb_result;

/* Measures variant v of workload w on `model`. For GPU variants `devices` lists the CUDA ordinals
 * to use (the first is timed); CPU variants get ndevices 0. `reference` is the reference output
 * (NULL when v is the reference itself); `out` receives v's output (allocated by the workload).
 * Always fills res (status says how it went); returns -1 only on harness failures. */
int sb_measure(const sb_workload *w, const sb_variant *v, const void *model,
               const sb_params *params, const int *devices, int ndevices,
               const sb_device_info *timed_device, const void *reference, void *out,
               const sb_measure_options *opt, sb_result *res);

void sb_result_free(sb_result *res);

/* Setup, one run, output, teardown: how the reference output is made when the reference is not
 * itself being timed. */
int sb_run_once(const sb_workload *w, const sb_variant *v, const void *model,
                const sb_params *params, const int *devices, int ndevices, void *out);

#ifdef __cplusplus
}
#endif

#endif
