/* Stage 3 (the paper's 3.2): `resident` with every kernel optimization of table 3: M_b, M_f
 * and the coarse sum in fp32, fast math, __launch_bounds__(128, 8), threadIdx.x along s, s
 * innermost in memory, the unrolled block sum, 8 x 16 blocks. */
#include "gpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    mm_stage_config c = {mm_kernel_optimized, MM_RESIDENT, 0, MM_ONE_PROCESS, 0};
    return mm_gpu_setup(env, model, state, &c);
}

const sb_variant_ops mm_optimized_ops = {setup, mm_gpu_run, mm_gpu_output, mm_gpu_teardown,
                                    mm_gpu_report};
