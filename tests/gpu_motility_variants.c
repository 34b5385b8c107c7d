/* GPU test: every GPU stage of motility against cpu-reference, in its first run and in a later
 * (timed) one: fp64 stages within rtol (1e-12) on M_b, coarse, M_f, F, Psi and u with the same
 * inner steps; the mixed-precision ones within 1e-4 on M_b and 1e-3 on the rest (the spec's
 * bounds). The measured largest differences are printed per stage. On the GPU's own output,
 * motors are conserved per tail (coarse + M_f = M_tot) and M_b >= 0. The cases cover both inner
 * resolutions, rings and random Psi, the original's global AB2 (every stage runs it too) with
 * M_b moved in many pieces, and the multi-GPU split into row slices (3, or one more than the
 * GPUs from 3 GPUs on), for both multi-GPU stages (the host's macro and GPU 0's). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/devinfo.h"
#include "motility_fixture.h"

/* The GPUs in use: device 0 alone, or the first N when the test is started with N (the
 * multi-GPU stages alone on N GPUs; 77 with fewer). */
static int devices[SB_MAX_DEVICES], ndevices = 1;
static int multi_only; /* the multi-GPU stages alone, or every GPU stage */
/* each multi-GPU stage and the one-GPU stage it splits */
static const char *const pairs[][2] = {{"multi-gpu", "optimized"},
                                       {"multi-gpu-macro", "gpu-macro"}};
/* multi-gpu's row slices: 3 (an uneven split) on fewer GPUs, one more than the GPUs on more */
static char slices[32];

/* The largest |got - ref| / max(|ref|, mean |ref|) of n entries: the measure output_equal
 * bounds. */
static double worst(const double *ref, const double *got, size_t n)
{
    double mean = 0, w = 0;
    for (size_t e = 0; e < n; e++)
        mean += fabs(ref[e]) / n;
    for (size_t e = 0; e < n; e++)
        w = fmax(w, fabs(got[e] - ref[e]) / fmax(fabs(ref[e]), mean));
    return w;
}

static void assert_conserved(const mm_model *m, const mm_output *o, const char *variant)
{
    double slack = o->mixed ? 1e-6 : 1e-12;
    for (size_t c = 0; c < o->cells; c++)
        if (!(fabs(o->coarse[c] + o->m_f[c] - m->m_tot[c]) <= slack * m->m_tot[c]))
            fail_msg("%s: %s: tail %zu holds coarse %.17g + M_f %.17g, M_tot %.17g", m->scenario,
                     variant, c, o->coarse[c], o->m_f[c], m->m_tot[c]);
    for (size_t e = 0; e < o->bound; e++)
        if (!(o->m_b[e] >= 0))
            fail_msg("%s: %s: M_b[%zu] = %g", m->scenario, variant, e, o->m_b[e]);
}

/* The stage run twice, both outputs against the reference. */
static void check_runs(const mm_model *m, const sb_params *p, const sb_variant *v,
                       const mm_output *ref)
{
    sb_session s;
    mm_output *got = sb_workload_motility.output_new(m);
    assert_non_null(got);
    sb_workload_motility.output_poison(got);
    char why[512];
    int rc = sb_session_open(&s, &sb_workload_motility, v, m, p, devices, ndevices);
    if (rc != 0)
        fail_msg("%s: %s: %s", m->scenario, v->name, sb_error());
    rc = sb_session_validate(&s, ref, got, why, sizeof why);
    if (rc != 0)
        fail_msg("%s: %s: %s", m->scenario, v->name, rc == 1 ? why : sb_error());
    assert_conserved(m, got, v->name);
    printf("  %-31s %s  M_b %.1e  coarse %.1e  M_f %.1e  F %.1e  Psi %.1e  u %.1e  steps %lld\n",
           v->name, got->mixed ? "fp32" : "fp64", worst(ref->m_b, got->m_b, ref->bound),
           worst(ref->coarse, got->coarse, ref->cells), worst(ref->m_f, got->m_f, ref->cells),
           worst(ref->force, got->force, 2 * ref->cells),
           worst(ref->psi, got->psi, ref->psi_size), worst(ref->u, got->u, 2 * ref->cells),
           got->inner_steps - ref->inner_steps);
    sb_workload_motility.output_poison(got);
    double t, wall;
    if (sb_session_sample(&s, &t, &wall) != 0 || v->ops->output(s.state, got) != 0)
        fail_msg("%s: %s, second run: %s", m->scenario, v->name, sb_error());
    if (!sb_workload_motility.output_equal(m, ref, got, why, sizeof why))
        fail_msg("%s: %s's second run differs from cpu-reference: %s", m->scenario, v->name, why);
    sb_session_close(&s);
    sb_workload_motility.output_free(got);
}

