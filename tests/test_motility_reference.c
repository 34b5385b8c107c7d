/* The motility CPU stages (variants/motility/) against what is known without them: motors
 * conserved per tail and M_b >= 0, the scaling rule, the Superbee limiter, TVD s-advection whose
 * error falls with N_i, local against global inner steps and RK2 against AB2 within the time
 * discretization's error, the fluid against single modes solved by hand and divergence-free,
 * cpu-openmp against cpu-reference (1e-12, any number of threads), and the errors a user meets. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fftw3.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "motility_fixture.h"
#include "variants/motility/fluid.h"
#include "variants/motility/host.h"
#include "variants/motility/physics.h"

/* A tail's coarse density recomputed from the output's M_b and Psi. */
static double coarse_of(const mm_model *m, const mm_output *o, int r0)
{
    int n = m->n_outer, ni = m->n_inner, i0 = r0 % n, j0 = r0 / n;
    const double *tail = o->m_b + (size_t)r0 * m->window * ni * ni;
    double sum = 0;
    for (int w = 0; w < m->window; w++) {
        int c = mm_wrap(i0 + w % m->side - m->half, n) +
                n * mm_wrap(j0 + w / m->side - m->half, n);
        for (int k = 0; k < ni; k++)
            for (int s = 0; s < ni; s++)
                sum += o->psi[(size_t)c * ni + k] * tail[((size_t)w * ni + k) * ni + s];
    }
    return sum * m->dtheta * m->ds;
}

/* After a run: every tail's coarse density is its M_b weighted by Psi, at most M_tot, and with
 * M_f adds up to M_tot; M_b >= 0 everywhere and zero on lines that never meet the capture disc
 * and upstream of it; Psi >= 0 and the filaments conserved. And the run does something: motors
 * bind, filaments move. */
static void motors_conserved(void **unused)
{
    (void)unused;
    const char *inits[] = {"init=rings", "init=random"};
    for (int v = 0; v < 2; v++) {
        const sb_params *p =
            motility_params("outer=16", "inner=16", "steps=8", "ring_radius=4", inits[v], NULL);
        mm_model *m = motility_load(p);
        mm_output *o = motility_run("cpu-reference", m, p);
        int ni = m->n_inner;
        double worst = 0, bound = 0, motors = 0, filaments = 0, filaments0 = 0, moved = 0;
        for (size_t r0 = 0; r0 < o->cells; r0++) {
            double coarse = coarse_of(m, o, (int)r0);
            worst = fmax(worst, fabs(coarse - o->coarse[r0]) / m->m_tot[r0]);
            assert_true(o->coarse[r0] <= m->m_tot[r0]);
            assert_true(o->m_f[r0] >= 0);
            assert_true(fabs(o->coarse[r0] + o->m_f[r0] - m->m_tot[r0]) <= 1e-15 * m->m_tot[r0]);
            bound += o->coarse[r0];
            motors += m->m_tot[r0];
        }
        for (size_t e = 0; e < o->bound; e++) {
            size_t line = e / ni % ((size_t)m->window * ni);
            int s = (int)(e % ni);
            assert_true(o->m_b[e] >= 0);
            if (s < m->line_first[line])
                assert_true(o->m_b[e] == 0);
        }
        for (size_t e = 0; e < o->psi_size; e++) {
            assert_true(o->psi[e] >= 0);
            filaments += o->psi[e] * m->dtheta;
            filaments0 += m->psi0[e] * m->dtheta;
            moved += fabs(o->psi[e] - m->psi0[e]) * m->dtheta;
        }
        printf("%s: coarse within %.2g of sum M_b Psi; %.1f%% of motors bound; filaments %.15g "
               "(start %.15g); %.1f%% of Psi moved\n",
               m->scenario, worst, 100 * bound / motors, filaments, filaments0,
               100 * moved / filaments0);
        assert_true(worst <= 1e-13);
        assert_true(bound / motors > 0.2);
        assert_true(fabs(filaments - filaments0) <= 1e-12 * filaments0);
        assert_true(moved / filaments0 > 0.01);
        motility_free(m, o);
    }
}

/* More motors bound than the tail has: the step scales every configuration down alike, and the
 * coarse density is then M_tot exactly, M_f zero. */
