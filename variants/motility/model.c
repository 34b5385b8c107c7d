/* The grids: the tail's window, the inner tables, each line's feasible run, the fluid layers. */
#include "model.h"

#include <math.h>
#include <stdlib.h>

#include "../../cuda/base/error.h"
#include "physics.h"

static int alloc_tables(mm_model *m)
{
    size_t ni = (size_t)m->n_inner, lines = (size_t)m->window * ni;
    m->cos_theta = malloc(ni * sizeof *m->cos_theta);
    m->sin_theta = malloc(ni * sizeof *m->sin_theta);
    m->cos_face = malloc(ni * sizeof *m->cos_face);
    m->sin_face = malloc(ni * sizeof *m->sin_face);
    m->s_mid = malloc(ni * sizeof *m->s_mid);
    m->line_first = malloc(lines * sizeof *m->line_first);
    m->line_end = malloc(lines * sizeof *m->line_end);
    m->kappa_layer = malloc((size_t)m->layers * sizeof *m->kappa_layer);
    if (!m->cos_theta || !m->sin_theta || !m->cos_face || !m->sin_face || !m->s_mid ||
        !m->line_first || !m->line_end || !m->kappa_layer)
        return sb_fail("out of host memory for the inner grid's tables");
    return 0;
}

int mm_model_set_grid(mm_model *m)
{
    const mm_laws *l = &m->laws;
    m->half = (int)ceil(l->ell / 2 + l->r_c);
    m->side = 2 * m->half + 1;
    m->window = m->side * m->side;
    /* a tail's window must not reach round the periodic grid onto itself */
    if (m->side > m->n_outer)
        return sb_fail("outer=%d is narrower than a tail's window of %d cells (ell=%g, r_c=%g): "
                       "raise outer to at least %d or lower ell or r_c",
                       m->n_outer, m->side, l->ell, l->r_c, m->side);
    m->ds = l->ell / m->n_inner;
    m->dtheta = 2 * MM_PI / m->n_inner;
    if (alloc_tables(m) != 0)
        return -1;
    int ni = m->n_inner;
    for (int k = 0; k < ni; k++) {
        double theta = m->dtheta * k, face = theta + m->dtheta / 2;
        m->cos_theta[k] = cos(theta);
        m->sin_theta[k] = sin(theta);
        m->cos_face[k] = cos(face);
        m->sin_face[k] = sin(face);
        m->s_mid[k] = -l->ell / 2 + (k + 0.5) * m->ds;
    }
    for (int w = 0; w < m->window; w++) {
        double dx = w % m->side - m->half, dy = w / m->side - m->half;
        for (int k = 0; k < ni; k++) {
            int first = ni, end = ni;
            for (int s = 0; s < ni; s++)
                if (mm_feasible(dx, dy, m->s_mid[s], m->cos_theta[k], m->sin_theta[k], l->r_c)) {
                    if (first == ni)
                        first = s;
                    end = s + 1;
                }
            m->line_first[w * ni + k] = first;
            m->line_end[w * ni + k] = end;
        }
    }
    /* Layer l sits at a height growing as (l + 1)^2 (fine near the bottom plate, layer 0 the
     * filaments' plane); the no-slip plate screens a layer over a length of its height. */
    for (int z = 0; z < m->layers; z++)
        m->kappa_layer[z] = l->kappa / ((z + 1.0) * (z + 1.0));
    return 0;
}

double mm_bound_bytes(const mm_model *m)
{
    return (double)m->n_outer * m->n_outer * m->window * m->n_inner * m->n_inner * sizeof(double);
}

void mm_model_free(mm_model *m)
{
    free(m->cos_theta);
    free(m->sin_theta);
    free(m->cos_face);
    free(m->sin_face);
    free(m->s_mid);
    free(m->line_first);
    free(m->line_end);
    free(m->kappa_layer);
    free(m->psi0);
    free(m->m_tot);
    m->cos_theta = m->sin_theta = m->cos_face = m->sin_face = m->s_mid = NULL;
    m->line_first = m->line_end = NULL;
    m->kappa_layer = m->psi0 = m->m_tot = NULL;
}
