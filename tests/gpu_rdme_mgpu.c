/* GPU test: the multi-GPU stages of RDME give the one-GPU lattice bit for bit, whatever the
 * decomposition (final lattice, counts per species and per z-plane over time, overflow and
 * reaction totals).
 *
 *   gpu_rdme_mgpu 1   lattices split into 1 to 4 slabs on one GPU, every exchange stage but NCCL
 *                     (one rank per GPU): boundaries that are and are not whole z tiles, slabs
 *                     of a single plane, both edge kinds, overflow, reactions, rebalancing;
 *   gpu_rdme_mgpu N   N GPUs, any N (exit 77, SKIPPED, on fewer): every stage, NCCL included,
 *                     one slab per GPU, and one more slab than GPUs for the others (up to
 *                     RD_MAX_SLABS); rebalancing.
 * Rebalancing is forced by a skewed initial split (split=) on a lattice large enough that a
 * GPU's step time follows its planes: on two GPUs or more the balancer must move the split, and
 * the lattice must come out the same. */
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
#include "rdme_fixture.h"
#include "variants/rdme/model.h"
#include "variants/rdme/partition.h"

extern const sb_workload sb_workload_rdme;

static const char *exchange_stages[] = {"mgpu-staged", "mgpu-peer", "mgpu-peer-overlap",
                                        "mgpu-balanced", "mgpu-nccl", "gpu-graph", "mpi"};
#define NSTAGES (sizeof exchange_stages / sizeof *exchange_stages)
static int ngpus; /* GPUs the test uses: 1, or the N asked for */
static int devices[SB_MAX_DEVICES];