static void scaling_rule(void **unused)
{
    (void)unused;
    const sb_params *p = motility_params("outer=12", "inner=8", "init=random", NULL);
    mm_model *m = motility_load(p);
    mm_sim s;
    assert_int_equal(mm_sim_open(&s, m, 1, 0, 1), 0);
    mm_sim_reset(&s);
    int r0 = 5 + 12 * 6, ni = m->n_inner;
    double *tail = s.m_b + (size_t)r0 * m->window * ni * ni;
    for (int line = 0; line < m->window * ni; line++)
        if (m->line_first[line] < m->line_end[line])
            for (int x = m->line_first[line]; x < ni; x++)
                tail[(size_t)line * ni + x] = 50;
    int steps = mm_micro_tail(&s, r0, 0.01, 1);
    mm_output *o = sb_workload_motility.output_new(m);
    mm_sim_output(&s, o);
    double coarse = coarse_of(m, o, r0), largest = 0;
    for (size_t e = 0; e < (size_t)m->window * ni * ni; e++)
        largest = fmax(largest, tail[e]);
    printf("%d inner step: coarse %.17g (recomputed %.17g), M_f %g; largest M_b 50 -> %.3g\n",
           steps, s.coarse[r0], coarse, s.m_f[r0], largest);
    assert_int_equal(steps, 1);
    assert_true(s.coarse[r0] == m->m_tot[r0]);
    assert_true(s.m_f[r0] == 0);
    assert_true(fabs(coarse - m->m_tot[r0]) <= 1e-13 * m->m_tot[r0]);
    assert_true(largest < 1);
    sb_workload_motility.output_free(o);
    mm_sim_close(&s);
    motility_free(m, NULL);
}

/* The division-free slope is the spec's phi(r) = max(0, min(2r, 1), min(r, 2)) times the
 * backward difference, r = forward / backward. */
static void superbee_is_phi(void **unused)
{
    (void)unused;
    uint64_t x = 88172645463325252ull;
    for (int t = 0; t < 100000; t++) {
        double v[2];
        for (int k = 0; k < 2; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            v[k] = ((double)(x >> 11) * 0x1p-53 - 0.5) * (t % 3 ? 1 : 1e-6);
        }
        double back = v[0], fwd = t % 7 == 0 ? 2 * back : t % 11 == 0 ? 0.5 * back : v[1];
        double r = fwd / back, phi = fmax(0, fmax(fmin(2 * r, 1), fmin(r, 2)));
        double slope = mm_superbee_slope(back, fwd);
        assert_true(fabs(slope - phi * back) <= 1e-15 * fabs(back) * 2);
    }
    assert_true(mm_superbee_slope(0, 1) == 0 && mm_superbee_slope(1, 0) == 0);
    assert_true(mm_superbee_slope(1, -1) == 0);
}

static double total_variation(const double *line, int n)
{
    double tv = fabs(line[0]); /* from the empty inflow */
    for (int s = 1; s < n; s++)
        tv += fabs(line[s] - line[s - 1]);
    return tv;
}

/* Pure s-advection (no binding, no unbinding) of a box of motors on [-1.5, -0.5] for one time
 * unit at v = 1: no step adds variation or a new extremum, and the L1 error against the box
 * moved to [-0.5, 0.5] falls as N_i doubles. */
