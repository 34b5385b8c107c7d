/* Stage 4 (3.5, fig. 3): the interactions read their neighbours' positions and oxygen through
 * texture objects (the read-only cache). */
#include "coproc.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const ag_coproc_stage stage = {AG_CC_LIST_TEXTURE, 0, 0};
    return ag_coproc_setup(env, model, state, &stage);
}

const sb_variant_ops ag_texture_ops = {setup, ag_coproc_run, ag_coproc_output,
                                       ag_coproc_teardown, ag_coproc_report};
