/* Stage 0, every core: rows of tails shared out among the threads (each tail's update is its
 * own, as on the GPU), and the macro loops (outer step, transport, stress, fluid layers). The
 * force goes through a band per row of tails, added in row order: the result does not depend on
 * the number of threads, and differs from cpu-reference only by the order of the force's sums. */
#include <omp.h>

#include "host.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    int threads = env->cpu_threads > 0 ? env->cpu_threads : omp_get_max_threads();
    return mm_stage_open(env, model, threads, 1, state);
}

const sb_variant_ops mm_cpu_openmp_ops = {setup, mm_stage_run, mm_stage_output, mm_stage_teardown,
                                          mm_stage_report};