static void advection_tvd(void **unused)
{
    (void)unused;
    double error[3];
    for (int g = 0; g < 3; g++) {
        int n = 16 << g;
        mm_model m = {.n_inner = n, .ds = 4.0 / n};
        m.laws = (mm_laws){.ell = 4, .v = 1, .cfl = 0.4};
        double line[MM_MAX_INNER];
        for (int s = 0; s < n; s++) {
            double lo = -2 + s * m.ds, hi = lo + m.ds; /* cell average of the box */
            line[s] = fmax(0, fmin(hi, -0.5) - fmax(lo, -1.5)) / m.ds;
        }
        double limit = mm_inner_limit(&m.laws, m.ds, 0), tv = total_variation(line, n);
        for (double left = 1; left > 0;) {
            double step = mm_inner_step(limit, left);
            mm_line_heun(&m, line, 0, 0, step, 0);
            double now = total_variation(line, n);
            assert_true(now <= tv + 1e-14);
            tv = now;
            for (int s = 0; s < n; s++)
                assert_true(line[s] >= -1e-15 && line[s] <= 1 + 1e-15);
            left = step < left ? left - step : 0;
        }
        error[g] = 0;
        for (int s = 0; s < n; s++) {
            double lo = -2 + s * m.ds, hi = lo + m.ds;
            double exact = fmax(0, fmin(hi, 0.5) - fmax(lo, -0.5)) / m.ds;
            error[g] += fabs(line[s] - exact) * m.ds;
        }
    }
    printf("L1 error of the moved box: N_i 16: %.4f, 32: %.4f, 64: %.4f\n", error[0], error[1],
           error[2]);
    assert_true(error[1] < 0.8 * error[0]);
    assert_true(error[2] < 0.8 * error[1]);
}

/* How far two runs' end states are apart: the largest difference of each of M_b, coarse, F and
 * Psi relative to b's largest entry, the largest of these. */
static double state_distance(const mm_output *a, const mm_output *b)
{
    double d[4] = {motility_max_rel(a->m_b, b->m_b, b->bound),
                   motility_max_rel(a->coarse, b->coarse, b->cells),
                   motility_max_rel(a->force, b->force, 2 * b->cells),
                   motility_max_rel(a->psi, b->psi, b->psi_size)};
    printf("  M_b %.3g, coarse %.3g, F %.3g, Psi %.3g\n", d[0], d[1], d[2], d[3]);
    return fmax(fmax(d[0], d[1]), fmax(d[2], d[3]));
}

/* A 16^2 x 16^2 reference run of 6 outer steps with up to two more parameters. */
static mm_output *run_small(const char *extra1, const char *extra2)
{
    const sb_params *p = motility_params("outer=16", "inner=16", "steps=6", "ring_radius=4",
                                         extra1, extra2, NULL);
    mm_model *m = motility_load(p);
    mm_output *o = motility_run("cpu-reference", m, p);
    sb_workload_motility.free_model(m);
    return o;
}

/* Local inner steps against one global step for all tails (the original rule), and RK2 against
 * AB2, after 6 outer steps: each within the time discretization's error, measured as the
 * distance from the local RK2 run to one with every inner step halved (cfl and c halved; about
 * 1 % of M_b's largest entry). Global steps are no longer than local ones anywhere, so no
 * farther than that; AB2 is less accurate than RK2 (not
 * strong-stability preserving, started by an Euler step): within 5 times that. */
static void inner_rules_agree(void **unused)
{
    (void)unused;
    mm_output *local = run_small(NULL, NULL), *halved = run_small("cfl=0.2", "c=0.1"),
              *global = run_small("inner_dt=global", NULL),
              *ab2 = run_small("integrator=ab2", NULL),
              *original = run_small("integrator=ab2", "inner_dt=global");
    double scale = state_distance(halved, local);
    double d_global = state_distance(global, local), d_ab2 = state_distance(ab2, local),
           d_original = state_distance(original, local);
    printf("distance to local RK2: halved steps %.3g, global %.3g (%lld inner steps against "
           "%lld), AB2 %.3g, AB2 global %.3g\n",
           scale, d_global, global->inner_steps, local->inner_steps, d_ab2, d_original);
    assert_true(global->inner_steps > local->inner_steps);
    assert_true(scale > 0 && scale < 0.05);
    assert_true(d_global <= scale);
    assert_true(d_ab2 <= 5 * scale);
    assert_true(d_original <= 5 * scale);
    mm_output *all[] = {local, halved, global, ab2, original};
    for (int k = 0; k < 5; k++)
        sb_workload_motility.output_free(all[k]);
}

/* The fluid against single modes solved by hand: a force along (a, b) cos(k.x) gives
 * u = (I - k k^T/|k|^2)(a, b) cos(k.x) / (mu (|k|^2 + kappa_l^2)) in every layer; a stress
 * sigma_xy = cos(k_x x) gives f_y = -stress k_x sin(k_x x), across k, passed on whole. */
