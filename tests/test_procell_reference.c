/* The CPU reference against what can be known without it: closed forms with sigma = 0,
 * conservation of fluorescence with phi_min = 0, quiescent cells, the type split (multinomial);
 * and cpu-openmp bitwise equal to it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "cuda/base/error.h"
#include "procell_fixture.h"
#include "variants/procell/fate.h"

static pc_rules one_type(double mean, double sd)
{
    pc_rules r;
    memset(&r, 0, sizeof r);
    r.ntypes = 1;
    r.cum[0] = 1.0;
    r.mean[0] = mean;
    r.sd[0] = sd;
    return r;
}

static unsigned long long count_at(const pc_model *m, const pc_output *o, double f)
{
    int bin = pc_omega_search(m->omega, m->nomega, f);
    return bin < 0 ? 0 : o->counts[bin];
}

/* sigma = 0, synchronous: T = mu exactly, so a cell divides floor(t_max/mu) = k times unless a
 * daughter would fall to phi_min or below, when its lineage vanishes at the first such division. */
static void sigma_zero_matches_the_closed_form(void **unused)
{
    (void)unused;
    const double mu = 10, t_max = 35, phi_min = 20; /* k = 3 (t_max/mu = 3.5) */
    pc_histogram_row rows[] = {{1000, 3}, {100, 2}, {50, 4}, {30, 5}};
    pc_rules r = one_type(mu, 0);
    pc_model *m = fixture_model(rows, 4, NULL, &r, t_max, phi_min, 0, 11, 1);
    assert_non_null(m);
    pc_output o;
    assert_int_equal(fixture_run("cpu-reference", m, NULL, 0, &o), 0);
    /* 1000: 125 > 20, three divisions, 8 cells at 125. 100: 50 and 25 > 20 but 12.5 is not:
     * two generations of divisions, then 4 lineages vanish. 50: one division, 2 vanish.
     * 30: 15 <= 20, vanishes at once. */
    assert_int_equal(count_at(m, &o, 125.0), 3 * 8);
    assert_int_equal(count_at(m, &o, 12.5), 0);
    unsigned long long terminal = 3 * 8;
    unsigned long long divisions = 3 * 7 + 2 * 3 + 4 * 1;
    unsigned long long vanished = 2 * 4 + 4 * 2 + 5 * 1;
    assert_int_equal(o.terminal, terminal);
    assert_int_equal(o.divisions, divisions);
    assert_int_equal(o.vanished, vanished);
    pc_output_free(&o);
    fixture_free(m);
}

/* phi_min = 0: no lineage vanishes and halving is exact, so each row's fluorescence is conserved
 * exactly: sum over generations g of count(phi/2^g) / 2^g == the row's count. Rows are chosen so
 * that no value of one row is a power-of-two multiple of another's. */
static void fluorescence_is_conserved_without_threshold(void **unused)
{
    (void)unused;
    pc_histogram_row rows[] = {{1000, 40}, {1300, 25}, {1700, 30}};
    for (int async = 0; async <= 1; async++) {
        pc_rules r = one_type(20, 6);
        pc_model *m = fixture_model(rows, 3, NULL, &r, 150, 0, async, 3, 1);
        assert_non_null(m);
        pc_output o;
        assert_int_equal(fixture_run("cpu-reference", m, NULL, 0, &o), 0);
        assert_int_equal(o.vanished, 0);
        assert_true(o.divisions > 0);
        for (int i = 0; i < 3; i++) {
            double sum = 0, f = rows[i].phi, scale = 1;
            for (int g = 0; g <= PC_MAX_GEN; g++, f *= 0.5, scale *= 0.5)
                sum += (double)count_at(m, &o, f) * scale;
            assert_true(sum == (double)rows[i].count);
        }
        assert_int_equal(o.terminal, o.divisions + 95);
        pc_output_free(&o);
        fixture_free(m);
    }
}

