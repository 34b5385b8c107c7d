/* Stage 6 (beyond the paper): `optimized` with the macroscale on the GPU too (macro.cu): Psi's
 * transport and outer step, the extra stress and the cuFFT fluid layers. Psi, dt, the coarse
 * densities, F and u never leave the GPU; the host queues the steps and waits once, at the end
 * of the run (the validation run waits at each phase to time it). The paper's conclusion names
 * the fluid and filament updates as the next bottlenecks once the micro scale is on GPUs. */
#include "gpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    mm_stage_config c = {mm_kernel_optimized, MM_RESIDENT, 0, MM_ONE_PROCESS, 1};
    return mm_gpu_setup(env, model, state, &c);
}

const sb_variant_ops mm_gpu_macro_ops = {setup, mm_gpu_run, mm_gpu_output, mm_gpu_teardown,
                                         mm_gpu_report};
