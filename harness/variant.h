/* The variant contract.
 *
 * A workload is a model with inputs, a CPU reference and a ladder of variants. A variant is one
 * row of its workload's table. The harness calls setup (untimed: allocate, upload), then run (the
 * timed work: what a user of that stage waits for, host<->device traffic included; it returns
 * with the result on the host), output (hands that result over for validation, no device work)
 * and teardown. run may be called many times and must compute the whole function each time. */
#ifndef SB_VARIANT_H
#define SB_VARIANT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "../cuda/base/error.h"
#include "../cuda/devmem.h"
#include "params.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SB_MAX_DEVICES 16

/* What a variant needs from the machine. */
enum {
    SB_NEEDS_GPU = 1u << 0,
    SB_NEEDS_CDP = 1u << 1,        /* dynamic parallelism (device-side launches) */
    SB_NEEDS_MULTI_GPU = 1u << 2,  /* uses every visible GPU; runs on one if only one is there */
    SB_NEEDS_GRAPH_LOOP = 1u << 3, /* conditional graph nodes (CUDA 12.4+): a device-side loop */
    SB_NEEDS_NCCL = 1u << 4,       /* NCCL */
    /* independent thread scheduling (compute capability 7.0+): lanes of one warp wait for one
     * another's work (procell split-trees); before it a warp's waiting lanes would stall the rest */
    SB_NEEDS_INDEPENDENT_THREADS = 1u << 5,
};

/* What this build lacks of a variant's needs (cmake -DSB_CDP=OFF, or a toolkit without a feature:
 * docs/harness.md "Old GPUs and toolkits"): the reason it cannot run here, or NULL. */
const char *sb_build_lacks(unsigned needs);

/* setup/run may also return SB_REFUSED (cuda/base/error.h): the variant cannot run here. */

/* Everything a variant may use: the parameters, its GPU(s) and stream(s), the tracked device
 * allocator and the transfer counters. Variants allocate through sb_dev_alloc and copy through
 * sb_copy so that memory and traffic are accounted for. */
typedef struct sb_env {
    const sb_params *params;
    int ndevices;                         /* 0 for CPU variants */
    int devices[SB_MAX_DEVICES];          /* CUDA ordinals; devices[0] is the one timed */
    cudaStream_t streams[SB_MAX_DEVICES]; /* one per device, created by the harness */
    sb_devmem mem;
    sb_transfers xfer;
    int cpu_threads;                      /* OpenMP threads for CPU variants */
    char label[192];                      /* "<workload>/<variant>": the NVTX range prefix */
    /* Set by a variant whose processes run in lockstep (MPI): takes one process's decision for
     * all (whether to stop sampling), so that every process calls run() as often. */
    int (*agree)(int decision);
} sb_env;

/* One labelled series a variant may report (e.g. device bytes per generation). */
#define SB_MAX_SERIES_POINTS 128
typedef struct sb_series {
    const char *name;   /* "device_bytes_by_generation" */
    const char *x_name; /* "generation" */
    int n;
    double x[SB_MAX_SERIES_POINTS], y[SB_MAX_SERIES_POINTS];
} sb_series;

/* Where a run's time goes, by phase, for variants that have phases (copies, kernels, host work):
 * accumulated over one run by sb_phase_add, so the record can explain a stage's time. */
#define SB_MAX_PHASES 12
typedef struct sb_phases {
    int n;
    const char *name[SB_MAX_PHASES];
    double seconds[SB_MAX_PHASES];
} sb_phases;

void sb_phases_clear(sb_phases *p);
void sb_phase_add(sb_phases *p, const char *name, double seconds);
/* A phase timed on the host clock and marked for Nsight: begin opens the NVTX range
 * "<workload>/<variant>/<name>" and returns the start time; end closes it and adds the seconds. */
double sb_phase_begin(const sb_env *env, const char *name);
void sb_phase_end(sb_phases *p, const char *name, double started);
/* NVTX range "<label>/<name>" alone, for phases timed otherwise (CUDA events). */
void sb_range_push(const char *label, const char *name);
void sb_range_pop(void);
/* Monotonic clock, seconds. */
double sb_now(void);

/* The loop of a time-stepping workload without its set-up copies (upload, final download): what
 * a long simulation spends per step. Medians over the runs after the validation run. */
typedef struct sb_steady {
    double seconds;           /* 0: the variant does not report it */
    double items;             /* in the workload's item unit */
    double bytes;             /* floor by the variant's own count */
    double simulated_seconds; /* model time the loop covers */
    int runs;                 /* runs the median is over */
} sb_steady;

/* The problem's floor: the least device-memory traffic any correct version of the workload must
 * spend on the timed run's steps, from the model's sizes, not from what a variant does (that is
 * sb_report.bytes_moved, the variant's design). The record sets it against the measured DRAM peak
 * (docs/limits.md, "Floors"). */
typedef struct sb_problem_floor {
    double bytes;   /* over the run's steps; 0: the workload states none */
    char what[200]; /* what is counted, in words */
} sb_problem_floor;

/* Facts a variant knows about its last run, beyond time. */
typedef struct sb_report {
    double bytes_moved;      /* device-memory bytes the run must move by the variant's own count */
    double device_launches;  /* kernels launched from the device (dynamic parallelism) */
    double host_launches;    /* kernels launched from the host */
    int nseries;
    sb_series series[2];
    sb_phases phases;        /* of the last run that timed them */
    sb_steady steady;
} sb_report;

