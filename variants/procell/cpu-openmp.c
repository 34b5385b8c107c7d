/* Stage 0, the honest multicore baseline: roots spread over every core (dynamic schedule: tree
 * sizes vary a lot), each thread walking its roots depth-first into its own histogram; the
 * histograms and tallies are summed at the end. */
#include <omp.h>
#include <stdlib.h>

#include "../../cuda/base/error.h"
#include "table.h"
#include "walk.h"

typedef struct openmp_state {
    const pc_model *m;
    int threads;
    unsigned long long *thread_counts; /* threads x nomega */
    pc_output result;
} openmp_state;

static int setup(sb_env *env, const void *model, void **state)
{
    const pc_model *m = model;
    openmp_state *s = calloc(1, sizeof *s);
    if (!s)
        return sb_fail("out of host memory");
    s->m = m;
    s->threads = env->cpu_threads;
    s->thread_counts = calloc((size_t)s->threads * m->nomega, sizeof *s->thread_counts);
    if (!s->thread_counts || pc_output_init(&s->result, m) != 0) {
        free(s->thread_counts);
        free(s);
        return sb_fail("out of host memory for %d per-thread histograms", env->cpu_threads);
    }
    *state = s;
    return 0;
}

static int run(void *state)
{
    openmp_state *s = state;
    const pc_model *m = s->m;
    const pc_tables tab = {m->phi, m->root_start, m->omega_index, m->nrows, m->gen_stride};
    pc_tally total = {0, 0, 0, 0};
    pc_output_zero(&s->result);
#pragma omp parallel num_threads(s->threads)
    {
        unsigned long long *hist = s->thread_counts + (size_t)omp_get_thread_num() * m->nomega;
        pc_tally tally = {0, 0, 0, 0};
        for (int i = 0; i < m->nomega; i++)
            hist[i] = 0;
#pragma omp for schedule(dynamic, 64)
        for (long long root = 0; root < (long long)m->nroots; root++)
            pc_walk_root(&m->rules, &tab, (uint32_t)root, hist, &tally);
#pragma omp critical
        {
            for (int i = 0; i < m->nomega; i++)
                s->result.counts[i] += hist[i];
            total.divisions += tally.divisions;
            total.terminal += tally.terminal;
            total.vanished += tally.vanished;
            total.too_deep += tally.too_deep;
        }
    }
    if (total.too_deep)
        return sb_fail("%llu cells divide past generation %d: lower t_max or raise phi_min",
                       total.too_deep, PC_MAX_GEN);
    s->result.divisions = total.divisions;
    s->result.terminal = total.terminal;
    s->result.vanished = total.vanished;
    return 0;
}

static int output(void *state, void *out)
{
    openmp_state *s = state;
    pc_output_copy(out, &s->result);
    return 0;
}

static void teardown(void *state)
{
    openmp_state *s = state;
    pc_output_free(&s->result);
    free(s->thread_counts);
    free(s);
}

const sb_variant_ops pc_cpu_openmp_ops = {setup, run, output, teardown, NULL};
