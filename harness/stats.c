#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/base/error.h"

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
    s->median_ci = INFINITY;
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
        s->median = s->noise_robust = s->median_ci = NAN;
        return;
    }
    memcpy(sorted, x, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, compare_doubles);
    s->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    if (s->median != 0) {
        /* The median's interval: order statistics j and k (1-based) with j = floor((n - 1.96
         * sqrt n) / 2), k = ceil(1 + (n + 1.96 sqrt n) / 2), the normal approximation to the
         * binomial count of samples below the median. */
        double half = 1.96 * sqrt((double)n);
        int j = (int)floor((n - half) / 2), k = (int)ceil(1 + (n + half) / 2);
        if (j >= 1 && k <= n)
            s->median_ci = (sorted[k - 1] - sorted[j - 1]) / 2 / fabs(s->median);
    }
    if (n >= 2 && s->median != 0) {
        for (int i = 0; i < n; i++)
            sorted[i] = fabs(sorted[i] - s->median);
        qsort(sorted, (size_t)n, sizeof *sorted, compare_doubles);
        double mad = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        s->noise_robust = 1.4826 * mad / fabs(s->median);
    }
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

/* The exact null distribution of U for samples of sizes na and nb without ties: dist[v] (v from 0
 * to na nb) gets the number of arrangements of na a's and nb b's with U = v; returns their total,
 * C(na + nb, na). count[n][v] is built up m by m from the recurrence f(m, n, v) = f(m - 1, n,
 * v - n) + f(m, n - 1, v): the largest of the m + n values is either an a, which exceeds all n
 * b's, or a b, which exceeds none. */
static double exact_distribution(int na, int nb, double dist[EXACT_MAX * EXACT_MAX + 1])
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
    double total = 0;
    for (int v = 0; v <= umax; v++)
        total += dist[v] = count[nb][v];
    return total;
}

/* Two-sided exact p-value of U = u for samples of sizes na and nb without ties. */
static double exact_p(int na, int nb, int u)
{
    double dist[EXACT_MAX * EXACT_MAX + 1];
    double total = exact_distribution(na, nb, dist), at_most = 0, at_least = 0;
    for (int v = 0; v <= na * nb; v++) {
        if (v <= u)
            at_most += dist[v];
        if (v >= u)
            at_least += dist[v];
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

/* The regularized incomplete beta function I_x(a, b), from its continued fraction evaluated by
 * the modified Lentz method; the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) keeps x on the side
 * where the fraction converges quickly. */
static double incomplete_beta(double x, double a, double b)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    if (x > (a + 1) / (a + b + 2))
        return 1 - incomplete_beta(1 - x, b, a);
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x)) / a;
    const double tiny = 1e-300;
    double f = 1, c = 1, d = 0;
    for (int i = 0; i <= 400; i++) {
        int m = i / 2;
        double numerator;
        if (i == 0)
            numerator = 1;
        else if (i % 2 == 0)
            numerator = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
        else
            numerator = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
        d = 1 + numerator * d;
        d = fabs(d) < tiny ? tiny : d;
        d = 1 / d;
        c = 1 + numerator / c;
        c = fabs(c) < tiny ? tiny : c;
        double step = c * d;
        f *= step;
        if (fabs(1 - step) < 1e-14)
            break;
    }
    return front * (f - 1);
}

double sb_t_two_sided_p(double t, double df)
{
    if (!isfinite(t))
        return isnan(t) ? 1 : 0;
    return incomplete_beta(df / (df + t * t), df / 2, 0.5);
}

