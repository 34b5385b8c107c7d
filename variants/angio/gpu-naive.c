/* Stage 1, the paper's first approach (alg. 3): each phase converts the host's cells to arrays
 * per property and copies them in; one thread per cell visits the 27 boxes around it and
 * computes force, exchange and pressure in one kernel, without Newton's third law (no two
 * threads write one cell); the results come back. Tube-cell: each cell searches its box's
 * tubes. */
#include "coproc.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const ag_coproc_stage stage = {AG_CC_NAIVE, 0, 0};
    return ag_coproc_setup(env, model, state, &stage);
}

const sb_variant_ops ag_gpu_naive_ops = {setup, ag_coproc_run, ag_coproc_output,
                                         ag_coproc_teardown, ag_coproc_report};
