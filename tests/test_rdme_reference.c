/* The rdme CPU reference (variants/rdme/cpu-reference.c) against what is known without it:
 * conservation, the mean squared displacement 2 D t, the A <-> B and B + C <-> D equilibria,
 * the q <= 1/2 rule, overflow placement and determinism. The statistical cases print the measured
 * value, the expectation and the band, so the ctest log shows how close they came. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuda/base/error.h"
#include "variants/rdme/model.h"
#include "variants/rdme/rules.h"

/* ---- helpers ---- */

static size_t site_index(const rd_model *m, int x, int y, int z)
{
    return (size_t)x + (size_t)m->nx * ((size_t)y + (size_t)m->ny * (size_t)z);
}

static void site_coords(const rd_model *m, size_t i, int c[3])
{
    c[0] = (int)(i % (size_t)m->nx);
    c[1] = (int)(i / (size_t)m->nx % (size_t)m->ny);
    c[2] = (int)(i / ((size_t)m->nx * m->ny));
}

static void assert_ok(int rc)
{
    if (rc != 0)
        print_error("%s\n", sb_error());
    assert_int_equal(rc, 0);
}

/* Runs the reference on m into a fresh output. */
static void run_reference(const rd_model *m, rd_output *out)
{
    assert_ok(rd_output_init(out, m));
    assert_ok(rd_reference_run(m, out));
}

static uint64_t count_of(const rd_output *o, int k, int sp)
{
    return o->counts[(size_t)k * (o->nspecies + 1) + sp];
}

static uint32_t plane_count_of(const rd_output *o, int k, int z, int sp)
{
    return o->plane_counts[((size_t)k * o->nz + z) * (o->nspecies + 1) + sp];
}

/* Every sample has the counts of sample 0, species by species, and its per-plane counts add up
 * to its totals. */
static void assert_counts_conserved(const rd_output *o)
{
    for (int k = 0; k < o->nsamples; k++)
        for (int sp = 0; sp <= o->nspecies; sp++) {
            uint64_t planes = 0;
            for (int z = 0; z < o->nz; z++)
                planes += plane_count_of(o, k, z, sp);
            if (count_of(o, k, sp) != count_of(o, 0, sp) || planes != count_of(o, k, sp))
                print_error("sample %d (step %lld), species %d: %llu particles (%llu in the "
                            "planes), %llu at step 0\n",
                            k, o->sample_step[k], sp, (unsigned long long)count_of(o, k, sp),
                            (unsigned long long)planes, (unsigned long long)count_of(o, 0, sp));
            assert_true(count_of(o, k, sp) == count_of(o, 0, sp));
            assert_true(planes == count_of(o, k, sp));
        }
}

/* The stored lattice is well formed: particles in slots 0..n-1 and nothing after the first empty
 * slot (a hole would hide particles from every reader), and in packed32 the type bits are the
 * site's type. */
static void assert_lattice_well_formed(const rd_model *m, const void *lattice)
{
    for (size_t i = 0; i < m->nsites; i++) {
        int seen_empty = 0, bad = 0;
        if (m->format == RD_PACKED32) {
            uint32_t w = ((const uint32_t *)lattice)[i];
            bad |= (int)(w >> 28) != m->types[i];
            for (int k = 0; k < 7; k++) {
                int sp = (int)(w >> (4 * k) & 15);
                bad |= seen_empty && sp != 0;
                bad |= sp > m->nspecies;
                seen_empty |= sp == 0;
            }
        } else {
            const uint8_t *b = (const uint8_t *)lattice + 16 * i;
            for (int k = 0; k < 16; k++) {
                bad |= seen_empty && b[k] != 0;
                bad |= b[k] > m->nspecies;
                seen_empty |= b[k] == 0;
            }
        }
        if (bad)
            print_error("site %zu is malformed\n", i);
        assert_false(bad);
    }
}

/* Upper 0.1 % point of chi-square with k degrees of freedom (Wilson-Hilferty, z = 3.09). */
static double chi2_critical(int k)
{
    double a = 2.0 / (9.0 * k), t = 1.0 - a + 3.09 * sqrt(a);
    return k * t * t * t;
}

/* Chi-square of n observed bins against equal expectations. */
static double chi2_uniform(const double *observed, int n)
{
    double total = 0, chi2 = 0;
    for (int i = 0; i < n; i++)
        total += observed[i];
    for (int i = 0; i < n; i++) {
        double e = total / n;
        chi2 += (observed[i] - e) * (observed[i] - e) / e;
    }
    return chi2;
}

/* q of species sp within type t as the kernels apply it: the threshold over 2^32. */
static double applied_q(const rd_model *m, int sp, int t)
{
    return m->threshold[RD_THRESHOLD_INDEX(sp, t, t)] * 0x1p-32;
}

/* ---- 1. diffusion only: conservation ---- */

/* A 20 x 18 x 13 lattice (no size a power of two) with cytoplasm, a membrane slab that A enters
 * and leaves, D enters but never leaves, B never enters and C never leaves, and an obstacle box
 * that nothing enters. */
static void build_three_types(rd_model *m, int periodic, rd_site_format format, uint32_t seed)
{
    const double spacing = 1e-8, tau = 1e-5; /* q = D * 1e11 */
    rd_model_init(m, 20, 18, 13, spacing, tau);
    m->periodic = periodic;
    assert_ok(rd_model_alloc(m));
    int a = rd_add_species(m, "A"), b = rd_add_species(m, "B"), c = rd_add_species(m, "C"),
        d = rd_add_species(m, "D");
    int cyto = rd_add_type(m, "cytoplasm"), mem = rd_add_type(m, "membrane"),
        obstacle = rd_add_type(m, "obstacle");
    rd_set_box(m, mem, 0, 0, 9, 20, 18, 13);
    rd_set_box(m, obstacle, 5, 4, 3, 11, 9, 7);
    rd_set_diffusion(m, a, cyto, 4.5e-12);
    rd_set_diffusion(m, a, mem, 1e-12);
    rd_set_transition(m, a, cyto, mem, 2e-12);
    rd_set_transition(m, a, mem, cyto, 3e-12);
    rd_set_diffusion(m, b, cyto, 4.9e-12); /* q = 0.49 */
    rd_set_diffusion(m, c, mem, 2.5e-12);
    rd_set_diffusion(m, d, cyto, 3e-12);
    rd_set_diffusion(m, d, mem, 3e-12);
    rd_set_transition(m, d, cyto, mem, 3e-12);
    assert_ok(rd_model_finish(m, format, seed, 50, 7));
    assert_ok(rd_place_random(m, a, 1500, -1, 0, 0));
    assert_ok(rd_place_random(m, b, 900, cyto, 0, 0));
    assert_ok(rd_place_random(m, c, 700, mem, 0, 0));
    assert_ok(rd_place_random(m, d, 1100, cyto, 0, 0));
}

