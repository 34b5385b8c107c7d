/* Stage 0 beside the oracle: cpu-reference's passes spread over every core, a slab of sites to
 * each thread (the sites of a pass are independent). Beyond the paper: it validates lattices
 * too large for one core. The result is the reference's, bit for bit, whatever the thread count:
 * the per-thread overflow lists are sorted before placement. */
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    return rd_reference_open(model, env->cpu_threads, state);
}

const sb_variant_ops rd_cpu_openmp_ops = {setup, rd_reference_state_run,
                                          rd_reference_state_output, rd_reference_state_free,
                                          NULL};
