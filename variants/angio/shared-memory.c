/* Stage 3 (alg. 4): the neighbour lists built a box per block, the block as many threads as a
 * box has slots; each of the 27 boxes around is staged in shared memory, a cell per thread. */
#include "coproc.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const ag_coproc_stage stage = {AG_CC_LIST_SHARED, 0, 0};
    return ag_coproc_setup(env, model, state, &stage);
}

const sb_variant_ops ag_shared_memory_ops = {setup, ag_coproc_run, ag_coproc_output,
                                             ag_coproc_teardown, ag_coproc_report};