double sb_t_quantile(double upper_tail, double df)
{
    /* Bisection on the tail, which falls monotonically in t: 200 halvings of [0, 1e6] reach
     * double precision. */
    double lo = 0, hi = 1e6;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (sb_t_two_sided_p(mid, df) / 2 > upper_tail)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

int sb_t_test(const double *a, int na, const double *b, int nb, const sb_spread_prior *prior,
              sb_ttest *r)
{
    memset(r, 0, sizeof *r);
    if (na < 2 || nb < 2)
        return sb_fail("t test: each side needs at least 2 values (got %d and %d)", na, nb);
    sb_stats sa, sb;
    sb_stats_compute(a, na, &sa);
    sb_stats_compute(b, nb, &sb);
    r->diff = sb.mean - sa.mean;
    double va = sa.stdev * sa.stdev, vb = sb.stdev * sb.stdev;
    if (prior) {
        /* The calibration's within-session spread estimates the same variance as each side's
         * own: pooled, weighted by their degrees of freedom. A session's level moves too (the
         * between-session spread), and each side is one session: that variance counts twice,
         * however many repetitions a side has. */
        double df_within = prior->within_df + na + nb - 2;
        double pooled = (prior->within_df * prior->within * prior->within + (na - 1) * va +
                         (nb - 1) * vb) / df_within;
        double v_within = pooled * (1.0 / na + 1.0 / nb);
        double v_between = 2 * prior->between * prior->between;
        r->se = sqrt(v_within + v_between);
        r->df = v_between > 0 && prior->between_df > 0
                    ? (v_within + v_between) * (v_within + v_between) /
                          (v_within * v_within / df_within +
                           v_between * v_between / prior->between_df)
                    : df_within;
    } else {
        /* Welch: no assumption that both sides are equally noisy; Satterthwaite's df. */
        double qa = va / na, qb = vb / nb;
        r->se = sqrt(qa + qb);
        r->df = qa + qb > 0 ? (qa + qb) * (qa + qb) /
                                  (qa * qa / (na - 1) + qb * qb / (nb - 1))
                            : na + nb - 2;
    }
    if (r->se == 0) {
        r->t = r->diff == 0 ? 0 : copysign(INFINITY, r->diff);
        r->p = r->diff == 0 ? 1 : 0;
        return 0;
    }
    r->t = r->diff / r->se;
    r->p = sb_t_two_sided_p(r->t, r->df);
    return 0;
}

void sb_holm(const double *p, int m, double *adjusted)
{
    /* Step-down: the k-th smallest p (k from 0) is multiplied by m - k, and an adjusted value is
     * never below the one before it in that order. */
    int *order = malloc((size_t)(m > 0 ? m : 1) * sizeof *order);
    if (!order) { /* Bonferroni's bound, which Holm's never exceeds */
        for (int i = 0; i < m; i++)
            adjusted[i] = fmin(1, p[i] * m);
        return;
    }
    for (int i = 0; i < m; i++)
        order[i] = i;
    for (int i = 1; i < m; i++) /* insertion sort: m is a suite's benchmark count */
        for (int j = i; j > 0 && p[order[j]] < p[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    double running = 0;
    for (int k = 0; k < m; k++) {
        double v = fmin(1, p[order[k]] * (m - k));
        running = fmax(running, v);
        adjusted[order[k]] = running;
    }
    free(order);
}

double sb_mann_whitney_min_p(int na, int nb)
{
    /* Complete separation, the most extreme arrangement: 2 / C(na + nb, na). */
    double log_c = lgamma(na + nb + 1.0) - lgamma(na + 1.0) - lgamma(nb + 1.0);
    return fmin(1, 2 * exp(-log_c));
}

/* The number of differences y - x (x in a, y in b, both sorted) at most d: two pointers. */
static double differences_at_most(const double *a, int na, const double *b, int nb, double d)
{
    double count = 0;
    int i = 0; /* a[0..i) are below b[j] - d: for those, b[j] - a[i] > d */
    for (int j = 0; j < nb; j++) {
        while (i < na && a[i] < b[j] - d)
            i++;
        count += na - i;
    }
    return count;
}

/* The k-th smallest (1-based) of the na nb differences b[j] - a[i] (a, b sorted), by bisection
 * on its value: the smallest d with at least k differences at most d. */
static double kth_difference(const double *a, int na, const double *b, int nb, double k)
{
    double lo = b[0] - a[na - 1], hi = b[nb - 1] - a[0];
    if (differences_at_most(a, na, b, nb, lo) >= k)
        return lo;
    for (int i = 0; i < 400 && lo < hi; i++) {
        double mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi)
            break; /* adjacent doubles */
        if (differences_at_most(a, na, b, nb, mid) >= k)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* The z whose upper tail of the standard normal is upper_tail (0 < upper_tail < 0.5). */
static double normal_quantile(double upper_tail)
{
    double lo = 0, hi = 40;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (erfc(mid / sqrt(2)) / 2 > upper_tail)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

int sb_shift_interval(const double *a, int na, const double *b, int nb, double confidence,
                      double *low, double *high)
{
    if (na < 1 || nb < 1 || !(confidence > 0 && confidence < 1))
        return sb_fail("shift interval: needs a sample on each side and a confidence in (0, 1) "
                       "(got %d and %d values, %g)", na, nb, confidence);
    double tail = (1 - confidence) / 2, mn = (double)na * nb;
    /* k: the largest count of differences below the shift that no shift gives with more than
     * `tail` chance, P(U <= k) <= tail; the interval is differences k + 1 and mn - k. */
    double k = -1;
    if (na <= EXACT_MAX && nb <= EXACT_MAX) {
        double dist[EXACT_MAX * EXACT_MAX + 1];
        double total = exact_distribution(na, nb, dist), below = 0;
        for (int v = 0; v <= na * nb; v++) {
            below += dist[v];
            if (below / total > tail)
                break;
            k = v;
        }
    } else {
        k = floor(mn / 2 - normal_quantile(tail) * sqrt(mn * (na + nb + 1) / 12));
    }
    if (k < 0)
        return 1; /* too few values for this confidence */
    double *sorted = malloc((size_t)(na + nb) * sizeof *sorted);
    if (!sorted)
        return sb_fail("shift interval: out of memory for %d values", na + nb);
    memcpy(sorted, a, (size_t)na * sizeof *sorted);
    memcpy(sorted + na, b, (size_t)nb * sizeof *sorted);
    qsort(sorted, (size_t)na, sizeof *sorted, compare_doubles);
    qsort(sorted + na, (size_t)nb, sizeof *sorted, compare_doubles);
    *low = kth_difference(sorted, na, sorted + na, nb, k + 1);
    *high = kth_difference(sorted, na, sorted + na, nb, mn - k);
    free(sorted);
    return 0;
}