static void check_case(const char *a, const char *b, const char *c, const char *d, const char *e)
{
    const sb_params *p = motility_params(a, b, c, d, e, NULL);
    mm_model *m = motility_load(p);
    mm_output *ref = motility_run("cpu-reference", m, p);
    printf("%d^2 x %d^2, %s, %lld steps%s%s: %lld inner steps; each stage's largest relative "
           "difference to cpu-reference, and its inner steps more:\n",
           m->n_outer, m->n_inner, sb_param_text(p, "init"), m->steps,
           m->global_dt ? ", global dt*" : "", m->ab2 ? ", AB2" : "", ref->inner_steps);
    int checked = 0;
    for (int v = 0; v < sb_workload_motility.nvariants; v++) {
        const sb_variant *var = &sb_workload_motility.variants[v];
        int multi = 0;
        for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++)
            multi |= strcmp(var->name, pairs[k][0]) == 0;
        if (!(var->needs & SB_NEEDS_GPU) || (multi_only && !multi))
            continue;
        if (strcmp(var->name, "original") == 0 && !(m->global_dt && m->ab2))
            continue; /* the original is the global AB2 algorithm only */
        if ((strcmp(var->name, "gpu-macro") == 0 || strcmp(var->name, "multi-gpu-macro") == 0) &&
            m->global_dt)
            continue; /* local inner steps only: a global one is a host round trip */
        check_runs(m, p, var, ref);
        checked++;
    }
    printf("  %d GPU stages agree\n", checked);
    motility_free(m, ref);
}

static void rings(void **unused)
{
    (void)unused;
    check_case("outer=16", "inner=16", "steps=3", slices, NULL);
}

static void random_inner32(void **unused)
{
    (void)unused;
    check_case("outer=12", "inner=32", "steps=2", "init=random", slices);
}

/* The original's algorithm, M_b through the GPU 37 tails at a time (7 pieces and a short one);
 * the other stages run the same algorithm resident. */
static void global_ab2(void **unused)
{
    (void)unused;
    check_case("outer=16", "steps=3", "inner_dt=global", "integrator=ab2", "piece_tails=37");
}

/* Each multi-GPU stage against the stage it splits, on one GPU: the same kernels on the same
 * tails, so they differ only by the order of the force's sums (and what that moves): within
 * 1e-5, printed. */
static void multi_vs_one(void **unused)
{
    (void)unused;
    const sb_params *p = motility_params("outer=24", "steps=3", "init=random", slices, NULL);
    mm_model *m = motility_load(p);
    const sb_workload *w = &sb_workload_motility;
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++) {
        mm_output *one = w->output_new(m), *many = w->output_new(m);
        assert_true(one && many);
        w->output_poison(one);
        w->output_poison(many);
        if (sb_run_once(w, sb_find_variant(w, pairs[k][1]), m, p, devices, 1, one) != 0 ||
            sb_run_once(w, sb_find_variant(w, pairs[k][0]), m, p, devices, ndevices, many) != 0)
            fail_msg("multi_vs_one: %s: %s", pairs[k][0], sb_error());
        double d[6] = {worst(one->m_b, many->m_b, one->bound),
                       worst(one->coarse, many->coarse, one->cells),
                       worst(one->m_f, many->m_f, one->cells),
                       worst(one->force, many->force, 2 * one->cells),
                       worst(one->psi, many->psi, one->psi_size),
                       worst(one->u, many->u, 2 * one->cells)};
        printf("%s (%d GPU%s, %s) vs %s on one GPU: M_b %.1e coarse %.1e M_f %.1e F %.1e Psi "
               "%.1e u %.1e, inner steps %lld vs %lld\n",
               pairs[k][0], ndevices, ndevices > 1 ? "s" : "", slices, pairs[k][1], d[0], d[1],
               d[2], d[3], d[4], d[5], many->inner_steps, one->inner_steps);
        for (int e = 0; e < 6; e++)
            assert_true(d[e] <= 1e-5);
        assert_true(many->inner_steps == one->inner_steps);
        w->output_free(one);
        w->output_free(many);
    }
    motility_free(m, NULL);
}

int main(int argc, char **argv)
{
    int have = sb_device_count();
    ndevices = argc > 1 ? atoi(argv[1]) : 1;
    if (have == 0 || ndevices > have) {
        printf("SKIPPED: %s\n", have == 0 ? sb_no_device_reason() : "needs more GPUs");
        if (have > 0)
            printf("needs %d GPUs, this machine has %d\n", ndevices, have);
        return 77;
    }
    for (int i = 0; i < ndevices; i++)
        devices[i] = i;
    snprintf(slices, sizeof slices, "slices=%d", ndevices < 3 ? 3 : ndevices + 1);
    const struct CMUnitTest every_stage[] = {
        cmocka_unit_test(rings),
        cmocka_unit_test(random_inner32),
        cmocka_unit_test(global_ab2),
        cmocka_unit_test(multi_vs_one),
    };
    const struct CMUnitTest multi[] = {
        cmocka_unit_test(rings),
        cmocka_unit_test(random_inner32),
        cmocka_unit_test(multi_vs_one),
    };
    if (ndevices == 1)
        return cmocka_run_group_tests(every_stage, NULL, NULL);
    multi_only = 1;
    return cmocka_run_group_tests(multi, NULL, NULL);
}