static void diffusion_conserves_every_species(void **unused)
{
    (void)unused;
    const char *formats[] = {"packed32", "byte16"};
    for (int periodic = 0; periodic <= 1; periodic++)
        for (int f = 0; f <= 1; f++) {
            rd_model m;
            rd_output o;
            build_three_types(&m, periodic, f ? RD_BYTE16 : RD_PACKED32, 11 + f);
            run_reference(&m, &o);
            /* samples at 0, 7, ..., 49 and 50 */
            assert_int_equal(o.nsamples, 9);
            assert_int_equal(o.sample_step[8], 50);
            assert_int_equal(o.sample_step[7], 49);
            assert_counts_conserved(&o);
            assert_int_equal(count_of(&o, 0, 0), 4200);
            assert_lattice_well_formed(&m, o.lattice);
            /* Something moved, and each species stayed in the types it may occupy. */
            assert_true(memcmp(o.lattice, m.lattice0, m.nsites * rd_site_bytes(m.format)) != 0);
            int cyto = 0, mem = 1, obstacle = 2;
            uint64_t in_type[RD_MAX_SPECIES + 1][3] = {{0}};
            for (size_t i = 0; i < m.nsites; i++) {
                rd_site s;
                rd_site_get(&m, o.lattice, i, &s);
                assert_int_equal(s.type, m.types[i]);
                for (int k = 0; k < s.n; k++)
                    in_type[s.sp[k]][s.type]++;
            }
            printf("  %s %s: %llu particles conserved over %d samples, %llu overflowed; "
                   "A in membrane %llu, D in membrane %llu\n",
                   periodic ? "periodic" : "reflecting", formats[f],
                   (unsigned long long)count_of(&o, 0, 0), o.nsamples,
                   (unsigned long long)o.overflow_particles, (unsigned long long)in_type[1][mem],
                   (unsigned long long)in_type[4][mem]);
            for (int sp = 1; sp <= 4; sp++)
                assert_int_equal(in_type[sp][obstacle], 0);
            assert_int_equal(in_type[2][mem], 0);  /* B never enters the membrane */
            assert_int_equal(in_type[3][cyto], 0); /* C never leaves it */
            assert_true(in_type[1][mem] > 0);      /* A crosses */
            assert_true(in_type[4][mem] > 0);      /* D crosses one way */
            rd_output_free(&o);
            rd_model_free(&m);
        }
}

/* Lattices one and two sites thick: with periodic edges both neighbours along such an axis are
 * the same site (or the site itself), and every particle that moves must still arrive. */
static void thin_lattices_conserve(void **unused)
{
    (void)unused;
    const int shapes[][3] = {{1, 2, 5}, {2, 1, 3}, {3, 4, 1}, {1, 1, 2}};
    for (int periodic = 0; periodic <= 1; periodic++)
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            rd_model m;
            rd_output o;
            rd_model_init(&m, shapes[k][0], shapes[k][1], shapes[k][2], 1e-8, 1e-5);
            m.periodic = periodic;
            assert_ok(rd_model_alloc(&m));
            int a = rd_add_species(&m, "A"), b = rd_add_species(&m, "B");
            int cyto = rd_add_type(&m, "cytoplasm");
            rd_set_diffusion(&m, a, cyto, 4.9e-12);
            rd_set_diffusion(&m, b, cyto, 2e-12);
            assert_ok(rd_model_finish(&m, RD_BYTE16, 41 + (uint32_t)k, 30, 3));
            assert_ok(rd_place_random(&m, a, 3 * m.nsites, -1, 0, 0));
            assert_ok(rd_place_random(&m, b, 2 * m.nsites, -1, 0, 0));
            run_reference(&m, &o);
            assert_counts_conserved(&o);
            assert_lattice_well_formed(&m, o.lattice);
            rd_output_free(&o);
            rd_model_free(&m);
        }
    printf("  1 x 2 x 5, 2 x 1 x 3, 3 x 4 x 1, 1 x 1 x 2, reflecting and periodic: conserved\n");
}

/* Regression: species 15, the last one the 4-bit slots hold, moves by the same rules as the
 * others. Its entries are the last of the threshold table: at a reflecting edge it reads the
 * entry "into the outside" (to = RD_MAX_TYPES), and in a type-1 site the entries (15, 1, to).
 * A table sized 16 x 16 x 16 instead of 16 x 16 x 17 (as model.h once had it) puts these past
 * its end, onto the reaction rates: particles then leave through the edge and vanish, or cross
 * into a type they may not enter. Here a reaction that never fires (type 5 has no sites) gives
 * rate[0] a value with nonzero low and high words. */
static void species_15_is_conserved_at_a_reflecting_edge(void **unused)
{
    (void)unused;
    rd_model m;
    rd_output o;
    rd_model_init(&m, 6, 6, 6, 1e-8, 1e-5);
    assert_ok(rd_model_alloc(&m));
    for (int i = 1; i <= RD_MAX_SPECIES; i++) {
        char name[8];
        snprintf(name, sizeof name, "S%d", i);
        assert_int_equal(rd_add_species(&m, name), i);
    }
    int cyto = rd_add_type(&m, "cytoplasm"), mem = rd_add_type(&m, "membrane");
    rd_set_box(&m, mem, 0, 0, 3, 6, 6, 6);
    rd_set_diffusion(&m, 0, cyto, 4e-12); /* q = 0.4, no move between the types */
    rd_set_diffusion(&m, 0, mem, 4e-12);
    int s1[] = {1};
    assert_ok(rd_add_reaction(&m, 1, s1, 1, s1, 0.3, 1u << 5));
    assert_ok(rd_model_finish(&m, RD_PACKED32, 5, 20, 5));
    for (int t = 0; t < 2; t++) {
        assert_ok(rd_place_random(&m, RD_MAX_SPECIES, 150, t, 0, 0));
        assert_ok(rd_place_random(&m, 1, 150, t, 0, 0));
    }
    run_reference(&m, &o);
    uint64_t in_mem[2][RD_MAX_SPECIES + 1] = {{0}}; /* [0]: at the start, [1]: at the end */
    for (size_t i = 0; i < m.nsites; i++)
        for (int end = 0; end < 2; end++) {
            rd_site s;
            rd_site_get(&m, end ? o.lattice : m.lattice0, i, &s);
            for (int k = 0; k < s.n; k++)
                in_mem[end][s.sp[k]] += s.type == mem;
        }
    printf("  species 15: %llu particles after %lld steps (%llu in the membrane), %llu placed "
           "(%llu); species 1: %llu (%llu), %llu (%llu)\n",
           (unsigned long long)count_of(&o, o.nsamples - 1, RD_MAX_SPECIES), m.steps,
           (unsigned long long)in_mem[1][RD_MAX_SPECIES],
           (unsigned long long)count_of(&o, 0, RD_MAX_SPECIES),
           (unsigned long long)in_mem[0][RD_MAX_SPECIES],
           (unsigned long long)count_of(&o, o.nsamples - 1, 1), (unsigned long long)in_mem[1][1],
           (unsigned long long)count_of(&o, 0, 1), (unsigned long long)in_mem[0][1]);
    assert_counts_conserved(&o);
    assert_true(in_mem[1][RD_MAX_SPECIES] == in_mem[0][RD_MAX_SPECIES]);
    assert_true(in_mem[1][1] == in_mem[0][1]);
    rd_output_free(&o);
    rd_model_free(&m);
}

