/* Hardware counters of one GPU over user-defined ranges, through CUPTI.
 *
 * One backend per CUPTI generation sits behind this interface: the Profiler Host API + Range
 * Profiler for compute capability >= 7.5 (counters-range-profiler.cu), the legacy Event/Metric
 * API for compute capability < 7.5 with CUDA <= 12 (counters-event-metric.c). counters.c chooses
 * by compute capability (SB_COUNTERS_BACKEND in the environment forces one); callers do not
 * change.
 *
 * The caller replays its work: open, then for each pass begin_pass / the work (synchronized) /
 * end_pass until end_pass says every pass was submitted, then read the values. Each pass must do
 * the same work (a variant's run() computes the whole function every time). */
#ifndef SB_COUNTERS_H
#define SB_COUNTERS_H

#include <stdio.h>
#ifdef SB_COUNTERS_BACKEND
#include <cuda.h> /* the backends' helpers: types only (CUcontext, CUdevice, CUresult) */
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define SB_MAX_METRICS 32
#define SB_METRIC_NAME 128

/* The default set: time, DRAM bytes read and written, SM throughput, achieved occupancy, L2 hit
 * rate. */
extern const char *const sb_default_metrics[];
extern const int sb_ndefault_metrics;

/* sb_counters_open's result when this machine cannot give counters (no permission, chip without
 * a backend, vGPU, CUPTI missing): sb_error() says why in one line. */
#define SB_COUNTERS_UNAVAILABLE 1

typedef struct sb_counters sb_counters;

/* Opens counters on CUDA device `device` for metrics[0..n). 0 on success;
 * SB_COUNTERS_UNAVAILABLE when the machine cannot give them; -1 on a bad request, such as a
 * metric name the chip does not know (the message lists close matches). Makes `device` current. */
int sb_counters_open(sb_counters **c, int device, const char *const *metrics, int n);
const char *sb_counters_backend(const sb_counters *c); /* "range-profiler", "event-metric" */
const char *sb_counters_replay(const sb_counters *c);  /* "user" (the caller replays) */
int sb_counters_passes(const sb_counters *c);          /* passes the metric set needs */
/* Brackets one pass of the work; *done becomes 1 once every pass has been submitted. */
int sb_counters_begin_pass(sb_counters *c);
int sb_counters_end_pass(sb_counters *c, int *done);
/* values[i] for metrics[i], after the last pass. */
int sb_counters_values(sb_counters *c, double *values);
void sb_counters_close(sb_counters *c);

/* Every metric name device `device` knows, one per line (base names with their suffixes). 0, or
 * SB_COUNTERS_UNAVAILABLE / -1 as sb_counters_open. */
int sb_counters_list(int device, FILE *f);

/* The CUPTI version as "13.0 (API 130000)", or "unavailable". */
const char *sb_cupti_version(void);

#ifdef SB_COUNTERS_BACKEND
/* For counters.c and the backends only (they define SB_COUNTERS_BACKEND before including this).
 * A backend is one row of the table in counters.c: counters.c has already checked the arguments,
 * that `device` exists and that fits() accepts its compute capability. Every function returns 0,
 * SB_COUNTERS_UNAVAILABLE (open, list) or -1, with the message set through sb_fail. */
typedef struct sb_counters_backend_ops {
    const char *name;   /* sb_counters_backend() */
    const char *replay; /* sb_counters_replay() */
    const char *needs;  /* what fits() asks, for the message when no backend fits */
    int (*fits)(int cc_major, int cc_minor);
    int (*open)(void **state, int device, const char *const *metrics, int n);
    int (*passes)(const void *state);
    int (*begin_pass)(void *state);
    int (*end_pass)(void *state, int *done);
    int (*values)(void *state, double *values);
    void (*close)(void *state);
    int (*list)(int device, FILE *f);
} sb_counters_backend_ops;

/* Shared by the backends (counters.c). No driver API is linked, so that binaries start where
 * there is no libcuda.so: <cuda.h> gives types only, and driver functions come through the
 * runtime's entry-point lookup. */
/* *fn: the driver's function `symbol`. 0, or SB_COUNTERS_UNAVAILABLE with the message. */
int sb_counters_driver_entry(const char *symbol, void **fn, int device);
/* Makes `device` current with its primary context (created if none is yet) and gives that
 * context, and the CUdevice where dev is not NULL. */
int sb_counters_primary_context(int device, CUcontext *ctx, CUdevice *dev);
/* Makes `device` current, keeping the caller's in *previous for sb_counters_leave_device. */
int sb_counters_enter_device(int device, int *previous);
void sb_counters_leave_device(int previous);

/* The backends counters.c chooses from. */
extern const sb_counters_backend_ops sb_counters_range_profiler; /* counters-range-profiler.cu */
extern const sb_counters_backend_ops sb_counters_event_metric;   /* counters-event-metric.c */

/* For tests: what the event-metric backend reads for `name` on compute capability
 * cc_major.cc_minor, into out: the legacy metrics tried in order ("dram_read_bytes or
 * dram_read_transactions*32"), or the name itself when it is not a perfworks name (0); why there
 * is no equivalent (SB_COUNTERS_UNAVAILABLE: the value will be NaN); -1 for a perfworks name the
 * table does not map (the message lists close matches). */
int sb_event_metric_mapping(const char *name, int cc_major, int cc_minor, char *out, size_t size);

/* Up to `max` of candidates[0..n) nearest to `wanted` by edit distance, nearest first, joined by
 * ", " into out (empty when n is 0). */
void sb_counters_close_matches(const char *wanted, const char *const *candidates, size_t n,
                               int max, char *out, size_t size);
#endif

#ifdef __cplusplus
}
#endif

#endif
