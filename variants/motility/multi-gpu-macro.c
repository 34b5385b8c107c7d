/* Stage 6' (beyond the paper): `gpu-macro` over the GPUs of one machine, rows of tails each as
 * `multi-gpu`. The macroscale runs on GPU 0; Psi and dt go from it to the others peer to peer,
 * their coarse densities, M_f and F come back the same way and their F is added on GPU 0 in GPU
 * order. Events order the GPUs' streams: the host queues the steps and waits once, at the end.
 * With `multi-gpu`, the host's macroscale and its round trips stay serial while the micro scale
 * divides; here only the GPU's macro does (about 1 ms a step at 256² outer cells). */
#include "gpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    mm_stage_config c = {mm_kernel_optimized, MM_RESIDENT, 1, MM_ONE_PROCESS, 1};
    return mm_gpu_setup(env, model, state, &c);
}

const sb_variant_ops mm_multi_gpu_macro_ops = {setup, mm_gpu_run, mm_gpu_output, mm_gpu_teardown,
                                               mm_gpu_report};