/* ---- 2. mean squared displacement ---- */

/* A displacement after `steps` sweeps along one axis is a sum of independent moves, each -1 or
 * +1 with probability q: variance s2 = 2 q steps, excess kurtosis g = (1 / (2 q) - 3) / steps.
 * The mean of d^2 over n particles estimates s2 with standard error s2 sqrt((2 + g) / n); the
 * band is 5 of them. */
static double msd_band(double q, long long steps, double n)
{
    if (steps == 0)
        return 0;
    double s2 = 2.0 * q * (double)steps, g = (1.0 / (2.0 * q) - 3.0) / (double)steps;
    return 5.0 * s2 * sqrt((2.0 + g) / n);
}

/* A 72^3 periodic lattice of one type; species X starts on the plane x = 36, Y on y = 36, Z on
 * z = 36, 4 per site (20736 each), so each species' displacement along its own axis is known
 * for every particle. q = 0.3, 30 steps: variance 18 sites^2, sd 4.2 sites, far from the
 * minimal-image cut at 36. byte16 (16 per site) leaves room: nothing may overflow, since an
 * overflowed particle would be put down off its random walk. */
#define MSD_L 72
#define MSD_STEPS 30
#define MSD_PER_SITE 4

/* Minimal-image displacement from the middle plane. */
static int msd_displacement(int c)
{
    int d = c - MSD_L / 2;
    return d >= MSD_L / 2 ? d - MSD_L : d < -MSD_L / 2 ? d + MSD_L : d;
}

static void msd_per_axis_is_2_d_t(void **unused)
{
    (void)unused;
    const double spacing = 1e-8, tau = 3e-5, diff = 1e-12; /* q = D tau / lambda^2 = 0.3 */
    const char *axis_name = "xyz";
    rd_model m;
    rd_output o;
    rd_model_init(&m, MSD_L, MSD_L, MSD_L, spacing, tau);
    m.periodic = 1;
    assert_ok(rd_model_alloc(&m));
    int sp[3] = {rd_add_species(&m, "X"), rd_add_species(&m, "Y"), rd_add_species(&m, "Z")};
    int cyto = rd_add_type(&m, "cytoplasm");
    rd_set_diffusion(&m, 0, cyto, diff);
    assert_ok(rd_model_finish(&m, RD_BYTE16, 2024, MSD_STEPS, 10));
    for (int a = 0; a < 3; a++)
        for (int u = 0; u < MSD_L; u++)
            for (int v = 0; v < MSD_L; v++) {
                int c[3];
                c[a] = MSD_L / 2, c[(a + 1) % 3] = u, c[(a + 2) % 3] = v;
                for (int k = 0; k < MSD_PER_SITE; k++)
                    assert_ok(rd_place_at(&m, sp[a], c[0], c[1], c[2]));
            }
    run_reference(&m, &o);
    printf("  overflowed particles: %llu (expected 0)\n", (unsigned long long)o.overflow_particles);
    assert_int_equal(o.overflow_particles, 0);
    assert_counts_conserved(&o);

    /* The probability applied per direction is the threshold over 2^32, floor(q 2^32) / 2^32:
     * within 2^-32 / q (< 1e-9 relative) of D tau / lambda^2. */
    double q_model = diff * tau / (spacing * spacing), q = applied_q(&m, sp[0], cyto);
    printf("  q: applied %.12f, D tau / lambda^2 %.12f (relative difference %.2e)\n", q, q_model,
           fabs(q / q_model - 1));
    assert_true(fabs(q / q_model - 1) <= 1e-9);
    for (int a = 1; a < 3; a++)
        assert_true(applied_q(&m, sp[a], cyto) == q);

    /* Per particle, the displacement along its axis after K steps has mean 0 and variance
     * s2 = 2 q K (msd_band). Bands: 5 standard errors, 4.9 % of s2 for N = 20736; the mean of d
     * has standard error sqrt(s2 / N). */
    double s2 = 2.0 * q * MSD_STEPS;
    double sum[3] = {0}, sum2[3] = {0}, n[3] = {0};
    static double across[3][2][MSD_L]; /* coordinates along the two other axes */
    memset(across, 0, sizeof across);
    for (size_t i = 0; i < m.nsites; i++) {
        rd_site s;
        int c[3];
        rd_site_get(&m, o.lattice, i, &s);
        site_coords(&m, i, c);
        for (int k = 0; k < s.n; k++) {
            int a = s.sp[k] - 1, d = msd_displacement(c[a]);
            sum[a] += d, sum2[a] += (double)d * d, n[a] += 1;
            across[a][0][c[(a + 1) % 3]] += 1;
            across[a][1][c[(a + 2) % 3]] += 1;
        }
    }
    for (int a = 0; a < 3; a++) {
        double msd = sum2[a] / n[a], band = msd_band(q, MSD_STEPS, n[a]);
        double mean = sum[a] / n[a], mean_band = 5.0 * sqrt(s2 / n[a]);
        printf("  axis %c: <d^2> %.3f vs 2 q K %.3f (band +-%.3f, 5 SE); <d> %+.4f vs 0 (band "
               "+-%.4f); N %.0f\n",
               axis_name[a], msd, s2, band, mean, mean_band, n[a]);
        assert_true(fabs(msd - s2) <= band);
        assert_true(fabs(mean) <= mean_band);
        /* Along the other two axes the species started exactly uniform and stays uniform
         * (chi-square, 71 degrees of freedom, 0.1 % level). */
        for (int b = 0; b < 2; b++) {
            double chi2 = chi2_uniform(across[a][b], MSD_L);
            printf("    across %c: chi-square %.1f (limit %.1f)\n", axis_name[(a + 1 + b) % 3],
                   chi2, chi2_critical(MSD_L - 1));
            assert_true(chi2 <= chi2_critical(MSD_L - 1));
        }
    }

    /* Over time, from the per-plane counts: Z's variance along z grows as 2 q t at every
     * sample (all of it on one plane at step 0), and X and Y stay uniform over the planes. */
    for (int k = 0; k < o.nsamples; k++) {
        double zsum2 = 0, zn = 0, planes[2][MSD_L];
        for (int z = 0; z < MSD_L; z++) {
            double c = plane_count_of(&o, k, z, sp[2]), d = msd_displacement(z);
            zsum2 += c * d * d, zn += c;
            planes[0][z] = plane_count_of(&o, k, z, sp[0]);
            planes[1][z] = plane_count_of(&o, k, z, sp[1]);
        }
        double expect = 2.0 * q * (double)o.sample_step[k];
        double band = msd_band(q, o.sample_step[k], zn);
        printf("  step %2lld: z variance of Z %.3f vs %.3f (band +-%.3f); X, Y over z planes: "
               "chi-square %.1f, %.1f\n",
               o.sample_step[k], zsum2 / zn, expect, band, chi2_uniform(planes[0], MSD_L),
               chi2_uniform(planes[1], MSD_L));
        assert_true(fabs(zsum2 / zn - expect) <= band);
        assert_true(chi2_uniform(planes[0], MSD_L) <= chi2_critical(MSD_L - 1));
        assert_true(chi2_uniform(planes[1], MSD_L) <= chi2_critical(MSD_L - 1));
    }
    rd_output_free(&o);
    rd_model_free(&m);
}

