/* E-divisive change points (harness/changepoint.h) on series with known answers: log times of
 * 1 ms with a fixed +-0.5 % jitter, flat, with steps, with a drift. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "harness/changepoint.h"

#define MAX_POINTS 16

/* A fixed jitter in [-0.005, 0.005): an LCG's top bits, the same on every machine, with no
 * pattern a change-point method would take for a shift. */
static double jitter(int i)
{
    uint64_t state = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return ((double)(state >> 11) / 9007199254740992.0 - 0.5) * 0.01;
}

/* log(1 ms * factor(i) * (1 + jitter(i))) for i < n. */
static void series(double *x, int n, double (*factor)(int))
{
    for (int i = 0; i < n; i++)
        x[i] = log(1e-3 * factor(i) * (1 + jitter(i)));
}

static double flat(int i)
{
    (void)i;
    return 1;
}

static double step_at_20(int i)
{
    return i < 20 ? 1 : 1.05;
}

/* +5 % at 15, then -8 % at 35 */
static double two_steps(int i)
{
    return i < 15 ? 1 : i < 35 ? 1.05 : 1.05 * 0.92;
}

static double drift(int i)
{
    return pow(1.01, i);
}

static int changepoints(const double *x, int n, int *points, double *p)
{
    int found = sb_changepoints(x, n, NULL, points, p, MAX_POINTS);
    assert_true(found >= 0);
    for (int k = 1; k < found; k++)
        assert_true(points[k - 1] < points[k]);
    return found;
}

static void test_flat_has_none(void **state)
{
    (void)state;
    double x[40];
    int points[MAX_POINTS];
    series(x, 40, flat);
    assert_int_equal(changepoints(x, 40, points, NULL), 0);
    /* exactly equal values: every permutation is as strong as the data */
    for (int i = 0; i < 40; i++)
        x[i] = 1;
    assert_int_equal(changepoints(x, 40, points, NULL), 0);
}

static void test_one_step(void **state)
{
    (void)state;
    double x[40], p[MAX_POINTS];
    int points[MAX_POINTS];
    series(x, 40, step_at_20);
    assert_int_equal(changepoints(x, 40, points, p), 1);
    assert_int_equal(points[0], 20);
    /* no permutation of 40 values this far apart splits as well: the smallest p there is */
    assert_true(p[0] < 0.01);
}

static void test_two_steps(void **state)
{
    (void)state;
    double x[50];
    int points[MAX_POINTS];
    series(x, 50, two_steps);
    assert_int_equal(changepoints(x, 50, points, NULL), 2);
    assert_int_equal(points[0], 15);
    assert_int_equal(points[1], 35);
}

static double mean(const double *x, int from, int to)
{
    double sum = 0;
    for (int i = from; i < to; i++)
        sum += x[i];
    return sum / (to - from);
}

/* 1 % a point: no step is large, but the series is not one segment. */
static void test_drift(void **state)
{
    (void)state;
    double x[30];
    int points[MAX_POINTS];
    series(x, 30, drift);
    int found = changepoints(x, 30, points, NULL);
    assert_true(found >= 1);
    assert_true(mean(x, points[found - 1], 30) > mean(x, 0, points[0]));
}

static void test_min_segment(void **state)
{
    (void)state;
    double x[40];
    int points[MAX_POINTS];
    sb_cp_options opt = sb_cp_defaults();
    series(x, 40, step_at_20);
    opt.min_segment = 21; /* no split leaves 21 values on both sides of 40 */
    assert_int_equal(sb_changepoints(x, 40, &opt, points, NULL, MAX_POINTS), 0);
    /* at most max_points, and none asked */
    assert_int_equal(sb_changepoints(x, 40, NULL, points, NULL, 0), 0);
}

static void test_deterministic(void **state)
{
    (void)state;
    double x[60], p1[MAX_POINTS], p2[MAX_POINTS];
    int a[MAX_POINTS], b[MAX_POINTS];
    for (int i = 0; i < 60; i++) /* drift, a step, a flat stretch */
        x[i] = log(1e-3 * (i < 20 ? pow(1.01, i) : i < 40 ? 1.3 : 1.25) * (1 + jitter(i)));
    int found = changepoints(x, 60, a, p1);
    assert_true(found >= 1);
    assert_int_equal(changepoints(x, 60, b, p2), found);
    assert_memory_equal(a, b, (size_t)found * sizeof a[0]);
    assert_memory_equal(p1, p2, (size_t)found * sizeof p1[0]);
}

static void test_bad_input(void **state)
{
    (void)state;
    double x[10] = {0};
    int points[MAX_POINTS];
    sb_cp_options opt = sb_cp_defaults();
    opt.min_segment = 1;
    assert_int_equal(sb_changepoints(x, 10, &opt, points, NULL, MAX_POINTS), -1);
    x[3] = NAN;
    assert_int_equal(sb_changepoints(x, 10, NULL, points, NULL, MAX_POINTS), -1);
    /* too short to split is not an error */
    assert_int_equal(sb_changepoints(x, 3, NULL, points, NULL, MAX_POINTS), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_has_none), cmocka_unit_test(test_one_step),
        cmocka_unit_test(test_two_steps),     cmocka_unit_test(test_drift),
        cmocka_unit_test(test_min_segment),   cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
