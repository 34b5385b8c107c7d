/* Table 3: `optimized` with threadIdx.x along theta and threadIdx.y along s (consecutive lanes
 * then touch cells N_i apart). */
#include "gpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    mm_stage_config c = {mm_kernel_optimized, MM_RESIDENT, 0, MM_ONE_PROCESS, 0};
    c.kernel.map_s_to_x = 0;
    return mm_gpu_setup(env, model, state, &c);
}

const sb_variant_ops mm_optimized_no_dimension_mapping_ops = {setup, mm_gpu_run, mm_gpu_output, mm_gpu_teardown,
                                    mm_gpu_report};
