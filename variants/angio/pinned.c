/* Stage 6 (3.7): stage 5 with page-locked host buffers for every copy (paper: +5 %). */
#include "coproc.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const ag_coproc_stage stage = {AG_CC_LIST_TEXTURE, 1, 1};
    return ag_coproc_setup(env, model, state, &stage);
}

const sb_variant_ops ag_pinned_ops = {setup, ag_coproc_run, ag_coproc_output,
                                      ag_coproc_teardown, ag_coproc_report};
