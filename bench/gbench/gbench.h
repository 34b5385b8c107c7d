/* Google Benchmark from C: the small C API that bench/gbench/gbench.cc implements over benchmark.h.
 * Benchmarks registered here use manual time (the caller times each iteration, with CUDA events
 * for GPU work) and accept Google Benchmark's own flags. */
#ifndef SB_GBENCH_H
#define SB_GBENCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_gb_state sb_gb_state; /* benchmark::State, opaque */
typedef void (*sb_gb_function)(sb_gb_state *st, void *arg);

/* Counter flags (bits, mapped onto benchmark::Counter's). */
enum {
    SB_GB_COUNTER_DEFAULT = 0,
    SB_GB_COUNTER_RATE = 1,                /* value / elapsed (manual) time */
    SB_GB_COUNTER_AVG_ITERATIONS = 2,      /* value / iterations */
    SB_GB_COUNTER_ITERATION_INVARIANT = 4, /* value * iterations: value is per iteration */
    /* a per-iteration amount as a rate over the manual time (items/s, bytes/s) */
    SB_GB_COUNTER_ITERATION_INVARIANT_RATE = SB_GB_COUNTER_RATE | SB_GB_COUNTER_ITERATION_INVARIANT
};

/* Parses and removes Google Benchmark's flags from argv. */
void sb_gb_initialize(int *argc, char **argv);
/* 1 (after printing them) when arguments other than Google Benchmark's are left. */
int sb_gb_report_unrecognized(int argc, char **argv);
/* Registers `name` with manual time; `arg` is handed to fn unchanged. */
void sb_gb_register(const char *name, sb_gb_function fn, void *arg);
/* Adds key: value to the context every reporter prints. */
void sb_gb_add_custom_context(const char *key, const char *value);
/* Runs the benchmarks the flags select; returns how many ran. */
size_t sb_gb_run(void);
void sb_gb_shutdown(void);

/* Inside a benchmark function: */
int sb_gb_keep_running(sb_gb_state *st);
void sb_gb_set_iteration_time(sb_gb_state *st, double seconds);
void sb_gb_counter(sb_gb_state *st, const char *name, double value, unsigned flags);
void sb_gb_set_label(sb_gb_state *st, const char *label);
/* Marks the benchmark as failed with msg; the caller returns without iterating. */
void sb_gb_skip_with_error(sb_gb_state *st, const char *msg);

#ifdef __cplusplus
}
#endif

#endif