static void set(sb_params *p, const char *name, const char *fmt, ...)
{
    char value[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    if (sb_params_set(p, name, value) != 0)
        fail_msg("%s=%s: %s", name, value, sb_error());
}

static void params_for(sb_params *p, int slabs)
{
    sb_params_init(p, sb_workload_rdme.params, sb_workload_rdme.nparams);
    set(p, "gpus", "%d", ngpus);
    set(p, "slabs", "%d", slabs);
    set(p, "balance_steps", "2");
    set(p, "balance_threshold", "0");
}

static void run(const char *variant, const rd_model *m, const sb_params *p, int ndev,
                rd_output *out)
{
    const sb_variant *v = sb_find_variant(&sb_workload_rdme, variant);
    assert_non_null(v);
    assert_int_equal(rd_output_init(out, m), 0);
    if (sb_run_once(&sb_workload_rdme, v, m, p, devices, ndev, out) != 0)
        fail_msg("%s: %s: %s", m->scenario, variant, sb_error());
}

/* Runs `stage` on `slabs` slabs and compares with ref; 1 when it ran. */
static int check(const char *stage, const rd_model *m, int slabs, const rd_output *ref)
{
    int nccl = strcmp(stage, "mgpu-nccl") == 0;
    if (nccl && slabs != ngpus)
        return 0; /* one NCCL rank per GPU */
    if (strcmp(stage, "mpi") == 0 && slabs != 1)
        return 0; /* in this one process: one slab (tests/mpi_rdme.sh runs it under mpirun) */
    if (slabs > m->nz)
        return 0;
    sb_params p;
    params_for(&p, slabs);
    rd_output got;
    char why[512];
    run(stage, m, &p, ngpus, &got);
    if (!sb_workload_rdme.output_equal(m, ref, &got, why, sizeof why))
        fail_msg("%s: %s on %d slabs over %d GPUs differs from cpu-reference: %s", m->scenario,
                 stage, slabs, ngpus, why);
    rd_output_free(&got);
    return 1;
}

static void synthetic_lattices(void **unused)
{
    (void)unused;
    const synthetic cases[] = {
        {37, 21, 19, 0, RD_PACKED32, 0.3, 1, 3, 12},  /* nothing divides; slabs of 4-5 planes */
        {37, 21, 19, 1, RD_PACKED32, 0.3, 1, 3, 12},  /* periodic: the end slabs are neighbours */
        {33, 9, 40, 0, RD_PACKED32, 4.5, 0, 1, 8},    /* crowded: overflow every step */
        {33, 9, 40, 1, RD_PACKED32, 4.0, 1, 3, 8},    /* crowded, reacting, periodic */
        {24, 17, 13, 0, RD_BYTE16, 11.0, 1, 3, 8},    /* byte16 crowded past 16 */
        {1, 1, 64, 1, RD_PACKED32, 2.0, 1, 1, 20},    /* a column: 16-plane slabs */
        {5, 3, 4, 1, RD_BYTE16, 3.0, 1, 1, 20},       /* four slabs of one plane each */
        {48, 40, 100, 0, RD_PACKED32, 0.5, 1, 3, 12}, /* z tiles of 32 and a partial one */
        {48, 40, 100, 1, RD_BYTE16, 0.5, 1, 3, 12},
        {64, 64, 70, 0, RD_PACKED32, 0.08, 1, 1, 30}, /* the paper's density */
        /* rows of whole 4-site quads (packed32's sweeps go by quads), periodic */
        {36, 21, 19, 1, RD_PACKED32, 0.3, 1, 3, 12},
        {32, 9, 40, 1, RD_PACKED32, 4.0, 1, 3, 8},    /* crowded, reacting */
        {128, 20, 100, 1, RD_PACKED32, 0.5, 1, 3, 12}, /* z by warp strips, periodic slabs */
        {132, 9, 70, 0, RD_PACKED32, 4.0, 1, 3, 8},   /* z by warp strips, crowded */
    };
    int n = 0, runs = 0, with_overflow = 0, with_reactions = 0;
    int first = ngpus == 1 ? 1 : ngpus;
    int last = ngpus == 1 ? 4 : ngpus < RD_MAX_SLABS ? ngpus + 1 : ngpus;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (uint32_t seed = 1; seed <= 2; seed++) {
            rd_model *m = build(&cases[i], seed * 104729u);
            rd_output ref;
            run("cpu-reference", m, NULL, 0, &ref);
            for (int slabs = first; slabs <= last; slabs++)
                for (size_t s = 0; s < NSTAGES; s++)
                    runs += check(exchange_stages[s], m, slabs, &ref);
            with_overflow += ref.overflow_particles > 0;
            with_reactions += ref.reactions_fired > 0;
            n++;
            rd_output_free(&ref);
            rd_model_free(m);
            free(m);
        }
    printf("%d synthetic lattices, %d runs of the exchange stages on %d-%d slabs over %d GPU%s: "
           "all bitwise equal to cpu-reference (%d lattices with overflow, %d with reactions)\n",
           n, runs, first, last, ngpus, ngpus == 1 ? "" : "s", with_overflow, with_reactions);
    assert_true(with_overflow >= 6);
    assert_true(with_reactions >= 12);
}

/* A split far from the equal one on a lattice whose step time follows the planes: the balancer
 * moves it (the report's split series changes) and the lattice equals the one-GPU stage's. */
static void rebalancing(void **unused)
{
    (void)unused;
    const synthetic big = {128, 128, 256, 0, RD_PACKED32, 0.3, 1, 3, 24};
    rd_model *m = build(&big, 7u);
    rd_output ref;
    run("gpu", m, NULL, 1, &ref);
    int slabs = ngpus == 1 ? 2 : ngpus;
    const char *stages[] = {"mgpu-balanced", "mgpu-nccl"};
    for (size_t s = 0; s < 2; s++) {
        sb_params p;
        params_for(&p, slabs);
        set(&p, "balance_steps", "4");
        set(&p, "balance_threshold", "0.05");
        /* two slabs: the first starved (32 planes); more: the first overloaded, the others
         * holding half the planes between them (32 each at most), so that the first boundary,
         * the one the report follows, has to move whatever the GPU count */
        int other = slabs == 2 ? 224 : 128 / (slabs - 1) < 32 ? 128 / (slabs - 1) : 32;
        char split[128];
        int n = snprintf(split, sizeof split, "%d", 256 - other * (slabs - 1));
        for (int i = 1; i < slabs; i++)
            n += snprintf(split + n, sizeof split - (size_t)n, ",%d", other);
        set(&p, "split", "%s", split);
        const sb_variant *v = sb_find_variant(&sb_workload_rdme, stages[s]);
        sb_session session;
        int rc = sb_session_open(&session, &sb_workload_rdme, v, m, &p, devices, ngpus);
        if (rc == SB_REFUSED && s == 1 && slabs != ngpus)
            continue;
        if (rc != 0)
            fail_msg("%s: %s", stages[s], sb_error());
        rd_output got;
        char why[512];
        assert_int_equal(rd_output_init(&got, m), 0);
        rc = sb_session_validate(&session, &ref, &got, why, sizeof why);
        if (rc != 0)
            fail_msg("%s from split %s: %s", stages[s], split, rc == 1 ? why : sb_error());
        sb_report r;
        memset(&r, 0, sizeof r);
        v->ops->report(session.state, &r);
        assert_true(r.nseries == 1);
        const sb_series *z = &r.series[0];
        int moves = 0;
        for (int k = 1; k < z->n; k++)
            moves += z->y[k] != z->y[k - 1];
        printf("%s on %d slabs over %d GPU%s, split %s: first boundary", stages[s], slabs,
               ngpus, ngpus == 1 ? "" : "s", split);
        for (int k = 0; k < z->n; k++)
            printf(" %.0f", z->y[k]);
        printf(" (%d moves); bitwise equal to gpu\n", moves);
        /* slabs sharing a GPU interleave their kernels and take as long as each other: there the
         * balancer rightly sees no imbalance */
        if (ngpus > 1)
            assert_true(moves >= 1);
        rd_output_free(&got);
        sb_session_close(&session);
    }
    rd_output_free(&ref);
    rd_model_free(m);
    free(m);
}

int main(int argc, char **argv)
{
    int want = argc > 1 ? atoi(argv[1]) : 1;
    int have = sb_device_count();
    if (have == 0) {
        printf("SKIPPED: %s\n", sb_no_device_reason());
        return 77;
    }
    if (want > have) {
        printf("SKIPPED: needs %d GPUs, this machine has %d\n", want, have);
        return 77;
    }
    ngpus = want < 1 ? 1 : want;
    for (int i = 0; i < ngpus; i++)
        devices[i] = i;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(synthetic_lattices),
        cmocka_unit_test(rebalancing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