static void quiescent_cells_keep_their_fluorescence(void **unused)
{
    (void)unused;
    pc_histogram_row rows[64];
    fixture_rows(rows, 64, 5, 9);
    pc_rules r = one_type(0, 0);
    r.quiescent[0] = 1;
    pc_model *m = fixture_model(rows, 64, NULL, &r, 1000, -1, 1, 5, 1);
    assert_non_null(m);
    pc_output o;
    assert_int_equal(fixture_run("cpu-reference", m, NULL, 0, &o), 0);
    assert_int_equal(o.divisions, 0);
    assert_int_equal(o.vanished, 0);
    for (int i = 0; i < 64; i++)
        assert_int_equal(count_at(m, &o, rows[i].phi), rows[i].count);
    pc_output_free(&o);
    fixture_free(m);
}

/* The type of each root is a multinomial draw: chi-square against the proportions. m3 has three
 * types: 2 degrees of freedom, critical value 13.82 at p = 0.001. */
static void type_split_is_multinomial(void **unused)
{
    (void)unused;
    pc_histogram_row rows[] = {{500, 120000}};
    pc_model *m = fixture_model(rows, 1, "m3", NULL, 240, -1, 1, 17, 1);
    assert_non_null(m);
    double observed[PC_MAX_TYPES] = {0}, chi2 = 0, previous = 0;
    for (uint32_t root = 0; root < m->nroots; root++)
        observed[pc_root_type(&m->rules, root)] += 1;
    for (int j = 0; j < m->rules.ntypes; j++) {
        double expected = (m->rules.cum[j] - previous) * (double)m->nroots;
        previous = m->rules.cum[j];
        chi2 += (observed[j] - expected) * (observed[j] - expected) / expected;
    }
    assert_true(chi2 < 13.82);
    fixture_free(m);
}

static void openmp_equals_the_reference(void **unused)
{
    (void)unused;
    pc_histogram_row rows[300];
    fixture_rows(rows, 300, 9, 12);
    const char *types[] = {"m4", "m2"};
    for (uint32_t seed = 1; seed <= 3; seed++)
        for (int async = 0; async <= 1; async++)
            for (int t = 0; t < 2; t++) {
                pc_model *m = fixture_model(rows, 300, types[t], NULL, 240, seed == 2 ? 11.0 : -1,
                                            async, seed, 1);
                assert_non_null(m);
                pc_output ref, got;
                char why[512];
                assert_int_equal(fixture_run("cpu-reference", m, NULL, 0, &ref), 0);
                assert_int_equal(fixture_run("cpu-openmp", m, NULL, 0, &got), 0);
                if (!sb_workload_procell.output_equal(m, &ref, &got, why, sizeof why))
                    fail_msg("seed %u async %d %s: %s", seed, async, types[t], why);
                assert_true(ref.terminal > 0);
                pc_output_free(&ref);
                pc_output_free(&got);
                fixture_free(m);
            }
}

static void a_difference_is_reported(void **unused)
{
    (void)unused;
    pc_histogram_row rows[] = {{100, 10}, {300, 10}};
    pc_model *m = fixture_model(rows, 2, "m1", NULL, 240, -1, 1, 1, 1);
    pc_output a, b;
    char why[512];
    assert_int_equal(fixture_run("cpu-reference", m, NULL, 0, &a), 0);
    assert_int_equal(fixture_run("cpu-reference", m, NULL, 0, &b), 0);
    assert_true(sb_workload_procell.output_equal(m, &a, &b, why, sizeof why));
    b.counts[m->nomega - 1] += 1;
    assert_false(sb_workload_procell.output_equal(m, &a, &b, why, sizeof why));
    assert_non_null(strstr(why, "fluorescence 300"));
    pc_output_free(&a);
    pc_output_free(&b);
    fixture_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sigma_zero_matches_the_closed_form),
        cmocka_unit_test(fluorescence_is_conserved_without_threshold),
        cmocka_unit_test(quiescent_cells_keep_their_fluorescence),
        cmocka_unit_test(type_split_is_multinomial),
        cmocka_unit_test(openmp_equals_the_reference),
        cmocka_unit_test(a_difference_is_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