/* ---- 3. A <-> B ---- */

/* Stationary mean number of B in a site holding n particles of A or B that never leave, under
 * the discrete step: a site with b B fires with probability 1 - exp(-a0 tau), a0 = (n-b) kf +
 * b kb, forward in proportion (n-b) kf. A birth-death chain: detailed balance gives pi. */
static double site_mean_b(int n, double kf, double kb, double tau)
{
    double pi[RD_MAX_CAPACITY + 1], total = 0, mean = 0;
    pi[0] = 1;
    for (int b = 0; b < n; b++) {
        double a0 = (n - b) * kf + b * kb, a1 = (n - b - 1) * kf + (b + 1) * kb;
        double up = -expm1(-a0 * tau) * (n - b) * kf / a0;
        double down = -expm1(-a1 * tau) * (b + 1) * kb / a1;
        pi[b + 1] = pi[b] * up / down;
    }
    for (int b = 0; b <= n; b++)
        total += pi[b], mean += b * pi[b];
    return mean / total;
}

static void a_b_equilibrium_fraction(void **unused)
{
    (void)unused;
    /* kf tau = 0.02, kb tau = 0.03: relaxation time 1 / ((kf + kb) tau) = 20 steps. No
     * diffusion: 0.1 particles per site, so 95 % of them are alone in their site for good. */
    const double tau = 1e-4, kf = 200, kb = 300;
    const long long burn_in = 100, steps = 1000, every = 5;
    rd_model m;
    rd_output o;
    rd_model_init(&m, 32, 32, 32, 1e-8, tau);
    assert_ok(rd_model_alloc(&m));
    int a = rd_add_species(&m, "A"), b = rd_add_species(&m, "B");
    int cyto = rd_add_type(&m, "cytoplasm");
    int ra[] = {a}, rb[] = {b};
    assert_ok(rd_add_reaction(&m, 1, ra, 1, rb, kf, 0));
    assert_ok(rd_add_reaction(&m, 1, rb, 1, ra, kb, 0));
    assert_ok(rd_model_finish(&m, RD_PACKED32, 3, steps, every));
    /* Start near the equilibrium (40 % B); the species moves nowhere, so its type is named. */
    assert_ok(rd_place_random(&m, a, 1966, cyto, 0, 0));
    assert_ok(rd_place_random(&m, b, 1311, cyto, 0, 0));
    run_reference(&m, &o);
    const double n = (double)count_of(&o, 0, 0);
    for (int k = 0; k < o.nsamples; k++)
        assert_int_equal(count_of(&o, k, a) + count_of(&o, k, b), (uint64_t)n);
    assert_true(o.reactions_fired > 0);

    /* The exact expectation of the discrete step, site by site (sites keep their occupancy). */
    double expect_b = 0;
    int occupancy[RD_MAX_CAPACITY + 1] = {0};
    for (size_t i = 0; i < m.nsites; i++) {
        rd_site s0, s1;
        rd_site_get(&m, m.lattice0, i, &s0);
        rd_site_get(&m, o.lattice, i, &s1);
        assert_int_equal(s0.n, s1.n);
        occupancy[s0.n]++;
        if (s0.n)
            expect_b += site_mean_b(s0.n, kf, kb, tau);
    }
    double expect = expect_b / n;
    double pf = -expm1(-kf * tau), pb = -expm1(-kb * tau);
    double continuous = kf / (kf + kb), single = pf / (pf + pb);

    double sum = 0;
    int samples = 0;
    for (int k = 0; k < o.nsamples; k++)
        if (o.sample_step[k] >= burn_in) {
            sum += (double)count_of(&o, k, b) / n;
            samples++;
        }
    double measured = sum / samples;
    /* Each lone particle is a two-state chain; its indicator of B has correlation r^j between
     * samples j apart, r = (1 - pf - pb)^every. Variance of the mean of M samples over N
     * particles: p (1 - p) (M + 2 sum_{j<M} (M - j) r^j) / (M^2 N). Band: 5 standard errors
     * (the 5 % of particles that share a site barely change this). */
    double r = pow(1 - pf - pb, (double)every), corr = samples;
    for (int j = 1; j < samples; j++)
        corr += 2.0 * (samples - j) * pow(r, j);
    double se = sqrt(expect * (1 - expect) * corr / ((double)samples * samples * n));
    printf("  sites with 1, 2, 3 particles: %d, %d, %d; %.0f particles, %d samples from step "
           "%lld\n",
           occupancy[1], occupancy[2], occupancy[3], n, samples, burn_in);
    printf("  fraction of B: measured %.5f, expected (discrete step, exact) %.5f +- %.5f "
           "(5 SE); kf / (kf + kb) = %.5f, pf / (pf + pb) = %.5f\n",
           measured, expect, 5 * se, continuous, single);
    assert_true(fabs(measured - expect) <= 5 * se);
    /* The discrete step's bias is O(a tau): small, as the spec asks. */
    assert_true(fabs(expect - continuous) <= 0.01 * continuous);
    rd_output_free(&o);
    rd_model_free(&m);
}

/* rd_reaction_table.no_fire[type][n] bounds rd_choose_reaction's first test for any n particles:
 * where 1 - u reaches it, the reference fires nothing either (the GPU's reactions a step late
 * skip the counts and propensities there). Every order, two types, 1 .. 16 particles. */
static void no_fire_bounds_the_first_test(void **unused)
{
    (void)unused;
    rd_model m;
    rd_model_init(&m, 8, 8, 8, 1e-8, 1e-5);
    assert_ok(rd_model_alloc(&m));
    int a = rd_add_species(&m, "A"), b = rd_add_species(&m, "B"), c = rd_add_species(&m, "C");
    int cyto = rd_add_type(&m, "cytoplasm"), membrane = rd_add_type(&m, "membrane");
    int ra[] = {a}, rab[] = {a, b}, raa[] = {a, a}, rc[] = {c};
    assert_ok(rd_add_reaction(&m, 1, ra, 1, rc, 3e3, 0));
    assert_ok(rd_add_reaction(&m, 2, rab, 1, rc, 5e8, (uint16_t)(1u << membrane)));
    assert_ok(rd_add_reaction(&m, 2, raa, 2, rab, 7e8, 0));
    assert_ok(rd_add_reaction(&m, 0, NULL, 1, ra, 2e-4, (uint16_t)(1u << cyto)));
    assert_ok(rd_model_finish(&m, RD_BYTE16, 1, 1, 1));
    rd_reaction_table t;
    rd_reaction_table_of(&m, &t);
    uint32_t state = 12345;
    long checked = 0, tight = 0;
    for (int type = 0; type < 2; type++)
        for (int n = 0; n <= RD_MAX_CAPACITY; n++)
            for (int trial = 0; trial < 2000; trial++) {
                rd_counts count = {{0, 0}};
                for (int k = 0; k < n; k++) {
                    state = state * 1664525u + 1013904223u;
                    rd_count_add(&count, 1 + (int)(state >> 30) % 3);
                }
                double a0 = 0.0;
                for (int i = 0; i < t.n; i++)
                    if (t.where[i] >> type & 1)
                        a0 = det_add(a0, rd_propensity(&t, i, &count));
                double first = det_mul(2.0, det_mul(a0, t.tau));
                assert_true(first <= t.no_fire[type][n]);
                tight += first > 0.5 * t.no_fire[type][n];
                checked++;
            }
    printf("  %ld count vectors under their bound, %ld of them above half of it\n", checked, tight);
    assert_true(tight > 0);
    rd_model_free(&m);
}

