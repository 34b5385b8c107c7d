/* Table 3: `optimized` without __launch_bounds__ (the compiler picks the registers). */
#include "gpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    mm_stage_config c = {mm_kernel_optimized, MM_RESIDENT, 0, MM_ONE_PROCESS, 0};
    c.kernel.launch_bounds = 0;
    return mm_gpu_setup(env, model, state, &c);
}

const sb_variant_ops mm_optimized_no_launch_bounds_ops = {setup, mm_gpu_run, mm_gpu_output, mm_gpu_teardown,
                                    mm_gpu_report};
