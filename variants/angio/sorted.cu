/* Stage 8: resident (resident.cu), with the interaction inputs re-ordered by box at every
 * cell-list rebuild (each slot gathers its cell's): a box's cells sit in consecutive slots, so
 * the threads of a warp walk the same boxes and the 27-box walk reads runs of 16-byte vectors;
 * each slot's thread steps its cell in the id-ordered cells, where the life cycle stays. */
#include "resident.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    return ag_resident_setup(env, model, state, 1);
}

extern "C" const sb_variant_ops ag_sorted_ops = {setup, ag_resident_run, ag_resident_output,
                                                ag_resident_teardown, ag_resident_report};