/* ---- 4. B + C <-> D ---- */

static void binding_equilibrium_is_well_mixed(void **unused)
{
    (void)unused;
    /* 24^3 periodic at 16 nm, D 2.5e-12 m^2/s, tau 50 us: q = 0.488, a particle crosses the
     * lattice in a few hundred steps, faster than the reactions relax (67 steps), so the mix is
     * close to well stirred. Per site: binding c = kf / (N_A V_site) with c tau = 0.05,
     * unbinding kb tau = 0.005, so the dissociation constant is 0.1 particles per site; with
     * 0.2 B and 0.2 C per site, half are bound. */
    const double spacing = 16e-9, tau = 50e-6, diff = 2.5e-12;
    const double site_litres = spacing * spacing * spacing * 1e3;
    const double c_bind = 0.05 / tau, kb = 0.005 / tau;
    const double kf = c_bind * RD_AVOGADRO * site_litres; /* 1/(M s) */
    const long long burn_in = 300, steps = 1800, every = 10;
    rd_model m;
    rd_output o;
    rd_model_init(&m, 24, 24, 24, spacing, tau);
    m.periodic = 1;
    assert_ok(rd_model_alloc(&m));
    int b = rd_add_species(&m, "B"), c = rd_add_species(&m, "C"), d = rd_add_species(&m, "D");
    int cyto = rd_add_type(&m, "cytoplasm");
    rd_set_diffusion(&m, 0, cyto, diff);
    int bc[] = {b, c}, dd[] = {d};
    assert_ok(rd_add_reaction(&m, 2, bc, 1, dd, kf, 0));
    assert_ok(rd_add_reaction(&m, 1, dd, 2, bc, kb, 0));
    assert_ok(rd_model_finish(&m, RD_PACKED32, 17, steps, every));
    /* The model's per-site constant is the one intended (1000 L per m^3). */
    printf("  kf %.6g /(M s): per-site constant %.6g /s, intended %.6g /s\n", kf, m.rate[0],
           c_bind);
    assert_true(fabs(m.rate[0] / c_bind - 1) < 1e-12);
    const double total = 2765, start_bound = 1382; /* 0.2 per site; start near equilibrium */
    assert_ok(rd_place_random(&m, b, (uint64_t)(total - start_bound), -1, 0, 0));
    assert_ok(rd_place_random(&m, c, (uint64_t)(total - start_bound), -1, 0, 0));
    assert_ok(rd_place_random(&m, d, (uint64_t)start_bound, -1, 0, 0));
    run_reference(&m, &o);

    double sum = 0, batch[16] = {0};
    int samples = 0;
    for (int k = 0; k < o.nsamples; k++) {
        /* B + D and C + D are conserved exactly. */
        assert_int_equal(count_of(&o, k, b) + count_of(&o, k, d), (uint64_t)total);
        assert_int_equal(count_of(&o, k, c) + count_of(&o, k, d), (uint64_t)total);
        if (o.sample_step[k] > burn_in) {
            batch[samples / 10 % 16] += (double)count_of(&o, k, d) / 10; /* 15 batches of 10 */
            sum += (double)count_of(&o, k, d);
            samples++;
        }
    }
    assert_int_equal(samples, 150);
    double measured = sum / samples;
    /* Batch means (100 steps each, 1.5 relaxation times) for the statistical error. */
    double bvar = 0;
    for (int i = 0; i < 15; i++)
        bvar += (batch[i] - measured) * (batch[i] - measured) / 14;
    double se = sqrt(bvar / 15);

    /* The well-mixed expectation: D = (B_T - D)(C_T - D) kappa, kappa = kf / (kb N_A V_total),
     * the smaller root of kappa D^2 - (kappa (B_T + C_T) + 1) D + kappa B_T C_T = 0. */
    double kappa = kf / (kb * RD_AVOGADRO * site_litres * (double)m.nsites);
    double p = kappa * 2 * total + 1;
    double quadratic =
        2 * kappa * total * total / (p + sqrt(p * p - 4 * kappa * kappa * total * total));
    /* For reference: the mean of the well-mixed master equation, pi(d) ~ kappa^d / (d!
     * (B_T - d)! (C_T - d)!) (also the lattice's stationary law in continuous time), and the
     * leading correction of the discrete step, kappa * f(c tau) / f(kb tau), f(x) = (1 - e^-x)
     * / x (a lone pair binds with probability 1 - e^-c tau, not c tau). */
    double norm = 0, cme = 0, lmax = -INFINITY;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i <= (int)total; i++) {
            double l = i * log(kappa) - lgamma(i + 1.0) - 2 * lgamma(total - i + 1.0);
            if (pass == 0)
                lmax = l > lmax ? l : lmax;
            else
                norm += exp(l - lmax), cme += i * exp(l - lmax);
        }
    cme /= norm;
    double kd = kappa * (-expm1(-c_bind * tau) / (c_bind * tau)) / (-expm1(-kb * tau) / (kb * tau));
    double pd = kd * 2 * total + 1;
    double discrete = 2 * kd * total * total / (pd + sqrt(pd * pd - 4 * kd * kd * total * total));
    /* Tolerance 3 %: the statistical error is ~0.5 % (printed), the discrete step's bias ~0.7 %
     * and the finite-N difference between the quadratic and the master equation ~0.1 %. */
    double tolerance = 0.03 * quadratic;
    printf("  bound D: measured %.1f +- %.1f (SE, batch means) over %d samples; quadratic %.1f "
           "(band +-%.1f, 3 %%); master equation %.1f; with the discrete-step correction "
           "%.1f\n",
           measured, se, samples, quadratic, tolerance, cme, discrete);
    assert_true(fabs(measured - quadratic) <= tolerance);
    rd_output_free(&o);
    rd_model_free(&m);
}

/* ---- 5. q > 1/2 is refused ---- */

static void assert_error_says(const char *what)
{
    if (!strstr(sb_error(), what))
        print_error("expected '%s' in: %s\n", what, sb_error());
    assert_non_null(strstr(sb_error(), what));
}

