/* Angiogenesis models and runs for the tests: a model from parameter assignments (as a user
 * gives them), and one run of a variant into an output. Included after cmocka. */
#ifndef ANGIO_FIXTURE_H
#define ANGIO_FIXTURE_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "harness/error.h"
#include "harness/measure.h"
#include "harness/variant.h"
#include "variants/angio/model.h"

extern const sb_workload sb_workload_angio;

/* The workload's parameters with "name=value" assignments applied (NULL-terminated). */
static inline sb_params *angio_params(const char *first, ...)
{
    static sb_params p;
    sb_params_init(&p, sb_workload_angio.params, sb_workload_angio.nparams);
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a; a = va_arg(ap, const char *))
        if (sb_params_assign(&p, a) != 0)
            fail_msg("%s: %s", a, sb_error());
    va_end(ap);
    return &p;
}

static inline ag_model *angio_load(const sb_params *p)
{
    void *m;
    if (sb_workload_angio.load(p, &m) != 0)
        fail_msg("load: %s", sb_error());
    return m;
}

/* One run of `variant` (on device *dev, or the CPU when dev is NULL) into a new output. */
static inline ag_output *angio_run(const char *variant, const ag_model *m, const sb_params *p,
                                   const int *dev)
{
    const sb_variant *v = sb_find_variant(&sb_workload_angio, variant);
    assert_non_null(v);
    ag_output *o = sb_workload_angio.output_new(m);
    assert_non_null(o);
    sb_workload_angio.output_poison(o);
    if (sb_run_once(&sb_workload_angio, v, m, p, dev, dev ? 1 : 0, o) != 0)
        fail_msg("%s: %s: %s", m->scenario, variant, sb_error());
    return o;
}

static inline void angio_assert_equal(const ag_model *m, const ag_output *ref,
                                      const ag_output *got, const char *variant)
{
    char why[512];
    if (!sb_workload_angio.output_equal(m, ref, got, why, sizeof why))
        fail_msg("%s: %s differs from cpu-reference: %s", m->scenario, variant, why);
}

static inline void angio_free(ag_model *m, ag_output *o)
{
    if (o)
        sb_workload_angio.output_free(o);
    if (m)
        sb_workload_angio.free_model(m);
}

#endif
