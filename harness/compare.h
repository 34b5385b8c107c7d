/* stagebench compare: two records files, matched by benchmark name. */
#ifndef SB_COMPARE_H
#define SB_COMPARE_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_compare_options {
    double threshold;        /* relative slow-down that counts (0.05 = 5 %) where no calibration
                                names the benchmark */
    double alpha;            /* family-wise significance level (a device comparison: its
                                intervals are 1 - alpha) */
    const char *calibration; /* a file of `stagebench calibrate`, or NULL */
    double floor;            /* a calibrated threshold is never below this (0: SB_COMPARE_FLOOR) */
    int no_correction;       /* 1: each benchmark's p against alpha alone (no Holm) */
    int markdown;            /* 1: the table as markdown (a pull request's comment) */
} sb_compare_options;

/* The smallest calibrated threshold by default, and the calibrated threshold's multiple of a
 * benchmark's between-run spread. */
#define SB_COMPARE_FLOOR 0.01
#define SB_CALIBRATION_K 2.0

/* Base and new are each a records file or a directory of them (every *.json in it). Prints a
 * table to `out`: per benchmark the base and new medians (of the repetitions' medians when both
 * sides have repetitions, else of the samples), their ratio (new / base), the threshold, the
 * minimum detectable effect, the test used and its p-value (Holm-adjusted over the benchmarks
 * compared), and a verdict (SLOWER, faster, same; "not tested" where the test could never reach
 * alpha at these sizes, "one sample each" with one sample a side: "same" only after a test that
 * could have found a change); then the benchmarks only in base (missing) and only in new (new),
 * and a legend of the tests. Returns 0 when nothing regressed, 1 when a benchmark is slower by
 * more than its threshold with adjusted p < alpha or a benchmark valid in base is not valid in
 * new, -1 on an unreadable file (message through sb_fail).
 *
 * When the two sides ran on two kinds of GPU (the first device of each side's contexts has
 * another name), it is a device comparison instead, and returns 0: per benchmark the medians,
 * their ratio with its 1 - alpha interval (from the repetitions, else from the samples of one
 * process each; none with one sample each or too few samples, said so), the ratios a DRAM-, an
 * issue- and an FP64-bound stage would show from the records' device facts and the nearest;
 * no verdict. Two cards of one name (two UUIDs) are one kind: compared as above, with a note. */
int sb_compare_files(const char *base_path, const char *new_path, const sb_compare_options *opt,
                     FILE *out);

/* One benchmark of a calibration file. */
typedef struct sb_calibrated {
    char name[1024];
    double spread; /* standard deviation of the log of one repetition's median, all sessions */
    int repetitions;
    /* the same spread apart: within a session and between sessions' levels (stats.h) */
    double within, between;
    int within_df, between_df;
} sb_calibrated;

typedef struct sb_calibration {
    sb_calibrated *benches;
    int n;
    char device[256];
} sb_calibration;

/* Reads a file `stagebench calibrate` wrote; -1 (message naming the file) otherwise. */
int sb_calibration_load(sb_calibration *c, const char *path);
void sb_calibration_free(sb_calibration *c);
/* Writes the calibration of the records in `paths` (files or directories; each a set of
 * repetitions in separate processes, e.g. the two halves of an A-vs-A) to out_path, atomically,
 * and prints its table. */
int sb_calibrate_files(const char *const *paths, int npaths, double floor, const char *out_path,
                       FILE *out);

#ifdef __cplusplus
}
#endif

#endif
