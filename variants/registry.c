#include "registry.h"

#include <string.h>

#include "../cuda/base/error.h"

extern const sb_workload sb_workload_procell;
extern const sb_workload sb_workload_rdme;
extern const sb_workload sb_workload_copies;
extern const sb_workload sb_workload_angio;
extern const sb_workload sb_workload_motility;

static const sb_workload *const workloads[] = {
    &sb_workload_procell,
    &sb_workload_rdme,
    &sb_workload_copies,
    &sb_workload_angio,
    &sb_workload_motility,
};

#define BUILT_IN ((int)(sizeof workloads / sizeof workloads[0]))

/* Workloads a test executable adds (tests/faulty_stagebench.c); none in stagebench itself. */
static const sb_workload *extra[4];
static int nextra;

int sb_register_test_workload(const sb_workload *w)
{
    if (nextra == (int)(sizeof extra / sizeof extra[0]))
        return sb_fail("at most %d test workloads", (int)(sizeof extra / sizeof extra[0]));
    extra[nextra++] = w;
    return 0;
}

int sb_workload_count(void)
{
    return BUILT_IN + nextra;
}

const sb_workload *sb_workload_at(int i)
{
    return i < BUILT_IN ? workloads[i] : extra[i - BUILT_IN];
}

const sb_workload *sb_find_workload(const char *name)
{
    char known[512] = "";
    for (int i = 0; i < sb_workload_count(); i++) {
        const sb_workload *w = sb_workload_at(i);
        if (strcmp(w->name, name) == 0)
            return w;
        strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
        strncat(known, w->name, sizeof known - strlen(known) - 1);
    }
    sb_fail("unknown workload '%s'; known workloads: %s", name, known);
    return NULL;
}

const sb_variant *sb_find_variant(const sb_workload *w, const char *name)
{
    for (int i = 0; i < w->nvariants; i++)
        if (strcmp(w->variants[i].name, name) == 0)
            return &w->variants[i];
    return NULL;
}

const char *sb_input_file(const sb_workload *w, const sb_params *p, int i, const char **hint)
{
    *hint = NULL;
    if (w->input_file)
        return w->input_file(p, i, hint);
    return p->decls[i].type == SB_PARAM_PATH && p->v[i].is_set && p->v[i].text[0] ? p->v[i].text
                                                                                  : NULL;
}