static void too_large_a_step_is_refused(void **unused)
{
    (void)unused;
    /* lambda 10 nm, tau 60 us: D 1e-12 gives q = 0.6; the fix is tau <= 50 us. */
    rd_model m;
    rd_model_init(&m, 8, 8, 8, 1e-8, 6e-5);
    assert_ok(rd_model_alloc(&m));
    int fast = rd_add_species(&m, "Fast");
    int cyto = rd_add_type(&m, "cytoplasm"), mem = rd_add_type(&m, "membrane");
    rd_set_diffusion(&m, fast, cyto, 5e-13);
    rd_set_diffusion(&m, fast, mem, 5e-13);
    rd_set_transition(&m, fast, cyto, mem, 1e-12);
    sb_error_clear();
    assert_int_equal(rd_model_finish(&m, RD_PACKED32, 1, 10, 0), -1);
    printf("  refused: %s\n", sb_error());
    assert_error_says("Fast");
    assert_error_says("cytoplasm -> membrane");
    assert_error_says("= 0.6 ");
    assert_error_says("time step");
    assert_error_says("5e-05 s");
    rd_model_free(&m);

    /* q = 1/2 exactly is allowed (1/64 m, 1/8 s, 2^-10 m^2/s are exact in binary): its
     * threshold is 2^31, so every particle moves every sweep; on a periodic lattice of even
     * sides, particles that start on even coordinates are all on odd ones after one step. */
    rd_model_init(&m, 6, 4, 8, 1.0 / 64, 1.0 / 8);
    m.periodic = 1;
    assert_ok(rd_model_alloc(&m));
    int s = rd_add_species(&m, "S");
    rd_set_diffusion(&m, s, rd_add_type(&m, "cytoplasm"), 0x1p-10);
    assert_ok(rd_model_finish(&m, RD_BYTE16, 9, 1, 0));
    assert_int_equal(m.threshold[RD_THRESHOLD_INDEX(s, 0, 0)], 0x80000000u);
    for (int z = 0; z < 8; z += 2)
        for (int y = 0; y < 4; y += 2)
            for (int x = 0; x < 6; x += 2)
                assert_ok(rd_place_at(&m, s, x, y, z));
    rd_output o;
    run_reference(&m, &o);
    assert_counts_conserved(&o);
    for (size_t i = 0; i < m.nsites; i++) {
        rd_site site;
        int c[3];
        rd_site_get(&m, o.lattice, i, &site);
        site_coords(&m, i, c);
        if (site.n)
            assert_true(c[0] % 2 == 1 && c[1] % 2 == 1 && c[2] % 2 == 1);
    }
    rd_output_free(&o);
    rd_model_free(&m);
    /* Just above 1/2 is refused. */
    rd_model_init(&m, 6, 4, 8, 1.0 / 64, 1.0 / 8);
    assert_ok(rd_model_alloc(&m));
    rd_set_diffusion(&m, rd_add_species(&m, "S"), rd_add_type(&m, "cytoplasm"),
                     0x1p-10 * (1 + 0x1p-40));
    assert_int_equal(rd_model_finish(&m, RD_BYTE16, 9, 1, 0), -1);
    rd_model_free(&m);
}

/* Writes text to a fresh temporary file; the caller unlinks path. */
static void write_temp(char *path, const char *text)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

static void scenarios_build_and_refuse(void **unused)
{
    (void)unused;
    /* homogeneous E. coli at 16 nm: 63 x 63 x 125, q = 0.488, 0.08 particles per site. */
    rd_model m;
    rd_output o;
    rd_scenario_args args = {"homogeneous", NULL, "ecoli", 16, -1, -1};
    sb_error_clear();
    assert_ok(rd_build_scenario(&m, &args, RD_PACKED32, 1, 2, 0));
    assert_int_equal(m.nx, 63);
    assert_int_equal(m.ny, 63);
    assert_int_equal(m.nz, 125);
    double q = applied_q(&m, 1, 0);
    printf("  homogeneous ecoli 16 nm: %d x %d x %d, q %.4f, %llu particles\n", m.nx, m.ny, m.nz, q,
           (unsigned long long)m.nparticles_placed);
    assert_true(q > 0.48 && q <= 0.5);
    assert_int_equal(m.nparticles_placed, llround(0.08 * (double)m.nsites));
    /* Two steps: A + B + D and C + D (A <-> B, B + C <-> D) are conserved. */
    run_reference(&m, &o);
    for (int k = 0; k < o.nsamples; k++) {
        assert_int_equal(count_of(&o, k, 1) + count_of(&o, k, 2) + count_of(&o, k, 4),
                         count_of(&o, 0, 1) + count_of(&o, 0, 2) + count_of(&o, 0, 4));
        assert_int_equal(count_of(&o, k, 3) + count_of(&o, k, 4),
                         count_of(&o, 0, 3) + count_of(&o, 0, 4));
    }
    rd_output_free(&o);
    rd_model_free(&m);

    /* A model file whose D is too large for its time step fails through the builder with the
     * model's message. */
    char path[] = "/tmp/test_rdme_reference_XXXXXX";
    write_temp(path, "lattice 8 8 8\nspacing 1e-8\ntimestep 6e-5\nspecies Fast\n"
                     "sitetype cytoplasm\ndiffusion Fast cytoplasm 1e-12\n");
    rd_scenario_args file = {"file", path, "ecoli", 16, -1, -1};
    sb_error_clear();
    int rc = rd_build_scenario(&m, &file, RD_PACKED32, 1, 2, 0);
    unlink(path);
    printf("  refused: %s\n", sb_error());
    assert_int_equal(rc, -1);
    assert_error_says("Fast");
    assert_error_says("cytoplasm -> cytoplasm");
    assert_error_says("time step");
}

/* An unknown scenario or cell must fail with its message and leave the caller's model alone,
 * whatever the model held before: run in a child process, since freeing a model that was never
 * initialised may crash. */
static void unknown_names_fail_cleanly(void **unused)
{
    (void)unused;
    const char *cases[][3] = {{"nope", "ecoli", "scenario 'nope': expected homogeneous"},
                              {"homogeneous", "mars", "cell 'mars': expected ecoli"}};
    int failed = 0;
    for (int c = 0; c < 2; c++) {
        fflush(stdout);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            /* cmocka's handlers would catch a crash in the child and go on testing there. */
            const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS};
            for (size_t k = 0; k < sizeof signals / sizeof signals[0]; k++)
                signal(signals[k], SIG_DFL);
            rd_model m;
            memset(&m, 0x5a, sizeof m); /* an uninitialised stack model */
            rd_scenario_args args = {cases[c][0], NULL, cases[c][1], 16, -1, -1};
            int rc = rd_build_scenario(&m, &args, RD_PACKED32, 1, 2, 0);
            _exit(rc == -1 && strstr(sb_error(), cases[c][2]) ? 0 : 1);
        }
        int status = 0;
        assert_true(waitpid(pid, &status, 0) == pid);
        if (WIFSIGNALED(status))
            printf("  scenario %s, cell %s: the builder died of signal %d (it frees a model it "
                   "never initialised: scenario.c, rd_build_scenario)\n",
                   cases[c][0], cases[c][1], WTERMSIG(status));
        else
            printf("  scenario %s, cell %s: exit %d (0: refused with '%s')\n", cases[c][0],
                   cases[c][1], WEXITSTATUS(status), cases[c][2]);
        failed |= !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    assert_false(failed);
}

