/* Stage 2 (3.3): the big kernel split in two, neighbour lists then the interactions from them,
 * so that the first's registers no longer limit the second's occupancy. */
#include "coproc.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const ag_coproc_stage stage = {AG_CC_LIST, 0, 0};
    return ag_coproc_setup(env, model, state, &stage);
}

const sb_variant_ops ag_neighbor_list_ops = {setup, ag_coproc_run, ag_coproc_output,
                                             ag_coproc_teardown, ag_coproc_report};
