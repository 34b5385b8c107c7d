/* GPU test: the deterministic math and the ProCell draws give the same bits on the device as on
 * the host, over a million keyed inputs plus the edges of the ranges. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/devinfo.h"
#include "cuda/base/error.h"
#include "variants/procell/fate.h"

int detmath_on_device(const double *u1, const double *u2, int n, double *out);

static void host_values(const double *u1, const double *u2, int i, double *out)
{
    pc_rules r;
    memset(&r, 0, sizeof r);
    r.seed = 2024;
    r.ntypes = 2;
    r.cum[0] = 0.3;
    r.cum[1] = 1.0;
    r.mean[0] = 44.2;
    r.sd[0] = 19.5;
    r.mean[1] = 83.9;
    r.sd[1] = 26.6;
    out[0] = det_log(u1[i]);
    out[1] = det_cos_2pi(u2[i]);
    out[2] = det_box_muller(u1[i], u2[i]);
    out[3] = pc_division_time(&r, (uint32_t)i, i & 1, PC_DRAW_TIMER, i % 11, (uint64_t)i * 3);
    r.async_start = 1;
    out[4] = pc_start_time(&r, (uint32_t)i, pc_root_type(&r, (uint32_t)i));
}

static void host_equals_device_bitwise(void **unused)
{
    (void)unused;
    const int n = 1 << 20;
    double *u1 = malloc(n * sizeof *u1), *u2 = malloc(n * sizeof *u2);
    double *dev = malloc(5 * (size_t)n * sizeof *dev);
    assert_non_null(u1);
    assert_non_null(u2);
    assert_non_null(dev);
    for (int i = 0; i < n; i++) {
        sb_rng_block b = sb_philox((uint32_t)i, 31, 7, 0, 0, 0);
        u1[i] = sb_uniform_open0(b.v[0], b.v[1]);
        u2[i] = sb_uniform(b.v[2], b.v[3]);
    }
    /* edges: the smallest and largest uniforms, octant boundaries of the cosine */
    u1[0] = 0x1p-53;
    u1[1] = 1.0;
    u1[2] = 0.5;
    const double edges[] = {0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1 - 0x1p-53};
    for (int k = 0; k < 9; k++)
        u2[3 + k] = edges[k];
    if (detmath_on_device(u1, u2, n, dev) != 0)
        fail_msg("%s", sb_error());
    long mismatches = 0;
    for (int i = 0; i < n; i++) {
        double host[5];
        host_values(u1, u2, i, host);
        for (int k = 0; k < 5; k++)
            if (memcmp(&host[k], &dev[5 * (size_t)i + k], sizeof(double)) != 0 &&
                mismatches++ < 5)
                printf("input %d quantity %d: host %.17g device %.17g\n", i, k, host[k],
                       dev[5 * (size_t)i + k]);
    }
    assert_int_equal(mismatches, 0);
    free(u1);
    free(u2);
    free(dev);
}

int main(void)
{
    if (sb_device_count() == 0) {
        printf("SKIPPED: %s\n", sb_no_device_reason());
        return 77;
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(host_equals_device_bitwise)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
