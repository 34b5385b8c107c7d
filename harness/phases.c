/* Phases of a run: host-clock time per named phase, and the NVTX ranges that show them in
 * Nsight Systems / Compute as <workload>/<variant>/<phase>. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <nvtx3/nvToolsExt.h>

#include "variant.h"

double sb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void sb_phases_clear(sb_phases *p)
{
    p->n = 0;
}

void sb_phase_add(sb_phases *p, const char *name, double seconds)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->name[i], name) == 0) {
            p->seconds[i] += seconds;
            return;
        }
    if (p->n < SB_MAX_PHASES) {
        p->name[p->n] = name;
        p->seconds[p->n++] = seconds;
    }
}

void sb_range_push(const char *label, const char *name)
{
    char full[256];
    snprintf(full, sizeof full, "%s/%s", label, name);
    nvtxRangePushA(full);
}

void sb_range_pop(void)
{
    nvtxRangePop();
}

double sb_phase_begin(const sb_env *env, const char *name)
{
    sb_range_push(env->label, name);
    return sb_now();
}

void sb_phase_end(sb_phases *p, const char *name, double started)
{
    sb_phase_add(p, name, sb_now() - started);
    sb_range_pop();
}
