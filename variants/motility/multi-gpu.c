/* Stage 4 (the paper's 3.3): `optimized` over the GPUs of one machine (`gpus`, default every
 * visible one), whole rows of tails each; Psi sent to every GPU, the coarse densities and M_f
 * of each one's rows gathered, their F summed on the host in GPU order. */
#include "gpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    mm_stage_config c = {mm_kernel_optimized, MM_RESIDENT, 1, MM_ONE_PROCESS, 0};
    return mm_gpu_setup(env, model, state, &c);
}

const sb_variant_ops mm_multi_gpu_ops = {setup, mm_gpu_run, mm_gpu_output, mm_gpu_teardown,
                                    mm_gpu_report};
