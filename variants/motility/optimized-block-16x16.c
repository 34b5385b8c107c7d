/* Table 3: `optimized` with 16 x 16 blocks (256 threads; the launch bound keeps 1024 threads an
 * SM, so still 64 registers a thread). */
#include "gpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    mm_stage_config c = {mm_kernel_optimized, MM_RESIDENT, 0, MM_ONE_PROCESS, 0};
    c.kernel.block_x = 16;
    return mm_gpu_setup(env, model, state, &c);
}

const sb_variant_ops mm_optimized_block_16x16_ops = {setup, mm_gpu_run, mm_gpu_output, mm_gpu_teardown,
                                    mm_gpu_report};
