/* Motility models and runs for the tests: a model from parameter assignments (as a user gives
 * them), one run of a CPU variant into an output, how far two arrays are apart. Included after
 * cmocka. */
#ifndef MOTILITY_FIXTURE_H
#define MOTILITY_FIXTURE_H

#include <math.h>
#include <stdarg.h>

#include "variants/motility/model.h"
#include "workload_fixture.h"

extern const sb_workload sb_workload_motility;

/* The workload's parameters with "name=value" assignments applied (NULL-terminated). */
static inline sb_params *motility_params(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    sb_params *p = workload_params(&sb_workload_motility, first, ap);
    va_end(ap);
    return p;
}

static inline mm_model *motility_load(const sb_params *p)
{
    return workload_load(&sb_workload_motility, p);
}

/* One run of a CPU variant into a new output. */
static inline mm_output *motility_run(const char *variant, const mm_model *m, const sb_params *p)
{
    return workload_run(&sb_workload_motility, variant, m, m->scenario, p, NULL);
}

/* The largest |a - b| over n entries, relative to the largest |b|. */
static inline double motility_max_rel(const double *a, const double *b, size_t n)
{
    double diff = 0, scale = 0;
    for (size_t e = 0; e < n; e++) {
        diff = fmax(diff, fabs(a[e] - b[e]));
        scale = fmax(scale, fabs(b[e]));
    }
    return scale > 0 ? diff / scale : diff;
}

static inline void motility_free(mm_model *m, mm_output *o)
{
    if (o)
        sb_workload_motility.output_free(o);
    if (m)
        sb_workload_motility.free_model(m);
}

#endif
