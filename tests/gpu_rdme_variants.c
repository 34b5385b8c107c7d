/* GPU test: every GPU stage of RDME is bitwise equal to cpu-reference after K steps (final
 * lattice, counts over time per species and per z-plane, overflow and reaction totals): lattice
 * shapes that do not divide the tiles (x: 64 x 16, y/z: 32 x 32) and rows of whole 4-site quads
 * (packed32's sweeps go by quads there) and planes of at most 64 x 64 (gpu-fused sweeps x and y
 * of a plane in one kernel there), both edge kinds, both site formats, reactions
 * on and off, with and without overflow, several seeds, several site types with obstacles and
 * transitions; and the paper's scenarios for a few steps. */
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
#include "harness/measure.h"
#include "harness/variant.h"
#include "variants/rdme/model.h"
#include "rdme_fixture.h"

extern const sb_workload sb_workload_rdme;

/* each a stage and the parameter it runs with ("": the defaults): gpu-fused also with a graph
 * body of one step (on these small lattices its default is several, stopping mid-body at
 * overflows, samples and the end); one-pass also with a body of four steps (stopping after an
 * odd number moves the lattice back to its first buffer) */
static const struct {
    const char *name, *param;
} gpu_variants[] = {
    {"gpu", ""}, {"gpu-zero-copy-overflow", ""}, {"gpu-fused", ""}, {"gpu-fused", "graph_steps=1"},
    {"one-pass", ""}, {"one-pass", "graph_steps=4"},
};
static int device;

static const sb_params *params(const char *assignment)
{
    static sb_params p;
    sb_params_init(&p, sb_workload_rdme.params, sb_workload_rdme.nparams);
    if (*assignment && sb_params_assign(&p, assignment) != 0)
        fail_msg("%s: %s", assignment, sb_error());
    return &p;
}

static void run_variant(const char *name, const char *param, const rd_model *m, const int *dev,
                        rd_output *out)
{
    const sb_variant *v = sb_find_variant(&sb_workload_rdme, name);
    assert_non_null(v);
    assert_int_equal(rd_output_init(out, m), 0);
    if (sb_run_once(&sb_workload_rdme, v, m, params(param), dev, dev ? 1 : 0, out) != 0)
        fail_msg("%s: %s %s: %s", m->scenario, name, param, sb_error());
}

/* Runs every GPU stage against the reference; returns the reference's totals. */
static void check_all(const rd_model *m, uint64_t *overflowed, uint64_t *fired)
{
    rd_output ref;
    char why[512];
    run_variant("cpu-reference", "", m, NULL, &ref);
    for (size_t v = 0; v < sizeof gpu_variants / sizeof *gpu_variants; v++) {
        rd_output got;
        run_variant(gpu_variants[v].name, gpu_variants[v].param, m, &device, &got);
        if (!sb_workload_rdme.output_equal(m, &ref, &got, why, sizeof why))
            fail_msg("%s: %s %s differs from cpu-reference: %s", m->scenario,
                     gpu_variants[v].name, gpu_variants[v].param, why);
        rd_output_free(&got);
    }
    *overflowed = ref.overflow_particles;
    *fired = ref.reactions_fired;
    rd_output_free(&ref);
}

