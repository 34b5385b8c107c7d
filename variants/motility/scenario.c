/* Initial conditions (../shared/spec/motility.md, scenarios): Psi as a lattice of overlapping
 * filament rings (the paper's fig. 6) or random, M_tot uniform; no motor bound at the start. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../cuda/rng.h"
#include "../../cuda/base/error.h"
#include "model.h"
#include "physics.h"

static int alloc_fields(mm_model *m, double motors)
{
    size_t cells = (size_t)m->n_outer * m->n_outer;
    m->psi0 = calloc(cells * m->n_inner, sizeof *m->psi0);
    m->m_tot = malloc(cells * sizeof *m->m_tot);
    if (!m->psi0 || !m->m_tot)
        return sb_fail("out of host memory for Psi on %d^2 x %d cells", m->n_outer, m->n_inner);
    for (size_t c = 0; c < cells; c++)
        m->m_tot[c] = motors;
    return 0;
}

/* Scales Psi so that the mean number of filaments per unit area is `density`. */
static void normalise(mm_model *m, double density)
{
    size_t cells = (size_t)m->n_outer * m->n_outer, n = cells * m->n_inner;
    double total = 0;
    for (size_t e = 0; e < n; e++)
        total += m->psi0[e];
    double scale = total > 0 ? density * cells / (total * m->dtheta) : 0;
    for (size_t e = 0; e < n; e++)
        m->psi0[e] *= scale;
}

/* The shortest periodic difference b - a on a domain of length len. */
static double periodic_delta(double a, double b, double len)
{
    double d = fmod(b - a, len);
    return d > len / 2 ? d - len : d < -len / 2 ? d + len : d;
}

int mm_build_rings(mm_model *m, double density, double ring_radius, double motors)
{
    if (alloc_fields(m, motors) != 0)
        return -1;
    int n = m->n_outer, ni = m->n_inner;
    /* ring centres on a square lattice 1.5 radii apart, so that neighbouring rings overlap; the
     * lattice fits the periodic domain a whole number of times */
    int rings = (int)lround(n / (1.5 * ring_radius));
    if (rings < 1)
        rings = 1;
    double spacing = (double)n / rings, width = 1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double *psi = &m->psi0[((size_t)j * n + i) * ni];
            for (int b = 0; b < rings; b++)
                for (int a = 0; a < rings; a++) {
                    double dx = periodic_delta((a + 0.5) * spacing, i, n);
                    double dy = periodic_delta((b + 0.5) * spacing, j, n);
                    double off = (sqrt(dx * dx + dy * dy) - ring_radius) / width;
                    if (fabs(off) > 5)
                        continue;
                    /* filaments along the ring, counter-clockwise: orientation weight
                     * (1 + cos(theta - tangent))^2 / (3 pi), which sums to 1 over theta */
                    double radial = exp(-0.5 * off * off), tangent = atan2(dy, dx) + MM_PI / 2;
                    for (int k = 0; k < ni; k++) {
                        double q = 1 + cos(m->dtheta * k - tangent);
                        psi[k] += radial * q * q / (3 * MM_PI);
                    }
                }
        }
    normalise(m, density);
    snprintf(m->scenario, sizeof m->scenario, "rings %d^2 x %d^2, %d^2 rings of radius %g", n, ni,
             rings, ring_radius);
    return 0;
}

int mm_build_random(mm_model *m, double density, double motors)
{
    if (alloc_fields(m, motors) != 0)
        return -1;
    size_t cells = (size_t)m->n_outer * m->n_outer;
    for (size_t c = 0; c < cells; c++)
        for (int k = 0; k < m->n_inner; k++) {
            sb_rng_block b = sb_philox(m->seed, (uint32_t)c, MM_PURPOSE_PSI, (uint32_t)k, 0, 0);
            m->psi0[c * m->n_inner + k] = sb_uniform(b.v[0], b.v[1]);
        }
    normalise(m, density);
    snprintf(m->scenario, sizeof m->scenario, "random %d^2 x %d^2, seed %u", m->n_outer, m->n_inner,
             m->seed);
    return 0;
}
