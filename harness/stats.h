/* Sample statistics and the Mann-Whitney U test. */
#ifndef SB_STATS_H
#define SB_STATS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_stats {
    int n;
    double median, mean, min, max;
    double stdev; /* sample standard deviation (n - 1); 0 when n < 2 */
    double noise; /* stdev / mean; 0 when n < 2 or mean == 0 */
} sb_stats;

void sb_stats_compute(const double *x, int n, sb_stats *s);

/* The steady median of a variant's own loop times, one per run: the first run (which loads the
 * kernels, or differs in kind) is left out when there are others. Sorts those in place; returns
 * how many runs the median is over (0: none, *median untouched). */
int sb_steady_median(double *loop_seconds, int runs, double *median);

typedef struct sb_utest {
    double u;  /* U statistic of the first sample: pairs (a_i, b_j) with a_i > b_j, ties 1/2 */
    double z;  /* normal approximation's z (0 when exact) */
    double p;  /* two-sided p-value */
    int exact; /* 1: exact distribution (small samples, no ties); 0: normal approximation with
                  tie and continuity correction */
} sb_utest;

/* Two-sided test that a and b come from the same distribution. -1 when either is empty. */
int sb_mann_whitney(const double *a, int na, const double *b, int nb, sb_utest *r);

#ifdef __cplusplus
}
#endif

#endif
