#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fate.h"
#include "../../cuda/base/error.h"

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Deepest generation a cell of fluorescence phi can reach: daughters need f/2 > phi_min. */
static unsigned deepest_generation(double phi, double phi_min)
{
    unsigned g = 0;
    double f = phi;
    while (g < PC_MAX_GEN && det_mul(f, 0.5) > phi_min) {
        f = det_mul(f, 0.5);
        g++;
    }
    return g;
}

static int build_omega(pc_model *m)
{
    unsigned deepest = 0;
    size_t nvalues = 0;
    for (int i = 0; i < m->nrows; i++) {
        unsigned d = deepest_generation(m->phi[i], m->rules.phi_min);
        if (d > deepest)
            deepest = d;
        nvalues += (size_t)d + 1;
    }
    m->deepest_generation = (int)deepest;
    m->gen_stride = (int)deepest + 1;
    double *values = malloc(nvalues * sizeof *values);
    size_t index_entries = (size_t)(unsigned)m->nrows * (deepest + 1);
    m->omega_index = malloc(index_entries * sizeof *m->omega_index);
    if (!values || !m->omega_index) {
        free(values);
        return sb_fail("out of host memory building the fluorescence table (%zu values)", nvalues);
    }
    size_t k = 0;
    for (int i = 0; i < m->nrows; i++) {
        unsigned d = deepest_generation(m->phi[i], m->rules.phi_min);
        double f = m->phi[i];
        for (unsigned g = 0; g <= d; g++, f = det_mul(f, 0.5))
            values[k++] = f;
    }
    qsort(values, nvalues, sizeof *values, compare_doubles);
    size_t distinct = 0;
    for (size_t j = 0; j < nvalues; j++)
        if (distinct == 0 || values[j] != values[distinct - 1])
            values[distinct++] = values[j];
    m->omega = values;
    m->nomega = (int)distinct;
    for (int i = 0; i < m->nrows; i++) {
        unsigned d = deepest_generation(m->phi[i], m->rules.phi_min);
        double f = m->phi[i];
        for (int g = 0; g < m->gen_stride; g++) {
            int idx = (unsigned)g <= d ? pc_omega_search(m->omega, m->nomega, f) : -1;
            m->omega_index[(size_t)i * m->gen_stride + g] = idx < 0 ? UINT32_MAX : (uint32_t)idx;
            f = det_mul(f, 0.5);
        }
    }
    return 0;
}

int pc_model_build(pc_model *m, const pc_histogram_row *rows, int nrows, uint64_t replicate,
                   double phi_min, double t_max, int async_start, uint32_t seed)
{
    /* the caller has filled m->rules' types and the descriptive paths */
    m->rules.seed = seed;
    m->rules.t_max = t_max;
    m->rules.async_start = async_start;
    m->nrows = 0;
    m->phi = malloc((size_t)(nrows ? nrows : 1) * sizeof *m->phi);
    m->root_start = malloc((size_t)(nrows + 1) * sizeof *m->root_start);
    if (!m->phi || !m->root_start)
        return sb_fail("out of host memory for %d histogram rows", nrows);
    uint64_t roots = 0;
    for (int i = 0; i < nrows; i++) {
        if (rows[i].count == 0)
            continue;
        uint64_t n = rows[i].count * replicate;
        if (n / replicate != rows[i].count || roots + n > UINT32_MAX)
            return sb_fail("%s: %llu cells x replicate %llu exceeds the 2^32 initial cells this "
                           "suite keys its random numbers by; lower replicate",
                           m->histogram_path, (unsigned long long)roots,
                           (unsigned long long)replicate);
        m->phi[m->nrows] = rows[i].phi;
        m->root_start[m->nrows] = roots;
        m->nrows++;
        roots += n;
    }
    m->root_start[m->nrows] = roots;
    m->nroots = roots;
    if (m->nrows == 0)
        return sb_fail("%s: no cells (every count is 0); give a histogram with at least one "
                       "non-zero count", m->histogram_path);
    m->rules.phi_min = phi_min < 0 ? m->phi[0] : phi_min;
    return build_omega(m);
}

void pc_model_free(pc_model *m)
{
    free(m->phi);
    free(m->root_start);
    free(m->omega);
    free(m->omega_index);
    memset(m, 0, sizeof *m);
}

int pc_output_init(pc_output *o, const pc_model *m)
{
    memset(o, 0, sizeof *o);
    o->nomega = m->nomega;
    o->counts = calloc((size_t)m->nomega, sizeof *o->counts);
    if (!o->counts)
        return sb_fail("out of host memory for a histogram of %d bins", m->nomega);
    return 0;
}

void pc_output_zero(pc_output *o)
{
    memset(o->counts, 0, (size_t)o->nomega * sizeof *o->counts);
    o->divisions = o->terminal = o->vanished = 0;
}

void pc_output_copy(pc_output *dst, const pc_output *src)
{
    memcpy(dst->counts, src->counts, (size_t)src->nomega * sizeof *dst->counts);
    dst->divisions = src->divisions;
    dst->terminal = src->terminal;
    dst->vanished = src->vanished;
}

void pc_output_free(pc_output *o)
{
    free(o->counts);
    memset(o, 0, sizeof *o);
}
