/* Stage 0, the oracle: one thread, the paper's algorithms 1 and 2 as host.c writes them (every
 * tail in turn, its motors to t + dt in its own inner steps; the force scattered tail by tail
 * straight into the grid). */
#include "host.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    return mm_stage_open(env, model, 1, 0, state);
}

const sb_variant_ops mm_cpu_reference_ops = {setup, mm_stage_run, mm_stage_output,
                                             mm_stage_teardown, mm_stage_report};
