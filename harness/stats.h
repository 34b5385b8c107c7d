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
    /* 1.4826 x the median absolute deviation, over the median: the relative spread of the bulk
     * of the samples (it equals stdev/mean for normal samples), which a few outliers or a burst
     * of slow samples do not move. 0 when n < 2 or median == 0. */
    double noise_robust;
    /* Half the width of the distribution-free 95 % confidence interval of the median (order
     * statistics), over the median: how well the samples pin the median down. Infinite when
     * n < 8 (too few samples for such an interval) or median == 0. */
    double median_ci;
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

/* The smallest two-sided p the exact U test can give samples of these sizes. */
double sb_mann_whitney_min_p(int na, int nb);

/* The distribution-free interval, at `confidence` (0.95), of the shift d in b = a + d: the
 * differences b_j - a_i of ranks k + 1 and na nb - k, k the largest count with P(U <= k) <=
 * (1 - confidence) / 2 under no shift (the Mann-Whitney interval that goes with the
 * Hodges-Lehmann estimate; exact up to 20 values a side, the normal approximation beyond).
 * 0 with *low, *high; 1 when the sizes cannot give that confidence (3 and 3: the widest
 * interval, min to max, has 90 %); -1 with a message (a side empty, out of memory). */
int sb_shift_interval(const double *a, int na, const double *b, int nb, double confidence,
                      double *low, double *high);

typedef struct sb_ttest {
    double diff; /* mean(b) - mean(a) */
    double se;   /* its standard error */
    double t, df;
    double p; /* two-sided */
} sb_ttest;

/* What a calibration knows of the spread of one value (a repetition's log median): `within` a
 * session (one run of N repetitions), with within_df degrees of freedom, and `between` sessions
 * (the spread of a session's mean level beyond what `within` explains), with between_df. */
typedef struct sb_spread_prior {
    double within;
    int within_df;
    double between;
    int between_df;
} sb_spread_prior;

/* Two-sided t test of mean(b) - mean(a), a and b each one session's values. Without a prior:
 * Welch's (unequal variances, Satterthwaite's degrees of freedom). With one: the within-session
 * variance pooled from the prior's and both sides' own, plus twice the between-session variance
 * (each side is one session), with Satterthwaite's degrees of freedom for that sum. -1 when a
 * side has fewer than 2 values. */
int sb_t_test(const double *a, int na, const double *b, int nb, const sb_spread_prior *prior,
              sb_ttest *r);
/* Two-sided p of Student's t with df degrees of freedom. */
double sb_t_two_sided_p(double t, double df);
/* The t whose upper tail is upper_tail (0 < upper_tail < 0.5). */
double sb_t_quantile(double upper_tail, double df);

/* Holm's step-down adjustment of m p-values (family-wise error rate): adjusted[i] <= alpha
 * rejects exactly what Holm's procedure at alpha rejects. */
void sb_holm(const double *p, int m, double *adjusted);

#ifdef __cplusplus
}
#endif

#endif
