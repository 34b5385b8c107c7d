/* Motility models and runs for the tests: a model from parameter assignments (as a user gives
 * them), one run of a variant into an output, and a comparison of two outputs. Included after
 * cmocka. */
#ifndef MOTILITY_FIXTURE_H
#define MOTILITY_FIXTURE_H

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

#include "harness/error.h"
#include "harness/measure.h"
#include "harness/variant.h"
#include "variants/motility/model.h"

extern const sb_workload sb_workload_motility;

/* The workload's parameters with "name=value" assignments applied (NULL-terminated). */
static inline sb_params *motility_params(const char *first, ...)
{
    static sb_params p;
    sb_params_init(&p, sb_workload_motility.params, sb_workload_motility.nparams);
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a; a = va_arg(ap, const char *))
        if (sb_params_assign(&p, a) != 0)
            fail_msg("%s: %s", a, sb_error());
    va_end(ap);
    return &p;
}

static inline mm_model *motility_load(const sb_params *p)
{
    void *m;
    if (sb_workload_motility.load(p, &m) != 0)
        fail_msg("load: %s", sb_error());
    return m;
}

/* One run of a CPU variant into a new output. */
static inline mm_output *motility_run(const char *variant, const mm_model *m, const sb_params *p)
{
    const sb_variant *v = sb_find_variant(&sb_workload_motility, variant);
    assert_non_null(v);
    mm_output *o = sb_workload_motility.output_new(m);
    assert_non_null(o);
    sb_workload_motility.output_poison(o);
    if (sb_run_once(&sb_workload_motility, v, m, p, NULL, 0, o) != 0)
        fail_msg("%s: %s: %s", m->scenario, variant, sb_error());
    return o;
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
