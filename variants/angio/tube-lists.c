/* Stage 5 (alg. 5, 6): tube-cell split in two, a thread per tube finding its cells and
 * appending itself to each one's list (atomicAdd), then a thread per cell over its list;
 * before, each cell searched the tubes of its box and fed their TAF by atomics. */
#include "coproc.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const ag_coproc_stage stage = {AG_CC_LIST_TEXTURE, 1, 0};
    return ag_coproc_setup(env, model, state, &stage);
}

const sb_variant_ops ag_tube_lists_ops = {setup, ag_coproc_run, ag_coproc_output,
                                          ag_coproc_teardown, ag_coproc_report};
