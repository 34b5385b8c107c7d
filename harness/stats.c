#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/* The exact null distribution is used up to this many values per sample; beyond it the normal
 * approximation is close. Counts up to C(40, 20) are exact integers in a double. */
#define EXACT_MAX 20

static int compare_doubles(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

int sb_steady_median(double *loop_seconds, int runs, double *median)
{
    int first = runs > 1, n = runs - first;
    if (n <= 0)
        return 0;
    qsort(loop_seconds + first, (size_t)n, sizeof *loop_seconds, compare_doubles);
    *median = loop_seconds[first + n / 2];
    return n;
}

void sb_stats_compute(const double *x, int n, sb_stats *s)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    if (n <= 0)
        return;

    double sum = 0;
    s->min = s->max = x[0];
    for (int i = 0; i < n; i++) {
        sum += x[i];
        if (x[i] < s->min)
            s->min = x[i];
        if (x[i] > s->max)
            s->max = x[i];
    }
    s->mean = sum / n;

    /* Two passes: the squared deviations from the mean, not sum(x^2) - n mean^2, which loses
     * every digit when the noise is small next to the mean (the usual case for timings). */
    if (n >= 2) {
        double squares = 0;
        for (int i = 0; i < n; i++)
            squares += (x[i] - s->mean) * (x[i] - s->mean);
        s->stdev = sqrt(squares / (n - 1));
        if (s->mean != 0)
            s->noise = s->stdev / s->mean;
    }

    /* The median sorts a copy: the caller's samples stay in the order they were taken. */
    double *sorted = malloc((size_t)n * sizeof *sorted);
    if (!sorted) {
        s->median = NAN;
        return;
    }
    memcpy(sorted, x, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, compare_doubles);
    s->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    free(sorted);
}

typedef struct ranked {
    double value;
    int from_a;
} ranked;

static int compare_ranked(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    return (a->value > b->value) - (a->value < b->value);
}

/* Two-sided exact p-value of U = u for samples of sizes na and nb without ties. count[n][v] is
 * the number of arrangements of m a's and n b's with U = v, built up m by m from the recurrence
 * f(m, n, v) = f(m - 1, n, v - n) + f(m, n - 1, v): the largest of the m + n values is either an
 * a, which exceeds all n b's, or a b, which exceeds none. */
static double exact_p(int na, int nb, int u)
{
    int umax = na * nb;
    double count[EXACT_MAX + 1][EXACT_MAX * EXACT_MAX + 1];

    /* m = 0: whatever the b's, U = 0. */
    for (int n = 0; n <= nb; n++) {
        memset(count[n], 0, sizeof count[n]);
        count[n][0] = 1;
    }
    for (int m = 1; m <= na; m++) {
        /* count[0] (no b's) stays U = 0. For n >= 1, count[n - 1] already holds row m and
         * count[n] still holds row m - 1; going down in v reads count[n][v - n] before it is
         * overwritten. */
        for (int n = 1; n <= nb; n++)
            for (int v = umax; v >= 0; v--)
                count[n][v] = (v >= n ? count[n][v - n] : 0) + count[n - 1][v];
    }

    double total = 0, at_most = 0, at_least = 0;
    for (int v = 0; v <= umax; v++) {
        total += count[nb][v];
        if (v <= u)
            at_most += count[nb][v];
        if (v >= u)
            at_least += count[nb][v];
    }
    double p = 2 * fmin(at_most, at_least) / total;
    return p < 1 ? p : 1;
}

int sb_mann_whitney(const double *a, int na, const double *b, int nb, sb_utest *r)
{
    memset(r, 0, sizeof *r);
    if (na <= 0 || nb <= 0)
        return sb_fail("Mann-Whitney U test: a sample is empty (%d and %d values); "
                       "each side needs at least one sample", na, nb);

    /* U from the rank sum of a (ties get their average rank), which also finds the tie groups
     * the variance needs, in O(n log n) rather than comparing every pair. */
    int n = na + nb;
    ranked *all = malloc((size_t)n * sizeof *all);
    if (!all)
        return sb_fail("Mann-Whitney U test: out of memory for %d values", n);
    for (int i = 0; i < na; i++)
        all[i] = (ranked){a[i], 1};
    for (int j = 0; j < nb; j++)
        all[na + j] = (ranked){b[j], 0};
    qsort(all, (size_t)n, sizeof *all, compare_ranked);

    double rank_sum_a = 0, tie_term = 0;
    for (int first = 0; first < n;) {
        int end = first + 1;
        while (end < n && all[end].value == all[first].value)
            end++;
        double t = end - first;
        double average_rank = (first + 1 + end) / 2.0; /* ranks first + 1 .. end */
        for (int k = first; k < end; k++)
            if (all[k].from_a)
                rank_sum_a += average_rank;
        tie_term += t * t * t - t;
        first = end;
    }
    free(all);
    r->u = rank_sum_a - na * (na + 1) / 2.0;

    if (tie_term == 0 && na <= EXACT_MAX && nb <= EXACT_MAX) {
        r->exact = 1;
        r->p = exact_p(na, nb, (int)lround(r->u));
        return 0;
    }

    double mu = na * (double)nb / 2;
    double variance = na * (double)nb / 12 * ((n + 1) - tie_term / ((double)n * (n - 1)));
    if (variance <= 0) {
        /* Every value is the same: nothing tells the samples apart. */
        r->p = 1;
        return 0;
    }
    r->z = (fabs(r->u - mu) - 0.5) / sqrt(variance);
    /* 2 (1 - Phi(z)) = erfc(z / sqrt 2), without the cancellation of 1 - Phi for large z. */
    r->p = erfc(r->z / sqrt(2));
    if (r->p > 1)
        r->p = 1;
    return 0;
}
