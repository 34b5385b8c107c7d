/* Parameters: defaults, typed values, ranges, choices, unknown names, benchmark names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "cuda/base/error.h"
#include "harness/params.h"
#include "variants/registry.h"

static const sb_param_decl decls[] = {
    {"histogram", SB_PARAM_PATH, NULL, 0, 0, NULL, "a file"},
    {"t_max", SB_PARAM_FLOAT, "240", 1e-9, 1e6, NULL, "hours"},
    {"start", SB_PARAM_CHOICE, "async", 0, 0, "sync|async", "start mode"},
    {"seed", SB_PARAM_INT, "1", 0, 4294967295.0, NULL, "seed"},
};

static void defaults_are_loaded(void **unused)
{
    (void)unused;
    sb_params p;
    sb_params_init(&p, decls, 4);
    assert_false(sb_param_is_set(&p, "histogram"));
    assert_true(sb_param_is_set(&p, "t_max"));
    assert_true(sb_param_num(&p, "t_max") == 240.0);
    assert_string_equal(sb_param_text(&p, "start"), "async");
    char name[256];
    sb_params_name(&p, name, sizeof name);
    assert_string_equal(name, ""); /* defaults are not part of the name */
}

static void values_are_typed_and_named(void **unused)
{
    (void)unused;
    sb_params p;
    sb_params_init(&p, decls, 4);
    assert_int_equal(sb_params_assign(&p, "histogram=/data/x/UT1.txt"), 0);
    assert_int_equal(sb_params_assign(&p, "t_max=720.5"), 0);
    assert_int_equal(sb_params_set(&p, "seed", "4294967295"), 0);
    assert_true(sb_param_num(&p, "t_max") == 720.5);
    char name[256];
    sb_params_name(&p, name, sizeof name);
    assert_string_equal(name, "histogram:UT1.txt/t_max:720.5/seed:4294967295");
}

static void bad_values_are_refused_with_the_reason(void **unused)
{
    (void)unused;
    sb_params p;
    sb_params_init(&p, decls, 4);
    assert_int_equal(sb_params_assign(&p, "colour=red"), -1);
    assert_non_null(strstr(sb_error(), "unknown parameter 'colour'"));
    assert_non_null(strstr(sb_error(), "histogram, t_max, start, seed"));
    assert_int_equal(sb_params_assign(&p, "t_max=soon"), -1);
    assert_non_null(strstr(sb_error(), "not a number"));
    assert_int_equal(sb_params_assign(&p, "t_max=-1"), -1);
    assert_non_null(strstr(sb_error(), "outside"));
    assert_int_equal(sb_params_assign(&p, "t_max=inf"), -1);
    assert_int_equal(sb_params_assign(&p, "seed=1.5"), -1);
    assert_non_null(strstr(sb_error(), "whole number"));
    assert_int_equal(sb_params_assign(&p, "seed=4294967296"), -1);
    assert_int_equal(sb_params_assign(&p, "start=later"), -1);
    assert_non_null(strstr(sb_error(), "sync|async"));
    assert_int_equal(sb_params_assign(&p, "histogram="), -1);
    assert_int_equal(sb_params_assign(&p, "t_max"), -1);
    assert_non_null(strstr(sb_error(), "name=value"));
    /* a refused value leaves the previous one */
    assert_true(sb_param_num(&p, "t_max") == 240.0);
}

/* sb_params holds SB_MAX_PARAMS values: a workload declaring more would lose the rest (their
 * names unknown to the command line, their defaults unset). Every registered workload fits. */
static void every_workload_fits(void **unused)
{
    (void)unused;
    for (int i = 0; i < sb_workload_count(); i++) {
        const sb_workload *w = sb_workload_at(i);
        if (w->nparams > SB_MAX_PARAMS)
            fail_msg("%s declares %d parameters, sb_params holds %d: raise SB_MAX_PARAMS",
                     w->name, w->nparams, SB_MAX_PARAMS);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_workload_fits),
        cmocka_unit_test(defaults_are_loaded),
        cmocka_unit_test(values_are_typed_and_named),
        cmocka_unit_test(bad_values_are_refused_with_the_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
