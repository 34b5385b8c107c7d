#include "registry.h"

#include <string.h>

#include "error.h"

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

int sb_workload_count(void)
{
    return (int)(sizeof workloads / sizeof workloads[0]);
}

const sb_workload *sb_workload_at(int i)
{
    return workloads[i];
}

const sb_workload *sb_find_workload(const char *name)
{
    char known[512] = "";
    for (int i = 0; i < sb_workload_count(); i++) {
        if (strcmp(workloads[i]->name, name) == 0)
            return workloads[i];
        strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
        strncat(known, workloads[i]->name, sizeof known - strlen(known) - 1);
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