/* ---- 6. overflow ---- */

/* 12 x 10 x 9, reflecting, a membrane half; A and B move in both types and across. mobile = 0:
 * nothing moves. dimers: A -> B + B and B + B -> A (so only 2 A + B is conserved). */
static void build_dense(rd_model *m, rd_site_format format, double per_site, uint32_t seed,
                        int mobile, int dimers)
{
    rd_model_init(m, 12, 10, 9, 1e-8, 1e-5); /* q = D * 1e11 */
    assert_ok(rd_model_alloc(m));
    int a = rd_add_species(m, "A"), b = rd_add_species(m, "B");
    int cyto = rd_add_type(m, "cytoplasm"), mem = rd_add_type(m, "membrane");
    rd_set_box(m, mem, 6, 0, 0, 12, 10, 9);
    if (mobile) {
        rd_set_diffusion(m, 0, cyto, 4.5e-12);
        rd_set_diffusion(m, 0, mem, 2e-12);
        /* The same rate both ways, so neither type fills up (a type without room left is an
         * error: overflow_goes_to_the_nearest_site_in_order). */
        rd_set_transition(m, 0, cyto, mem, 3e-12);
        rd_set_transition(m, 0, mem, cyto, 3e-12);
    }
    if (dimers) {
        int ra[] = {a}, pbb[] = {b, b};
        assert_ok(rd_add_reaction(m, 1, ra, 2, pbb, 2e4, 0)); /* k tau = 0.2 */
        assert_ok(rd_add_reaction(m, 2, pbb, 1, ra, 1e6, 0));
    }
    assert_ok(rd_model_finish(m, format, seed, 20, 4));
    uint64_t total = (uint64_t)(per_site * (double)m->nsites);
    for (int t = 0; t < 2; t++) {
        uint64_t half = total / 2;
        assert_ok(rd_place_random(m, a, half * 3 / 5, t, 0, 0));
        assert_ok(rd_place_random(m, b, half - half * 3 / 5, t, 0, 0));
    }
}

static void dense_lattice_overflows_without_loss(void **unused)
{
    (void)unused;
    const char *names[] = {"packed32, 5 per site", "byte16, 13 per site"};
    for (int f = 0; f < 2; f++) {
        rd_model m;
        rd_output o;
        build_dense(&m, f ? RD_BYTE16 : RD_PACKED32, f ? 13 : 5, 21, 1, 0);
        run_reference(&m, &o);
        printf("  %s: %llu particles, %llu overflowed in %lld steps\n", names[f],
               (unsigned long long)count_of(&o, 0, 0), (unsigned long long)o.overflow_particles,
               m.steps);
        assert_true(o.overflow_particles > 0);
        assert_counts_conserved(&o);
        assert_lattice_well_formed(&m, o.lattice);
        rd_output_free(&o);
        rd_model_free(&m);
    }
    /* Overflow from reactions alone (nothing moves): A -> B + B in a full site. 3 per site,
     * 60 % A: even with every A split the lattice would hold 4.8 per site, so room remains. */
    rd_model m;
    rd_output o;
    build_dense(&m, RD_PACKED32, 3, 22, 0, 1);
    run_reference(&m, &o);
    printf("  immobile dimers, packed32, 3 per site: %llu reactions, %llu overflowed\n",
           (unsigned long long)o.reactions_fired, (unsigned long long)o.overflow_particles);
    assert_true(o.reactions_fired > 0);
    assert_true(o.overflow_particles > 0);
    for (int k = 0; k < o.nsamples; k++)
        assert_int_equal(2 * count_of(&o, k, 1) + count_of(&o, k, 2),
                         2 * count_of(&o, 0, 1) + count_of(&o, 0, 2));
    assert_lattice_well_formed(&m, o.lattice);
    rd_output_free(&o);
    rd_model_free(&m);
}

/* Puts n particles of species sp in site (x, y, z) of lattice (its previous content is lost). */
static void fill(const rd_model *m, void *lattice, int x, int y, int z, int n, int sp)
{
    rd_site s;
    size_t i = site_index(m, x, y, z);
    rd_site_get(m, lattice, i, &s);
    s.n = n;
    for (int k = 0; k < n; k++)
        s.sp[k] = (uint8_t)sp;
    rd_site_put(m, lattice, i, &s);
}

static rd_site site_at(const rd_model *m, const void *lattice, int x, int y, int z)
{
    rd_site s;
    rd_site_get(m, lattice, site_index(m, x, y, z), &s);
    return s;
}

static void overflow_goes_to_the_nearest_site_in_order(void **unused)
{
    (void)unused;
    rd_model m;
    rd_model_init(&m, 5, 5, 5, 1e-8, 1e-5);
    assert_ok(rd_model_alloc(&m));
    int a = rd_add_species(&m, "A"), b = rd_add_species(&m, "B");
    int cyto = rd_add_type(&m, "cytoplasm"), mem = rd_add_type(&m, "membrane");
    rd_set_box(&m, mem, 3, 1, 1, 4, 2, 2); /* (3, 1, 1) */
    rd_set_box(&m, mem, 1, 0, 0, 2, 1, 1); /* (1, 0, 0) */
    rd_set_diffusion(&m, 0, cyto, 1e-12);
    assert_ok(rd_model_finish(&m, RD_PACKED32, 1, 1, 0));
    void *lat = m.lattice0;
    size_t origin = site_index(&m, 2, 2, 2);

    /* No entries (the reference's list before its first overflow is NULL): nothing to do. */
    assert_ok(rd_overflow_resolve(&m, lat, NULL, 0));

    /* The origin has room: the particle stays there. */
    fill(&m, lat, 2, 2, 2, 3, a);
    uint64_t e1[] = {RD_OVF_ENTRY(0, origin, 0, b)};
    assert_ok(rd_overflow_resolve(&m, lat, e1, 1));
    rd_site s = site_at(&m, lat, 2, 2, 2);
    assert_int_equal(s.n, 4);
    assert_int_equal(s.sp[3], b);

    /* The origin and its shell of radius 1 full, except (3, 1, 1) (room, but membrane),
     * (1, 3, 1) and (2, 2, 3). In z, y, x order (1, 3, 1) comes first, then (2, 2, 3). The
     * entries come unsorted: rank 0 (B) must be placed before rank 1 (A). */
    for (int z = 1; z <= 3; z++)
        for (int y = 1; y <= 3; y++)
            for (int x = 1; x <= 3; x++)
                fill(&m, lat, x, y, z, 7, a);
    fill(&m, lat, 3, 1, 1, 0, a);
    fill(&m, lat, 1, 3, 1, 6, a);
    fill(&m, lat, 2, 2, 3, 6, a);
    uint64_t e2[] = {RD_OVF_ENTRY(1, origin, 1, a), RD_OVF_ENTRY(1, origin, 0, b)};
    assert_ok(rd_overflow_resolve(&m, lat, e2, 2));
    s = site_at(&m, lat, 1, 3, 1);
    assert_int_equal(s.n, 7);
    assert_int_equal(s.sp[6], b);
    s = site_at(&m, lat, 2, 2, 3);
    assert_int_equal(s.n, 7);
    assert_int_equal(s.sp[6], a);
    assert_int_equal(site_at(&m, lat, 3, 1, 1).n, 0);

    /* Shell 1 now full (bar the membrane site): the next goes to shell 2, whose first site in
     * z, y, x order is (0, 0, 0); it is full and (1, 0, 0) is membrane, so (2, 0, 0). A later
     * pass (reactions, 3) comes after an earlier one whatever the array order. */
    fill(&m, lat, 0, 0, 0, 7, a);
    uint64_t e3[] = {RD_OVF_ENTRY(3, origin, 0, a), RD_OVF_ENTRY(2, origin, 0, b)};
    assert_ok(rd_overflow_resolve(&m, lat, e3, 2));
    s = site_at(&m, lat, 2, 0, 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.sp[0], b);
    assert_int_equal(s.sp[1], a);
    assert_int_equal(site_at(&m, lat, 1, 0, 0).n, 0);
    printf("  placed at the origin, then (1, 3, 1), (2, 2, 3), then (2, 0, 0) twice\n");
    rd_model_free(&m);

    /* No room anywhere in the origin's type: an error that says what to do. */
    rd_model_init(&m, 2, 2, 1, 1e-8, 1e-5);
    assert_ok(rd_model_alloc(&m));
    a = rd_add_species(&m, "A");
    assert_ok(rd_model_finish(&m, RD_PACKED32, 1, 1, 0));
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 2; x++)
            fill(&m, m.lattice0, x, y, 0, 7, a);
    uint64_t e4[] = {RD_OVF_ENTRY(0, site_index(&m, 1, 1, 0), 0, a)};
    sb_error_clear();
    assert_int_equal(rd_overflow_resolve(&m, m.lattice0, e4, 1), -1);
    printf("  refused: %s\n", sb_error());
    assert_error_says("no cytoplasm site with room");
    assert_error_says("lower the particle count");
    rd_model_free(&m);
}