/* What a stage's file provides. */
typedef struct sb_variant_ops {
    int (*setup)(sb_env *env, const void *model, void **state);
    int (*run)(void *state);
    int (*output)(void *state, void *out);
    void (*teardown)(void *state);
    void (*report)(void *state, sb_report *r); /* optional */
} sb_variant_ops;

/* A row of a workload's ladder table. */
typedef struct sb_variant {
    const char *name;   /* kebab-case; also the name of the file that implements it */
    int stage;          /* rank in the ladder; 0 for CPU baselines */
    const char *adds;   /* one line: what it adds over the stage before */
    const char *source; /* paper + section/figure */
    unsigned needs;     /* SB_NEEDS_* */
    const sb_variant_ops *ops;
    /* SB_KERNEL_LEVEL: its timed run is device work on data that stays on the device (no bulk
     * host traffic), so a warm L2 from the sample before would flatter it: measured with the L2
     * flushed unless the user says otherwise (--warm). 0 for the rest. */
    int kernel_level;
} sb_variant;

/* The relative noise (time.noise, stdev/mean) a kernel-level record should stay within. */
#define SB_QUIET_NOISE 0.01

/* A stage whose time can move by more than SB_QUIET_NOISE from run to run by its design (a host
 * round trip every step...), and why. A record of it whose noise passes that says so
 * (stagebench.noise_note); the goals' noise goal leaves it out, as the regression gate's suite
 * does. */
typedef struct sb_noisy_stage {
    const char *variant, *why;
} sb_noisy_stage;

#define SB_KERNEL_LEVEL 1

/* Figures of merit of one output. */
#define SB_MAX_OUTPUT_FIGURES 4
typedef struct sb_figures {
    double items;             /* in the workload's item unit (cells, site updates...) */
    double simulated_seconds; /* model time simulated; 0 when the model has no time */
    /* the workload's own, named by sb_workload.output_figures (NaN: does not apply) */
    double values[SB_MAX_OUTPUT_FIGURES];
} sb_figures;

/* A piece of an output's memory (sb_workload.output_regions). */
#define SB_MAX_OUTPUT_REGIONS 12
typedef struct sb_region {
    void *p;
    size_t bytes;
} sb_region;

typedef struct sb_workload {
    const char *name;
    const char *summary;
    const char *item_unit; /* "cells" */
    const sb_param_decl *params;
    int nparams;
    const sb_variant *variants;
    int nvariants;
    const char *reference; /* variant every other one is validated against */
    /* Sets the parameters of the workload's default scenario, the one registered with Google
     * Benchmark (stagebench-gbench); NULL when the declared defaults are that scenario. */
    int (*default_scenario)(sb_params *p);
    /* Reads and checks the inputs named by the parameters; errors name file:line and exit 2. */
    int (*load)(const sb_params *p, void **model);
    void (*free_model)(void *model);
    /* Outputs: allocated per model, poisoned before each validation run, compared exactly. */
    void *(*output_new)(const void *model);
    void (*output_poison)(void *out);
    void (*output_free)(void *out);
    /* 1 when equal; otherwise 0 and why (first difference) in why. */
    int (*output_equal)(const void *model, const void *ref, const void *got, char *why, size_t cap);
    void (*figures)(const void *model, const void *out, sb_figures *fig);
    /* Names of sb_figures.values (records: derived.output, CSV columns); NULL-terminated. */
    const char *const *output_figures;
    /* Phases the CSV view carries, a column "phase:<name>" each, blanks as _ (seconds of the last
     * run; empty where a variant has no such phase), for figures that split a step;
     * NULL-terminated or NULL. */
    const char *const *csv_phases;
    /* --dump-output PATH: written atomically; a workload may add files beside it (PATH.*). */
    int (*output_write)(const void *model, const void *out, const char *path);
    /* The input file parameter i names at this point, or NULL where it names none (unset, or a
     * preset such as procell's types=m4); *hint: how to get the file when it is missing (NULL:
     * nothing to say). For the checks made before anything runs (`study --check`), which look at
     * whether the file is there without reading it. NULL: every set SB_PARAM_PATH parameter
     * names a file (sb_input_file). */
    const char *(*input_file)(const sb_params *p, int i, const char **hint);
    /* The problem's floor for this model (sb_problem_floor); NULL: the workload states none. */
    void (*problem_floor)(const void *model, sb_problem_floor *f);
    /* Its noisy stages (sb_noisy_stage), ended by a NULL variant; NULL: none. */
    const sb_noisy_stage *noisy;
    /* The memory of an output of this model, as regions (at most SB_MAX_OUTPUT_REGIONS, every
     * byte output_equal reads): the reference cache (harness/refcache.h) saves them and loads
     * them back into another output_new of the same model. Returns how many; NULL: outputs
     * are not cached. */
    int (*output_regions)(const void *model, void *out, sb_region *r);
} sb_workload;

/* Why stage `variant` of w is noisy by design, or NULL. */
static inline const char *sb_noisy_why(const sb_workload *w, const char *variant)
{
    for (const sb_noisy_stage *s = w->noisy; s && s->variant; s++)
        if (strcmp(s->variant, variant) == 0)
            return s->why;
    return NULL;
}

const sb_variant *sb_find_variant(const sb_workload *w, const char *name);

#ifdef __cplusplus
}
#endif

#endif
