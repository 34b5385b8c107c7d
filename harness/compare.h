/* stagebench compare: two records files, matched by benchmark name. */
#ifndef SB_COMPARE_H
#define SB_COMPARE_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_compare_options {
    double threshold; /* relative slow-down that counts (0.05 = 5 %) */
    double alpha;     /* significance level of the U test */
} sb_compare_options;

/* Prints a table to `out`: per benchmark the base and new medians, their ratio (new / base), the
 * U test's p-value and a verdict; then the benchmarks only in base (missing) and only in new (new).
 * Returns 0 when nothing regressed, 1 when a benchmark is slower by more than threshold with
 * p < alpha or a benchmark valid in base is not valid in new, -1 on an unreadable file (message
 * through sb_fail). */
int sb_compare_files(const char *base_path, const char *new_path, const sb_compare_options *opt,
                     FILE *out);

#ifdef __cplusplus
}
#endif

#endif
