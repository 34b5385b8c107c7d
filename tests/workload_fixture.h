/* Any workload's models and runs for the tests, from parameter assignments as a user gives them.
 * Included after cmocka. */
#ifndef WORKLOAD_FIXTURE_H
#define WORKLOAD_FIXTURE_H

#include <stdarg.h>

#include "cuda/base/error.h"
#include "harness/measure.h"
#include "harness/variant.h"

/* w's parameters with the "name=value" assignments from `first` on applied (NULL-terminated);
 * valid until the next call. */
static inline sb_params *workload_params(const sb_workload *w, const char *first, va_list ap)
{
    static sb_params p;
    sb_params_init(&p, w->params, w->nparams);
    for (const char *a = first; a; a = va_arg(ap, const char *))
        if (sb_params_assign(&p, a) != 0)
            fail_msg("%s: %s", a, sb_error());
    return &p;
}

static inline void *workload_load(const sb_workload *w, const sb_params *p)
{
    void *m;
    if (w->load(p, &m) != 0)
        fail_msg("load: %s", sb_error());
    return m;
}

/* One run of `variant` (on device *dev, or the CPU when dev is NULL) into a new output, poisoned
 * first; `scenario` names the model in a failure. */
static inline void *workload_run(const sb_workload *w, const char *variant, const void *m,
                                 const char *scenario, const sb_params *p, const int *dev)
{
    const sb_variant *v = sb_find_variant(w, variant);
    assert_non_null(v);
    void *o = w->output_new(m);
    assert_non_null(o);
    w->output_poison(o);
    if (sb_run_once(w, v, m, p, dev, dev ? 1 : 0, o) != 0)
        fail_msg("%s: %s: %s", scenario, variant, sb_error());
    return o;
}

#endif
