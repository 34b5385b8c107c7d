/* Stage 2 (thesis 3.2.3, fig. 3.6): the levels X_0..X_D are preallocated in device memory, as many
 * as the level budget allows (at most 24, CUDA's nesting limit). Every block, after a barrier,
 * launches the next level's child grid of two blocks from the device, whether or not any of its
 * children is Alive; the host copies the levels back and files terminal cells and restarts. */
#include "levels.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const pc_levels_config config = {.bounding = 0, .infer_depth = 0, .gpu_histogram = 0};
    return pc_levels_setup(env, (const pc_model *)model, &config, state);
}

const sb_variant_ops pc_dynamic_parallelism_ops = {setup, pc_levels_run, pc_levels_output,
                                                   pc_levels_teardown, pc_levels_report};
