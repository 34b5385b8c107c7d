/* Stage 2 (the paper's 3.1): M_b lives on the GPU, one block per tail takes it to t + dt in
 * local inner steps (RK2), only Psi goes in and the coarse densities, M_f and F come out. fp64,
 * none of 3.2's kernel optimizations. */
#include "gpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    mm_stage_config c = {mm_kernel_restructured, MM_RESIDENT, 0, MM_ONE_PROCESS, 0};
    return mm_gpu_setup(env, model, state, &c);
}

const sb_variant_ops mm_resident_ops = {setup, mm_gpu_run, mm_gpu_output, mm_gpu_teardown,
                                    mm_gpu_report};
