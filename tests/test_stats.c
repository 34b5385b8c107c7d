/* Sample statistics and the Mann-Whitney U test against values worked out by hand from the
 * definitions (scipy is not used: every expected number below says where it comes from). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "cuda/base/error.h"
#include "harness/stats.h"

/* |actual - expected| <= tolerance, printing both on failure (cmocka's float assertion works in
 * single precision). */
#define assert_near(actual, expected, tolerance) \
    check_near((actual), (expected), (tolerance), #actual, __FILE__, __LINE__)

static void check_near(double actual, double expected, double tolerance, const char *what,
                       const char *file, int line)
{
    if (fabs(actual - expected) <= tolerance)
        return;
    print_error("%s is %.17g, expected %.17g (within %g)\n", what, actual, expected, tolerance);
    _fail(file, line);
}

static void stats_of_odd_count(void **state)
{
    (void)state;
    double x[] = {3, 1, 4, 1, 5};
    const double unchanged[] = {3, 1, 4, 1, 5};
    sb_stats s;
    sb_stats_compute(x, 5, &s);
    assert_int_equal(s.n, 5);
    /* Sorted: 1 1 3 4 5. */
    assert_near(s.median, 3, 0);
    assert_near(s.min, 1, 0);
    assert_near(s.max, 5, 0);
    /* 14 / 5. */
    assert_near(s.mean, 2.8, 1e-15);
    /* Deviations 0.2 -1.8 1.2 -1.8 2.2; squares sum to 12.8; 12.8 / 4 = 3.2; sqrt(3.2). */
    assert_near(s.stdev, 1.7888543819998317, 1e-15);
    /* sqrt(3.2) / 2.8. */
    assert_near(s.noise, 0.6388765649999399, 1e-15);
    /* The median works on a copy. */
    assert_memory_equal(x, unchanged, sizeof x);
}

static void stats_of_even_count(void **state)
{
    (void)state;
    double x[] = {4, 1, 3, 2};
    sb_stats s;
    sb_stats_compute(x, 4, &s);
    /* Sorted: 1 2 3 4; the middle two average to 2.5. */
    assert_near(s.median, 2.5, 0);
    assert_near(s.mean, 2.5, 0);
    /* Squares 2.25 + 0.25 + 0.25 + 2.25 = 5; 5 / 3; sqrt(5 / 3). */
    assert_near(s.stdev, 1.2909944487358056, 1e-15);
    /* sqrt(5 / 3) / 2.5. */
    assert_near(s.noise, 0.5163977794943222, 1e-15);
}

static void stats_of_one_value_and_zero_mean(void **state)
{
    (void)state;
    double one[] = {7};
    sb_stats s;
    sb_stats_compute(one, 1, &s);
    assert_int_equal(s.n, 1);
    assert_near(s.median, 7, 0);
    assert_near(s.mean, 7, 0);
    /* No spread from a single value. */
    assert_near(s.stdev, 0, 0);
    assert_near(s.noise, 0, 0);

    double centred[] = {-1, 1};
    sb_stats_compute(centred, 2, &s);
    /* Mean 0: stdev sqrt((1 + 1) / 1) but no relative noise. */
    assert_near(s.stdev, sqrt(2), 1e-15);
    assert_near(s.noise, 0, 0);
}

static void utest_tiny_exact(void **state)
{
    (void)state;
    /* a = {1, 2}, b = {3, 4, 5}: no a exceeds a b, U = 0. Of the C(5, 2) = 10 equally likely
     * orders only "a a b b b" gives U = 0, so P(U <= 0) = 1/10 and p = 2/10. */
    double a[] = {1, 2}, b[] = {3, 4, 5};
    sb_utest r;
    assert_int_equal(sb_mann_whitney(a, 2, b, 3, &r), 0);
    assert_int_equal(r.exact, 1);
    assert_near(r.u, 0, 0);
    assert_near(r.p, 0.2, 1e-15);

    /* Swapped: every a exceeds every b, U = 2 * 3 = 6, the same p. */
    assert_int_equal(sb_mann_whitney(b, 3, a, 2, &r), 0);
    assert_near(r.u, 6, 0);
    assert_near(r.p, 0.2, 1e-15);
}

static void utest_exact_middle_value(void **state)
{
    (void)state;
    /* a = {1, 4}, b = {2, 3, 5}: 4 exceeds 2 and 3, U = 2. With the a's at sorted positions
     * r1 < r2, U = (r1 - 1) + (r2 - 2); over the 10 position pairs U takes the values
     * 0 1 2 3 2 3 4 4 5 6, so P(U <= 2) = 4/10, P(U >= 2) = 8/10, p = 2 * 4/10 = 0.8. */
    double a[] = {1, 4}, b[] = {2, 3, 5};
    sb_utest r;
    assert_int_equal(sb_mann_whitney(a, 2, b, 3, &r), 0);
    assert_int_equal(r.exact, 1);
    assert_near(r.u, 2, 0);
    assert_near(r.p, 0.8, 1e-15);
}

static void utest_exact_matches_enumeration(void **state)
{
    (void)state;
    /* Every order of 5 a's and 6 b's (the 462 subsets of 11 positions holding the a's): the
     * distribution of U counted by brute force, then each order's p from that distribution
     * against the test's. */
    enum { NA = 5, NB = 6, N = NA + NB };
    double count[NA * NB + 1] = {0}, total = 0;
    for (unsigned mask = 0; mask < 1u << N; mask++) {
        if (__builtin_popcount(mask) != NA)
            continue;
        int u = 0, bs_below = 0;
        for (int pos = 0; pos < N; pos++) {
            if (mask >> pos & 1)
                u += bs_below;
            else
                bs_below++;
        }
        count[u]++;
        total++;
    }
    assert_near(total, 462, 0);

    for (unsigned mask = 0; mask < 1u << N; mask++) {
        if (__builtin_popcount(mask) != NA)
            continue;
        double a[NA], b[NB];
        int na = 0, nb = 0;
        for (int pos = 0; pos < N; pos++) {
            if (mask >> pos & 1)
                a[na++] = pos;
            else
                b[nb++] = pos;
        }
        sb_utest r;
        assert_int_equal(sb_mann_whitney(a, NA, b, NB, &r), 0);
        assert_int_equal(r.exact, 1);
        double at_most = 0, at_least = 0;
        for (int v = 0; v <= NA * NB; v++) {
            if (v <= r.u)
                at_most += count[v];
            if (v >= r.u)
                at_least += count[v];
        }
        double expected = fmin(1, 2 * fmin(at_most, at_least) / total);
        assert_near(r.p, expected, 1e-14);
    }
}

static void utest_separated_ten_by_ten(void **state)
{
    (void)state;
    /* a = 1..10 below b = 11..20: U = 0, reached only by the one order with every a first, of
     * C(20, 10) = 184756; two-sided p = 2 / 184756. */
    double a[10], b[10];
    for (int i = 0; i < 10; i++) {
        a[i] = i + 1;
        b[i] = i + 11;
    }
    sb_utest r;
    assert_int_equal(sb_mann_whitney(a, 10, b, 10, &r), 0);
    assert_int_equal(r.exact, 1);
    assert_near(r.u, 0, 0);
    assert_near(r.p, 2.0 / 184756, 1e-18);

    assert_int_equal(sb_mann_whitney(b, 10, a, 10, &r), 0);
    assert_near(r.u, 100, 0);
    assert_near(r.p, 2.0 / 184756, 1e-18);
}

static void utest_identical_samples(void **state)
{
    (void)state;
    /* Each value appears once in each sample: five ties of 2, so the normal approximation.
     * U = 0 + 1 + 2 + 3 + 4 (b's below each a) + 5 * 1/2 (the tie) = 12.5 = mu = 5 * 5 / 2:
     * no evidence of a difference, p = 1. */
    double a[] = {1, 2, 3, 4, 5}, b[] = {5, 4, 3, 2, 1};
    sb_utest r;
    assert_int_equal(sb_mann_whitney(a, 5, b, 5, &r), 0);
    assert_int_equal(r.exact, 0);
    assert_near(r.u, 12.5, 0);
    assert_near(r.p, 1, 0);

    /* All values equal: the variance is 0, nothing to test; U = 3 * 2 pairs * 1/2. */
    double same_a[] = {2, 2, 2}, same_b[] = {2, 2};
    assert_int_equal(sb_mann_whitney(same_a, 3, same_b, 2, &r), 0);
    assert_near(r.u, 3, 0);
    assert_near(r.p, 1, 0);
}

static void utest_ties_normal_approximation(void **state)
{
    (void)state;
    /* a = {1, 1, 2, 2, 3}, b = {2, 3, 3, 4, 4}.
     * U: the 1s exceed nothing; each 2 ties the one b = 2 (1/2 each); the 3 exceeds b = 2 and
     * ties two 3s (1 + 1/2 + 1/2). U = 0 + 0 + 1/2 + 1/2 + 2 = 3. (Rank check: average ranks
     * 1.5, 4, 7, 9.5; a's rank sum 1.5 + 1.5 + 4 + 4 + 7 = 18; 18 - 5 * 6 / 2 = 3.)
     * Ties: groups of 2 (1s), 3 (2s), 3 (3s), 2 (4s): sum t^3 - t = 6 + 24 + 24 + 6 = 60.
     * mu = 25 / 2 = 12.5; sigma^2 = 25/12 * (11 - 60 / (10 * 9)) = 25/12 * 31/3 = 775/36,
     * sigma = sqrt(775) / 6 = 4.6398036357.
     * z = (|3 - 12.5| - 0.5) / sigma = 54 / sqrt(775) = 1.9397372619.
     * p = 2 (1 - Phi(1.9397372619)) = 0.0524116287 (normal tail; tables give
     * 2 (1 - 0.97381) = 0.0524 at z = 1.94). */
    double a[] = {1, 1, 2, 2, 3}, b[] = {2, 3, 3, 4, 4};
    sb_utest r;
    assert_int_equal(sb_mann_whitney(a, 5, b, 5, &r), 0);
    assert_int_equal(r.exact, 0);
    assert_near(r.u, 3, 0);
    assert_near(r.z, 54 / sqrt(775), 1e-12);
    assert_near(r.p, 0.0524116287, 1e-9);
}

static void utest_large_samples_use_normal_approximation(void **state)
{
    (void)state;
    /* 25 vs 25, no ties, a entirely below b: over the exact limit of 20, so the normal
     * approximation. U = 0, mu = 312.5, sigma^2 = 625/12 * 51 = 2656.25, sigma = 51.5388203,
     * z = (312.5 - 0.5) / sigma = 6.0536892; p = 2 (1 - Phi(6.0536892)) = 1.415656e-9. */
    double a[25], b[25];
    for (int i = 0; i < 25; i++) {
        a[i] = i;
        b[i] = 100 + i;
    }
    sb_utest r;
    assert_int_equal(sb_mann_whitney(a, 25, b, 25, &r), 0);
    assert_int_equal(r.exact, 0);
    assert_near(r.u, 0, 0);
    assert_near(r.z, 312 / sqrt(2656.25), 1e-12);
    assert_near(r.p, 1.415656e-9, 1e-15);
}

static void utest_empty_sample_fails(void **state)
{
    (void)state;
    double a[] = {1};
    sb_utest r;
    sb_error_clear();
    assert_int_equal(sb_mann_whitney(a, 1, a, 0, &r), -1);
    assert_non_null(strstr(sb_error(), "empty"));
    assert_int_equal(sb_mann_whitney(a, 0, a, 1, &r), -1);
}

/* Known answers from SciPy 1.10 (scipy.stats.ttest_ind, t.ppf, t.sf). */
static void welch_known_answer(void **state)
{
    (void)state;
    const double a[] = {1, 2, 3, 4, 5}, b[] = {2, 4, 6, 8, 10};
    sb_ttest t;
    assert_int_equal(sb_t_test(a, 5, b, 5, NULL, &t), 0);
    assert_near(t.diff, 3, 1e-12);
    assert_near(t.t, 1.8973665961010275, 1e-9);
    assert_near(t.df, 5.882352941176471, 1e-9);
    assert_near(t.p, 0.10753119493062718, 1e-7);
}

static void t_pooled_with_a_prior(void **state)
{
    (void)state;
    /* The variance pooled from a prior sd of 2 on 8 df with the samples' own 4 + 4 df. */
    const double a[] = {1, 2, 3, 4, 5}, b[] = {2, 4, 6, 8, 10};
    sb_ttest t;
    const sb_spread_prior prior = {.within = 2, .within_df = 8};
    assert_int_equal(sb_t_test(a, 5, b, 5, &prior, &t), 0);
    assert_near(t.df, 16, 0);
    assert_near(t.t, 2.0952908873087344, 1e-9);
    assert_near(t.p, 0.05240964548653948, 1e-7);
}

static void t_with_a_between_session_spread(void **state)
{
    (void)state;
    /* Within: pooled variance (8*4 + 4*2.5 + 4*10) / 16 = 5.125, times 2/5 = 2.05; between:
     * 2 * 1.5^2 = 4.5; se = sqrt(6.55); df = 6.55^2 / (2.05^2 / 16 + 4.5^2 / 4) = 8.09. */
    const double a[] = {1, 2, 3, 4, 5}, b[] = {2, 4, 6, 8, 10};
    const sb_spread_prior prior = {.within = 2, .within_df = 8, .between = 1.5, .between_df = 4};
    sb_ttest t;
    assert_int_equal(sb_t_test(a, 5, b, 5, &prior, &t), 0);
    assert_near(t.se, sqrt(6.55), 1e-12);
    assert_near(t.df, 6.55 * 6.55 / (2.05 * 2.05 / 16 + 4.5 * 4.5 / 4), 1e-9);
    assert_near(t.t, 3 / sqrt(6.55), 1e-12);
    /* More repetitions cannot shrink the between-session part: the p stays above this. */
    assert_true(t.p > 0.2);
}

static void t_distribution_known_answers(void **state)
{
    (void)state;
    assert_near(sb_t_two_sided_p(2.2281388519649385, 10), 0.05, 1e-9);
    assert_near(sb_t_two_sided_p(3.5, 2.5), 0.052345546960320316, 1e-9);
    assert_near(sb_t_two_sided_p(0.3, 100), 0.7647998803003035, 1e-9);
    assert_near(sb_t_two_sided_p(-0.3, 100), 0.7647998803003035, 1e-9);
    assert_near(sb_t_quantile(0.025, 10), 2.2281388519649385, 1e-8);
    assert_near(sb_t_quantile(0.2, 4.5), 0.9289655685636684, 1e-8);
}

static void t_test_edges(void **state)
{
    (void)state;
    const double a[] = {1, 1, 1}, b[] = {2, 2, 2};
    sb_ttest t;
    /* No spread at all: any difference is certain, none is no evidence. */
    assert_int_equal(sb_t_test(a, 3, b, 3, NULL, &t), 0);
    assert_near(t.p, 0, 0);
    assert_int_equal(sb_t_test(a, 3, a, 3, NULL, &t), 0);
    assert_near(t.p, 1, 0);
    assert_int_equal(sb_t_test(a, 1, b, 3, NULL, &t), -1);
    assert_non_null(strstr(sb_error(), "at least 2"));
}

static void holm_known_answer(void **state)
{
    (void)state;
    /* Sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04 -> 0.06 (never
     * below the one before). */
    const double p[] = {0.01, 0.04, 0.03, 0.005};
    double adjusted[4];
    sb_holm(p, 4, adjusted);
    assert_near(adjusted[0], 0.03, 1e-15);
    assert_near(adjusted[1], 0.06, 1e-15);
    assert_near(adjusted[2], 0.06, 1e-15);
    assert_near(adjusted[3], 0.02, 1e-15);
    const double big[] = {0.5, 0.9};
    sb_holm(big, 2, adjusted);
    assert_near(adjusted[0], 1, 0);
    assert_near(adjusted[1], 1, 0);
}

static void utest_smallest_p(void **state)
{
    (void)state;
    assert_near(sb_mann_whitney_min_p(2, 2), 1.0 / 3, 1e-12);
    assert_near(sb_mann_whitney_min_p(5, 5), 2.0 / 252, 1e-12);
}

/* The Mann-Whitney interval of a shift: 4 and 4 values, k = 0 (P(U <= 0) = 1/70 <= 0.025 <
 * P(U <= 1) = 2/70): the smallest and largest differences; 5 and 5, k = 2 (P(U <= 2) = 4/252,
 * P(U <= 3) = 7/252): differences 3 and 23 of 25, which for b_j - a_i = 10 + j - i are 7 and 13;
 * 3 and 3 cannot give 95 % (min to max has 1 - 2/20 = 90 %). */
static void shift_interval_known_answers(void **state)
{
    (void)state;
    const double a4[] = {4, 1, 3, 2}, b4[] = {14, 11, 12, 13};
    double low = 0, high = 0;
    assert_int_equal(sb_shift_interval(a4, 4, b4, 4, 0.95, &low, &high), 0);
    assert_near(low, 7, 1e-9);
    assert_near(high, 13, 1e-9);
    const double a5[] = {0, 1, 2, 3, 4}, b5[] = {10, 11, 12, 13, 14};
    assert_int_equal(sb_shift_interval(a5, 5, b5, 5, 0.95, &low, &high), 0);
    assert_near(low, 7, 1e-9);
    assert_near(high, 13, 1e-9);
    /* 90 %: P(U <= 4) = 12/252 <= 0.05 < P(U <= 5) = 19/252: differences 5 and 21, 8 and 12 */
    assert_int_equal(sb_shift_interval(a5, 5, b5, 5, 0.90, &low, &high), 0);
    assert_near(low, 8, 1e-9);
    assert_near(high, 12, 1e-9);
    assert_int_equal(sb_shift_interval(a4, 3, b4, 3, 0.95, &low, &high), 1);
    assert_int_equal(sb_shift_interval(a4, 1, b4, 1, 0.95, &low, &high), 1);
    assert_int_equal(sb_shift_interval(a4, 0, b4, 1, 0.95, &low, &high), -1);
}

/* Uniform in [0, 1) from a fixed sequence (a 64-bit LCG's top bits): the same numbers on every
 * machine. */
static double uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* How often the interval holds the true shift, 400 times over: about 95 %, exact (8 and 8) and
 * by the normal approximation (30 and 40; 3000 and 2000, which also has to be quick). */
static void shift_interval_covers(void **state)
{
    (void)state;
    static const int sizes[][2] = {{8, 8}, {30, 40}, {3000, 2000}};
    static double a[3000], b[3000];
    uint64_t seed = 42;
    for (int s = 0; s < 3; s++) {
        int na = sizes[s][0], nb = sizes[s][1], held = 0, trials = s == 2 ? 40 : 400;
        for (int t = 0; t < trials; t++) {
            for (int i = 0; i < na; i++) /* a skewed spread, as timings have */
                a[i] = -log(1 - uniform(&seed));
            for (int j = 0; j < nb; j++)
                b[j] = 0.5 - log(1 - uniform(&seed));
            double low, high;
            assert_int_equal(sb_shift_interval(a, na, b, nb, 0.95, &low, &high), 0);
            assert_true(low <= high);
            held += low <= 0.5 && 0.5 <= high;
        }
        if (s < 2 && (held < 0.92 * trials || held > 0.99 * trials)) {
            print_error("%d and %d values: the interval held the shift %d times of %d\n", na, nb,
                        held, trials);
            fail();
        }
        if (s == 2)
            assert_true(held >= 0.85 * trials);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stats_of_odd_count),
        cmocka_unit_test(stats_of_even_count),
        cmocka_unit_test(stats_of_one_value_and_zero_mean),
        cmocka_unit_test(utest_tiny_exact),
        cmocka_unit_test(utest_exact_middle_value),
        cmocka_unit_test(utest_exact_matches_enumeration),
        cmocka_unit_test(utest_separated_ten_by_ten),
        cmocka_unit_test(utest_identical_samples),
        cmocka_unit_test(utest_ties_normal_approximation),
        cmocka_unit_test(utest_large_samples_use_normal_approximation),
        cmocka_unit_test(utest_empty_sample_fails),
        cmocka_unit_test(welch_known_answer),
        cmocka_unit_test(t_pooled_with_a_prior),
        cmocka_unit_test(t_with_a_between_session_spread),
        cmocka_unit_test(t_distribution_known_answers),
        cmocka_unit_test(t_test_edges),
        cmocka_unit_test(holm_known_answer),
        cmocka_unit_test(utest_smallest_p),
        cmocka_unit_test(shift_interval_known_answers),
        cmocka_unit_test(shift_interval_covers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