static void fluid_single_mode(void **unused)
{
    (void)unused;
    int n = 24, layers = 3;
    double kappa[3] = {1.5, 0.4, 0.1}, mu = 2, stress = 0.3;
    mm_fluid f;
    assert_int_equal(mm_fluid_open(&f, n, layers, kappa, mu, stress, 2), 0);
    size_t plane = (size_t)n * n;
    double *force = calloc(2 * plane, sizeof *force), *sigma = calloc(3 * plane, sizeof *sigma);
    double kx = 2 * MM_PI * 2 / n, ky = 2 * MM_PI * -3 / n, a = 0.7, b = -0.2;
    double k2 = kx * kx + ky * ky, along = (kx * a + ky * b) / k2;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double c = cos(kx * i + ky * j);
            force[i + n * j] = a * c;
            force[plane + i + n * j] = b * c;
        }
    mm_fluid_solve(&f, force, sigma);
    double worst = 0;
    for (int l = 0; l < layers; l++) {
        const double *u = mm_fluid_layer(&f, l);
        double screen = mu * (k2 + kappa[l] * kappa[l]);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double c = cos(kx * i + ky * j);
                double ux = (a - kx * along) * c / screen, uy = (b - ky * along) * c / screen;
                worst = fmax(worst, fmax(fabs(u[i + n * j] - ux), fabs(u[plane + i + n * j] - uy)));
            }
    }
    printf("single force mode: largest error %.3g (of u ~ %.3g)\n", worst, 0.7 / (mu * k2));
    assert_true(worst <= 1e-13);
    memset(force, 0, 2 * plane * sizeof *force);
    double qx = 2 * MM_PI * 5 / n;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            sigma[plane + i + n * j] = cos(qx * i);
    mm_fluid_solve(&f, force, sigma);
    worst = 0;
    for (int l = 0; l < layers; l++) {
        const double *u = mm_fluid_layer(&f, l);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double uy = -stress * qx * sin(qx * i) / (mu * (qx * qx + kappa[l] * kappa[l]));
                worst = fmax(worst, fmax(fabs(u[i + n * j]), fabs(u[plane + i + n * j] - uy)));
            }
    }
    printf("single stress mode: largest error %.3g\n", worst);
    assert_true(worst <= 1e-13);
    free(force);
    free(sigma);
    mm_fluid_close(&f);
}

/* Random force and stress: every layer's velocity has k . u^ = 0 in every mode (its transform
 * taken again here). */
static void fluid_divergence_free(void **unused)
{
    (void)unused;
    int n = 20, half = n / 2 + 1, layers = 2;
    double kappa[2] = {1, 0.25};
    mm_fluid f;
    assert_int_equal(mm_fluid_open(&f, n, layers, kappa, 1, 0.5, 1), 0);
    size_t plane = (size_t)n * n;
    double *force = malloc(2 * plane * sizeof *force), *sigma = malloc(3 * plane * sizeof *sigma);
    double *real = fftw_malloc(plane * sizeof *real);
    fftw_complex *spec = fftw_malloc((size_t)n * half * 2 * sizeof *spec);
    uint64_t x = 2463534242ull;
    for (size_t e = 0; e < 5 * plane; e++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        *(e < 2 * plane ? &force[e] : &sigma[e - 2 * plane]) = (double)(x >> 11) * 0x1p-53 - 0.5;
    }
    mm_fluid_solve(&f, force, sigma);
    fftw_plan plan = fftw_plan_dft_r2c_2d(n, n, real, spec, FFTW_ESTIMATE);
    double worst = 0, largest = 0;
    for (int l = 0; l < layers; l++) {
        const double *u = mm_fluid_layer(&f, l);
        for (int a = 0; a < 2; a++) {
            memcpy(real, u + a * plane, plane * sizeof *real);
            fftw_execute_dft_r2c(plan, real, spec + a * (size_t)n * half);
        }
        for (int my = 0; my < n; my++)
            for (int mx = 0; mx < half; mx++) {
                size_t e = (size_t)my * half + mx;
                double kx = 2 * MM_PI * mx / n, ky = 2 * MM_PI * (my <= n / 2 ? my : my - n) / n;
                const double *ux = spec[e], *uy = spec[(size_t)n * half + e];
                for (int c = 0; c < 2; c++) {
                    worst = fmax(worst, fabs(kx * ux[c] + ky * uy[c]));
                    largest = fmax(largest, sqrt(kx * kx + ky * ky) * hypot(ux[c], uy[c]));
                }
            }
    }
    printf("largest |k.u^| %.3g, of |k||u^| up to %.3g\n", worst, largest);
    assert_true(largest > 0 && worst <= 1e-13 * largest);
    fftw_destroy_plan(plan);
    fftw_free(real);
    fftw_free(spec);
    free(force);
    free(sigma);
    mm_fluid_close(&f);
}