static void synthetic_lattices(void **unused)
{
    (void)unused;
    const synthetic cases[] = {
        {37, 21, 19, 0, RD_PACKED32, 0.3, 1, 3, 12},   /* nothing divides the blocks */
        {37, 21, 19, 1, RD_PACKED32, 0.3, 1, 3, 12},   /* periodic edges */
        {300, 5, 11, 0, RD_PACKED32, 1.5, 0, 1, 10},   /* two x blocks, the second partial */
        {300, 5, 11, 1, RD_BYTE16, 1.5, 0, 1, 10},
        {33, 9, 40, 0, RD_PACKED32, 4.5, 0, 1, 8},     /* crowded: overflow every step */
        {33, 9, 40, 1, RD_PACKED32, 4.0, 1, 3, 8},     /* crowded, reacting, types */
        {24, 17, 13, 0, RD_BYTE16, 11.0, 1, 3, 8},     /* byte16 crowded past 16 */
        {1, 1, 64, 1, RD_PACKED32, 2.0, 1, 1, 20},     /* degenerate axes (length 1, periodic) */
        {2, 3, 1, 1, RD_BYTE16, 3.0, 1, 1, 20},        /* axes of 2 and 1 */
        {64, 64, 16, 0, RD_PACKED32, 0.08, 1, 1, 30},  /* the paper's density, tiles that fit */
        /* rows of whole 4-site quads (packed32's sweeps go by quads) */
        {36, 21, 19, 1, RD_PACKED32, 0.3, 1, 3, 12},   /* periodic, partial tiles, types */
        {32, 9, 40, 0, RD_PACKED32, 4.5, 0, 1, 8},     /* crowded: overflow every step */
        {4, 3, 70, 1, RD_PACKED32, 2.0, 1, 1, 20},     /* one quad a row, periodic */
        {68, 12, 9, 1, RD_PACKED32, 0.5, 1, 3, 12},    /* x: a tile and a quad, periodic */
        {128, 20, 6, 1, RD_PACKED32, 0.3, 0, 1, 12},   /* x: two whole tiles, periodic */
        /* a whole plane a block (gpu-fused's x- and y-sweeps in one kernel) */
        {64, 64, 6, 1, RD_PACKED32, 0.5, 1, 3, 12},    /* 64 x 64, periodic, reacting, types */
        {20, 64, 7, 1, RD_PACKED32, 4.0, 0, 1, 8},     /* crowded: overflow in both sweeps */
        /* rows of at least 128 sites: the y- and z-sweeps by warp strips (sweep_strips) */
        {132, 37, 70, 0, RD_PACKED32, 0.3, 1, 3, 12},  /* a strip and a quad; partial segments */
        {256, 9, 41, 1, RD_PACKED32, 4.0, 1, 3, 8},    /* crowded, reacting, periodic */
        {160, 130, 5, 1, RD_PACKED32, 0.5, 0, 1, 12},  /* y: a block of strips and a partial one */
        {128, 33, 33, 0, RD_PACKED32, 1.0, 0, 3, 12},  /* segments of one row after 32 */
    };
    int n = 0, with_overflow = 0, with_reactions = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (uint32_t seed = 1; seed <= 3; seed++) {
            rd_model *m = build(&cases[i], seed * 7919u);
            uint64_t overflowed, fired;
            check_all(m, &overflowed, &fired);
            with_overflow += overflowed > 0;
            with_reactions += fired > 0;
            n++;
            rd_model_free(m);
            free(m);
        }
    printf("%d synthetic cases x %zu GPU runs (stages, settings) bitwise equal to cpu-reference "
           "(%d with overflow, %d with reactions)\n",
           n, sizeof gpu_variants / sizeof *gpu_variants, with_overflow, with_reactions);
    assert_true(with_overflow >= 12);
    assert_true(with_reactions >= 15);
}

/* The paper's experiments, a few steps each, through the same builder users get. */
static void scenarios(void **unused)
{
    (void)unused;
    const struct {
        const char *scenario, *cell;
        double spacing;
        long long particles, steps;
        rd_site_format format;
    } cases[] = {
        {"homogeneous", "ecoli", 16, -1, 10, RD_PACKED32},
        {"homogeneous", "ecoli", 16, -1, 10, RD_BYTE16},
        {"particles", "ecoli", 16, 3000000, 3, RD_PACKED32},
        {"reactions", "ecoli", 16, -1, 5, RD_PACKED32},
        {"barrier", "ecoli", 16, -1, 3, RD_PACKED32},
        {"min-system", "ecoli", 16, -1, 40, RD_PACKED32},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rd_model m;
        rd_scenario_args a = {cases[i].scenario, NULL, cases[i].cell, cases[i].spacing,
                              cases[i].particles, 6};
        if (rd_build_scenario(&m, &a, cases[i].format, 11, cases[i].steps, 2) != 0)
            fail_msg("%s: %s", cases[i].scenario, sb_error());
        uint64_t overflowed, fired;
        check_all(&m, &overflowed, &fired);
        printf("%s (%s): equal; %llu overflowed, %llu reactions\n", m.scenario,
               cases[i].format == RD_PACKED32 ? "packed32" : "byte16",
               (unsigned long long)overflowed, (unsigned long long)fired);
        rd_model_free(&m);
    }
}

int main(void)
{
    if (sb_device_count() == 0) {
        printf("SKIPPED: %s\n", sb_no_device_reason());
        return 77;
    }
    device = 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(synthetic_lattices),
        cmocka_unit_test(scenarios),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
