/* Keyed RNG and deterministic math on the host: known answers, reproducibility, independence of
 * keys and counters, accuracy of the deterministic log/cos against libm, the shape of the draws. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "cuda/detmath.h"
#include "cuda/rng.h"
#include "variants/procell/fate.h"

/* Random123's published known-answer vectors for Philox4x32-10 (kat_vectors). */
static void philox_known_answers(void **unused)
{
    (void)unused;
    sb_rng_block z = sb_philox(0, 0, 0, 0, 0, 0);
    assert_int_equal(z.v[0], 0x6627e8d5u);
    assert_int_equal(z.v[1], 0xe169c58du);
    assert_int_equal(z.v[2], 0xbc57ac4cu);
    assert_int_equal(z.v[3], 0x9b00dbd8u);
    sb_rng_block pi = sb_philox(0xa4093822u, 0x299f31d0u, 0x243f6a88u, 0x85a308d3u, 0x13198a2eu,
                                0x03707344u);
    assert_int_equal(pi.v[0], 0xd16cfe09u);
    assert_int_equal(pi.v[1], 0x94fdccebu);
    assert_int_equal(pi.v[2], 0x5001e420u);
    assert_int_equal(pi.v[3], 0x24126ea1u);
}

static void draws_are_keyed_and_reproducible(void **unused)
{
    (void)unused;
    pc_rules r = {.seed = 7, .ntypes = 1, .t_max = 240, .phi_min = 1};
    r.cum[0] = 1;
    r.mean[0] = 40;
    r.sd[0] = 20;
    double a = pc_division_time(&r, 12, 0, PC_DRAW_TIMER, 3, 5);
    assert_true(a == pc_division_time(&r, 12, 0, PC_DRAW_TIMER, 3, 5));
    assert_true(a > 0);
    /* every part of the key and counter changes the draw */
    assert_true(a != pc_division_time(&r, 13, 0, PC_DRAW_TIMER, 3, 5));
    assert_true(a != pc_division_time(&r, 12, 0, PC_DRAW_START, 3, 5));
    assert_true(a != pc_division_time(&r, 12, 0, PC_DRAW_TIMER, 4, 5));
    assert_true(a != pc_division_time(&r, 12, 0, PC_DRAW_TIMER, 3, 4));
    r.seed = 8;
    assert_true(a != pc_division_time(&r, 12, 0, PC_DRAW_TIMER, 3, 5));
}

static void uniforms_stay_in_range(void **unused)
{
    (void)unused;
    assert_true(sb_uniform(0, 0) == 0.0);
    assert_true(sb_uniform(0xffffffffu, 0xffffffffu) < 1.0);
    assert_true(sb_uniform_open0(0, 0) > 0.0);
    assert_true(sb_uniform_open0(0xffffffffu, 0xffffffffu) == 1.0);
}

static void deterministic_log_and_cos_are_accurate(void **unused)
{
    (void)unused;
    double worst_log = 0, worst_cos = 0;
    for (uint32_t i = 0; i < 200000; i++) {
        sb_rng_block b = sb_philox(i, 99, 1, 2, 3, 4);
        double u = sb_uniform_open0(b.v[0], b.v[1]);
        double err = fabs(det_log(u) - log(u)) / fabs(log(u) ? log(u) : 1);
        worst_log = err > worst_log ? err : worst_log;
        double v = sb_uniform(b.v[2], b.v[3]);
        double cerr = fabs(det_cos_2pi(v) - cos(2 * M_PI * v));
        worst_cos = cerr > worst_cos ? cerr : worst_cos;
    }
    assert_true(worst_log < 4e-16);
    assert_true(worst_cos < 2e-15); /* libm's own 2*pi*v carries ~1e-16 * 2pi of rounding */
    assert_true(det_log(1.0) == 0.0);
    assert_true(fabs(det_log(0x1p-53) + 53 * M_LN2) < 1e-13);
    assert_true(det_cos_2pi(0.0) == 1.0);
    assert_true(det_cos_2pi(0.5) == -1.0);
    assert_true(fabs(det_cos_2pi(0.25)) < 1e-16);
}

static void box_muller_is_standard_normal(void **unused)
{
    (void)unused;
    const int n = 400000;
    double sum = 0, sum2 = 0, sum4 = 0;
    for (int i = 0; i < n; i++) {
        sb_rng_block b = sb_philox((uint32_t)i, 5, 0, 0, 0, 0);
        double z = det_box_muller(sb_uniform_open0(b.v[0], b.v[1]), sb_uniform(b.v[2], b.v[3]));
        sum += z;
        sum2 += z * z;
        sum4 += z * z * z * z;
    }
    double mean = sum / n, var = sum2 / n - mean * mean, kurt = sum4 / n;
    /* 5 standard errors: sd(mean) = 1/sqrt(n), sd(var) = sqrt(2/n), sd(E z^4) = sqrt(96/n) */
    assert_true(fabs(mean) < 5 / sqrt(n));
    assert_true(fabs(var - 1) < 5 * sqrt(2.0 / n));
    assert_true(fabs(kurt - 3) < 5 * sqrt(96.0 / n));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(philox_known_answers),
        cmocka_unit_test(draws_are_keyed_and_reproducible),
        cmocka_unit_test(uniforms_stay_in_range),
        cmocka_unit_test(deterministic_log_and_cos_are_accurate),
        cmocka_unit_test(box_muller_is_standard_normal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