/* cpu-openmp against cpu-reference within rtol = 1e-12 (the workload's own comparison), with
 * the largest difference printed; its result the same bits on 1 and 3 threads. */
static void openmp_matches_reference(void **unused)
{
    (void)unused;
    const char *cases[][3] = {{"outer=24", "init=rings", "ring_radius=5"},
                              {"outer=16", "init=random", "integrator=ab2"}};
    for (int c = 0; c < 2; c++) {
        const sb_params *p =
            motility_params(cases[c][0], cases[c][1], cases[c][2], "steps=6", NULL);
        mm_model *m = motility_load(p);
        mm_output *ref = motility_run("cpu-reference", m, p);
        int threads = omp_get_max_threads();
        mm_output *got = motility_run("cpu-openmp", m, p);
        char why[512];
        printf("%s: cpu-openmp within %.3g (M_b), %.3g (F), %.3g (Psi), %.3g (u) of the "
               "reference\n",
               m->scenario, motility_max_rel(got->m_b, ref->m_b, ref->bound),
               motility_max_rel(got->force, ref->force, 2 * ref->cells),
               motility_max_rel(got->psi, ref->psi, ref->psi_size),
               motility_max_rel(got->u, ref->u, 2 * ref->cells));
        if (!sb_workload_motility.output_equal(m, ref, got, why, sizeof why))
            fail_msg("%s: cpu-openmp differs from cpu-reference: %s", m->scenario, why);
        omp_set_num_threads(1);
        mm_output *one = motility_run("cpu-openmp", m, p);
        omp_set_num_threads(3);
        mm_output *three = motility_run("cpu-openmp", m, p);
        omp_set_num_threads(threads);
        assert_memory_equal(one->m_b, three->m_b, ref->bound * sizeof *ref->m_b);
        assert_memory_equal(one->force, three->force, 2 * ref->cells * sizeof *ref->force);
        assert_memory_equal(one->psi, three->psi, ref->psi_size * sizeof *ref->psi);
        assert_memory_equal(one->psi, got->psi, ref->psi_size * sizeof *ref->psi);
        sb_workload_motility.output_free(one);
        sb_workload_motility.output_free(three);
        sb_workload_motility.output_free(got);
        motility_free(m, ref);
    }
}

/* What a user can get wrong: each a one-line error naming the input and the fix. */
static void errors(void **unused)
{
    (void)unused;
    void *m;
    sb_error_clear();
    assert_int_equal(sb_workload_motility.load(motility_params("cfl=0.45", "c=0.2", NULL), &m), -1);
    printf("%s\n", sb_error());
    assert_non_null(strstr(sb_error(), "2 cfl + c must be at most 1"));
    assert_non_null(strstr(sb_error(), "lower cfl or c"));
    sb_error_clear();
    assert_int_equal(
        sb_workload_motility.load(motility_params("outer=8", "ell=8", "r_c=1", NULL), &m), -1);
    printf("%s\n", sb_error());
    assert_non_null(strstr(sb_error(), "raise outer to at least 11"));
    sb_params p;
    sb_params_init(&p, sb_workload_motility.params, sb_workload_motility.nparams);
    sb_error_clear();
    assert_int_equal(sb_params_assign(&p, "inner=128"), -1);
    printf("%s\n", sb_error());
    assert_non_null(strstr(sb_error(), "inner"));
    sb_error_clear();
    assert_int_equal(sb_params_assign(&p, "inner_dt=adaptive"), -1);
    printf("%s\n", sb_error());
    assert_non_null(strstr(sb_error(), "local|global"));
    sb_error_clear();
    assert_int_equal(sb_params_assign(&p, "cfl=0.6"), -1);
    printf("%s\n", sb_error());
    assert_non_null(strstr(sb_error(), "cfl"));
}

