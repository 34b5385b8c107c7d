/* One parameter point of one workload: load the inputs, make the reference output, measure every
 * selected variant on every selected device, append the records. Shared by `run` and `study`. */
#ifndef SB_RUNNER_H
#define SB_RUNNER_H

#include "../../cuda/devinfo.h"
#include "../../harness/measure.h"
#include "../../harness/record.h"
#include "paths.h" /* sb_default_run_path */
#include "progress.h"

typedef struct sb_devices {
    int count;                    /* visible GPUs */
    int selected[SB_MAX_DEVICES]; /* GPUs to time single-GPU variants on, one record each */
    int nselected;
    sb_device_info info[SB_MAX_DEVICES]; /* of every visible GPU, bandwidth measured if selected */
} sb_devices;

/* "0", "all" or NULL (device 0); measures the peak bandwidth of each selected device unless
 * told not to (an isolated run's parent runs nothing on a GPU: its records take the peaks their
 * processes measured). */
int sb_devices_select(sb_devices *d, const char *which, int measure_bandwidth);

typedef struct sb_point {
    const sb_workload *workload;
    const sb_params *params;
    const char *variants;  /* "all" or a comma-separated list */
    const char *reference; /* NULL: the workload's */
    const char *dump_output;
    const sb_measure_options *opt;
    const sb_devices *devices;
    int quiet;
    int kernels; /* under each valid GPU result, its validation run's kernel table and a timed
                    run's (sb_measure_options.timed_kernels) */
    /* This process is an isolated variant's (SB_ISOLATED set): every record's name takes this
     * suffix ("/device:N" where the parent covers several devices), and a reference that fails
     * is recorded as the variant's failure. NULL otherwise. */
    const char *isolated_suffix;
    /* Progress, an item per record the point times (a variant on a device; not those kept, nor
     * GPU variants on a machine without one), each labelled with its variant; NULL for none.
     * One not started yet (total 0; what and quiet set) the point starts itself once its
     * inputs have loaded, so that a refused input is still one line, and ends. */
    sb_progress *progress;
} sb_point;

typedef struct sb_point_outcome {
    int valid, invalid, failed, skipped, refused_named; /* refused_named: named variants skipped */
    int kept; /* records an earlier session made (study --resume), counted above too */
} sb_point_outcome;

/* Marks an isolated variant's process; its value is the suffix of its records' names. */
#define SB_ISOLATED_ENV "SB_ISOLATED"

/* 1 when this process runs under mpirun (the mpi stages' processes meet inside their runs:
 * they cannot each isolate their variants). */
int sb_under_mpirun(void);

/* Checks the variant list against the workload and this machine (names, GPUs): -1 with a
 * message on a list that cannot run here. */
int sb_point_check(const sb_point *p);
/* -1 only when the point cannot start (bad inputs: nothing is written) or a record cannot be
 * written; otherwise every record is appended and `outcome` says how they went. Records the
 * file already holds for this point (a valid, invalid or skipped one of the same name and
 * parameters, kept by sb_records_resume) are not made again.
 *
 * With opt->isolate, each variant on each device runs in a process of its own (`run <workload>
 * --variant V ... --no-isolate --out <tmp>`, SB_ISOLATED in its environment) that makes the
 * reference output itself; this process runs no variant, waits at most sb_variant_time_limit
 * for each, and merges the record each wrote. One that dies without a record (a signal, an
 * exit, the time limit) becomes a failed record with its reason, and the other variants still
 * run. The children's files live in .isolated-<pid>/ beside the records while they run. */
int sb_point_run(const sb_point *p, sb_records *records, sb_point_outcome *outcome);


/* "12.3 ms" */
const char *sb_format_seconds(double s, char *buf, unsigned cap);



/* A measurement option by its command-line name (max-noise, min-samples, min-time, timeout,
 * warmup, warmup-time, sample-time, noise-measure, metrics, variant-timeout; cold, warm,
 * no-activity, isolate and no-isolate take no value). 1 when `name` is not one of them, -1 on a
 * bad value. */
int sb_measure_option(sb_measure_options *o, const char *name, const char *value);
#define SB_MEASURE_OPTIONS_HELP                                                                    \
    "  --max-noise X      stop when the samples' noise < X, or the median is known within X\n"     \
    "                     (half its 95 % interval: stop reason converged) (default 0.01)...\n"     \
    "  --min-samples N    ...after at least N samples (default 10)...\n"                          \
    "  --min-time S       ...and S seconds of sampling (default 0.5)\n"                           \
    "  --timeout S        stop sampling after S seconds regardless (default 20)\n"                \
    "  --noise-measure M  robust: 1.4826 x median absolute deviation / median (default);\n"        \
    "                     stdev: stdev/mean\n"                                                     \
    "  --sample-time S    a sample is the mean of as many consecutive runs as last S seconds\n"    \
    "                     together, each run timed on its own (default 0.05; 0: one run)\n"        \
    "  --warmup N         runs before sampling, not recorded (default 1)...\n"                     \
    "  --warmup-time S    ...and until S seconds of them (default 0.05)\n"                         \
    "  --repetitions N    run it all N times, each in a process of its own; the records keep\n"   \
    "                     every repetition and their aggregates (default 1)\n"                   \
    "  --cold             flush the L2 cache before every sample (default: for kernel-level\n"   \
    "                     variants only, `stagebench list` marks them)\n"                       \
    "  --warm             never flush it\n"                                                      \
    "  --metrics LIST     hardware counters, in passes after the timing: default, none, or\n"    \
    "                     names (default,m1,...; `stagebench list --metrics`); naming them makes\n" \
    "                     unreadable counters an error (default: the default set if readable)\n" \
    "  --no-activity      no CUPTI activity records (kernels, copies, allocations)\n"
#define SB_ISOLATE_OPTIONS_HELP                                                                    \
    "  --isolate          each variant (on each device) in a process of its own: a crash, a\n"  \
    "                     sticky CUDA error, an exit or a hang (--variant-timeout) is recorded\n" \
    "                     as that variant's failure and the other variants still run. Each\n"   \
    "                     process validates against the reference's output: a CPU reference\n"  \
    "                     runs in the first and is read back by the others (SB_REFERENCE_CACHE),\n" \
    "                     a GPU reference runs in each\n"                                        \
    "  --no-isolate       every variant in this process (run's default; studies isolate)\n"   \
    "  --variant-timeout S  an isolated variant's process is killed after S seconds, reference\n" \
    "                     run included (default 10 x --timeout + 1800)\n"
#endif
