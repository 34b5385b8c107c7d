/* Stage 5 (thesis 3.2.3, figs. 3.9-3.10): + each terminal cell binary-searches the sorted table
 * Omega of every reachable fluorescence and atomicAdds its bin on the device. The levels are no
 * longer copied back and filtered (so every generation's level stays allocated: fig. 3.10); only
 * the last level's Alive cells come back, to restart. */
#include "levels.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const pc_levels_config config = {.bounding = 1, .infer_depth = 1, .gpu_histogram = 1};
    return pc_levels_setup(env, (const pc_model *)model, &config, state);
}

const sb_variant_ops pc_gpu_histogram_ops = {setup, pc_levels_run, pc_levels_output,
                                             pc_levels_teardown, pc_levels_report};