/* The multi-GPU split: rows in order, each slice at least one, every slice's expected work
 * within a row's of an equal share; on rings (rows of unequal work) and on a uniform Psi, where
 * it is the equal split. */
static void split_follows_work(void **unused)
{
    (void)unused;
    mm_model *m = motility_load(motility_params("outer=24", "init=rings", "ring_radius=4", NULL));
    int n = m->n_outer, rows[25];
    double *weight = malloc((size_t)n * sizeof *weight), heaviest = 0, total = 0;
    assert_non_null(weight);
    for (int j = 0; j < n; j++) {
        weight[j] = 0;
        for (int i = 0; i < n; i++)
            weight[j] += m->laws.dt_max /
                         mm_inner_limit(&m->laws, m->ds, mm_capacity(m, m->psi0, j * n + i));
    }
    double steps = 0;
    for (int j = 0; j < n; j++)
        steps += weight[j];
    for (int j = 0; j < n; j++) {
        weight[j] += 0.2 * steps / n;
        total += weight[j];
        heaviest = fmax(heaviest, weight[j]);
    }
    for (int parts = 1; parts <= n; parts++) {
        mm_split_rows(m, m->psi0, parts, rows);
        assert_int_equal(rows[0], 0);
        assert_int_equal(rows[parts], n);
        for (int i = 0; i < parts; i++) {
            assert_true(rows[i + 1] > rows[i]);
            double work = 0;
            for (int j = rows[i]; j < rows[i + 1]; j++)
                work += weight[j];
            if (parts < n / 2 && fabs(work - total / parts) > heaviest)
                fail_msg("%d slices: slice %d (rows %d-%d) has work %g, a share is %g, a row %g at "
                         "most", parts, i, rows[i], rows[i + 1], work, total / parts, heaviest);
        }
    }
    /* the same Psi in every cell: every row weighs alike, the split is the equal one */
    for (size_t e = 0; e < (size_t)n * n * m->n_inner; e++)
        m->psi0[e] = 0.1;
    mm_split_rows(m, m->psi0, 4, rows);
    for (int i = 0; i <= 4; i++)
        assert_int_equal(rows[i], n * i / 4);
    free(weight);
    motility_free(m, NULL);
}

/* The rows of Psi a slice reads: exactly the rows its tails' windows reach, periodically. */
static void psi_rows_cover_windows(void **unused)
{
    (void)unused;
    mm_model *m = motility_load(motility_params("outer=16", NULL));
    int n = m->n_outer;
    for (int first = 0; first < n; first++)
        for (int end = first + 1; end <= n; end++) {
            int from[2], count[2], covered[64] = {0}, want[64] = {0};
            int runs = mm_psi_rows(m, first, end, from, count);
            assert_true(runs == 1 || runs == 2);
            for (int r = 0; r < runs; r++) {
                assert_true(from[r] >= 0 && count[r] >= 1 && from[r] + count[r] <= n);
                for (int j = from[r]; j < from[r] + count[r]; j++)
                    covered[j]++;
            }
            for (int j = first - m->half; j < end + m->half; j++)
                want[((j % n) + n) % n] = 1;
            for (int j = 0; j < n; j++)
                if (covered[j] != want[j])
                    fail_msg("rows %d-%d: Psi row %d copied %d times, read: %s", first, end, j,
                             covered[j], want[j] ? "yes" : "no");
        }
    motility_free(m, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(motors_conserved),     cmocka_unit_test(scaling_rule),
        cmocka_unit_test(superbee_is_phi),      cmocka_unit_test(advection_tvd),
        cmocka_unit_test(inner_rules_agree),    cmocka_unit_test(fluid_single_mode),
        cmocka_unit_test(fluid_divergence_free), cmocka_unit_test(openmp_matches_reference),
        cmocka_unit_test(errors),               cmocka_unit_test(split_follows_work),
        cmocka_unit_test(psi_rows_cover_windows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
