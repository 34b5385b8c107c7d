/* Change points of a series by E-divisive means (Matteson & James, "A nonparametric approach for
 * multiple change point analysis of multivariate data", JASA 2014), with the energy distance's
 * exponent a = 1: divisive splits, each kept only when a permutation test finds it significant.
 * The permutations come from a PRNG with a fixed seed, so the same series always gives the same
 * points. History passes log(time), so that the method sees relative changes. */
#ifndef SB_CHANGEPOINT_H
#define SB_CHANGEPOINT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_cp_options {
    int min_segment;  /* fewest values a segment may have (>= 2) */
    int permutations; /* permutation test's rounds (>= 1) */
    double alpha;     /* a split counts when its p-value is below this */
    uint64_t seed;    /* of the permutations' PRNG */
} sb_cp_options;

/* min_segment 3, 199 permutations, alpha 0.05, seed SB_CP_SEED. */
#define SB_CP_SEED 0x5354414745424e43ull /* "STAGEBNC" */
sb_cp_options sb_cp_defaults(void);

/* Finds the change points of x[0..n-1] (opt NULL: the defaults): at most max_points of them, in
 * ascending order in points[], where a point i means x[i] starts a new segment; p_values[k]
 * (when not NULL) is the permutation test's p-value of points[k]. Returns how many it found, or
 * -1 with a message (non-finite x, bad options, out of memory). Each split tried
 * costs about (permutations + 1) * n^2 distance terms: some 20 ms for 300 values. */
int sb_changepoints(const double *x, int n, const sb_cp_options *opt, int *points,
                    double *p_values, int max_points);

#ifdef __cplusplus
}
#endif

#endif
