/* Stage 3 (thesis 3.2.3, fig. 3.7): + a block vote (__syncthreads_or): a block none of whose
 * children is Alive launches nothing, so dead subtrees cost no launches and no work. */
#include "levels.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const pc_levels_config config = {.bounding = 1, .infer_depth = 0, .gpu_histogram = 0};
    return pc_levels_setup(env, (const pc_model *)model, &config, state);
}

const sb_variant_ops pc_bounding_ops = {setup, pc_levels_run, pc_levels_output,
                                        pc_levels_teardown, pc_levels_report};