/* ---- 7. determinism ---- */

static int outputs_equal(const rd_output *x, const rd_output *y)
{
    size_t w = (size_t)x->nspecies + 1;
    return x->nsamples == y->nsamples &&
           memcmp(x->lattice, y->lattice, x->nsites * (size_t)x->site_bytes) == 0 &&
           memcmp(x->sample_step, y->sample_step, x->nsamples * sizeof *x->sample_step) == 0 &&
           memcmp(x->counts, y->counts, x->nsamples * w * sizeof *x->counts) == 0 &&
           memcmp(x->plane_counts, y->plane_counts,
                  x->nsamples * x->nz * w * sizeof *x->plane_counts) == 0 &&
           x->overflow_particles == y->overflow_particles &&
           x->reactions_fired == y->reactions_fired;
}

static void runs_are_deterministic(void **unused)
{
    (void)unused;
    for (int f = 0; f < 2; f++) {
        rd_site_format format = f ? RD_BYTE16 : RD_PACKED32;
        size_t bytes;
        rd_model m1, m2, m3;
        rd_output o1, o2, o1again, o3;
        /* Diffusion, reactions and overflow all at work; with every A split, 1.6 times the
         * particles placed would still fit (4 per site in 7, 9 in 16). */
        double per_site = f ? 9 : 4;
        build_dense(&m1, format, per_site, 31, 1, 1);
        build_dense(&m2, format, per_site, 31, 1, 1);
        build_dense(&m3, format, per_site, 32, 1, 1);
        bytes = m1.nsites * rd_site_bytes(format);
        assert_memory_equal(m1.lattice0, m2.lattice0, bytes);
        assert_memory_not_equal(m1.lattice0, m3.lattice0, bytes);
        run_reference(&m1, &o1);
        run_reference(&m2, &o2);
        run_reference(&m1, &o1again);
        assert_true(o1.overflow_particles > 0 && o1.reactions_fired > 0);
        assert_true(outputs_equal(&o1, &o2));
        assert_true(outputs_equal(&o1, &o1again));
        /* Another seed on the same initial lattice: another trajectory. */
        memcpy(m3.lattice0, m1.lattice0, bytes);
        m3.seed = 33;
        run_reference(&m3, &o3);
        assert_memory_not_equal(o1.lattice, o3.lattice, bytes);
        printf("  %s: same seed identical (%llu reactions, %llu overflowed); seed 33 differs\n",
               f ? "byte16" : "packed32", (unsigned long long)o1.reactions_fired,
               (unsigned long long)o1.overflow_particles);
        rd_output_free(&o1);
        rd_output_free(&o2);
        rd_output_free(&o1again);
        rd_output_free(&o3);
        rd_model_free(&m1);
        rd_model_free(&m2);
        rd_model_free(&m3);
    }
}

/* cpu-openmp: the same passes over 2, 3 and 7 threads give the one-thread output bit for bit,
 * overflow (per-thread lists, sorted at placement) and reactions included. */
static void threads_do_not_change_the_output(void **unused)
{
    (void)unused;
    for (int f = 0; f < 2; f++) {
        rd_site_format format = f ? RD_BYTE16 : RD_PACKED32;
        rd_model m;
        rd_output one;
        build_dense(&m, format, f ? 9 : 4, 41, 1, 1);
        run_reference(&m, &one);
        assert_true(one.overflow_particles > 0 && one.reactions_fired > 0);
        const int counts[] = {2, 3, 7};
        for (int t = 0; t < 3; t++) {
            rd_output many;
            assert_int_equal(rd_output_init(&many, &m), 0);
            assert_ok(rd_reference_run_threads(&m, &many, counts[t]));
            assert_true(outputs_equal(&one, &many));
            rd_output_free(&many);
        }
        printf("  %s: 1, 2, 3 and 7 threads identical (%llu overflowed, %llu reactions)\n",
               f ? "byte16" : "packed32", (unsigned long long)one.overflow_particles,
               (unsigned long long)one.reactions_fired);
        rd_output_free(&one);
        rd_model_free(&m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(diffusion_conserves_every_species),
        cmocka_unit_test(thin_lattices_conserve),
        cmocka_unit_test(species_15_is_conserved_at_a_reflecting_edge),
        cmocka_unit_test(msd_per_axis_is_2_d_t),
        cmocka_unit_test(a_b_equilibrium_fraction),
        cmocka_unit_test(no_fire_bounds_the_first_test),
        cmocka_unit_test(binding_equilibrium_is_well_mixed),
        cmocka_unit_test(too_large_a_step_is_refused),
        cmocka_unit_test(scenarios_build_and_refuse),
        cmocka_unit_test(unknown_names_fail_cleanly),
        cmocka_unit_test(dense_lattice_overflows_without_loss),
        cmocka_unit_test(overflow_goes_to_the_nearest_site_in_order),
        cmocka_unit_test(runs_are_deterministic),
        cmocka_unit_test(threads_do_not_change_the_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
