/* Stage 1, the earlier hybrid algorithm (table 2's baseline): the global inner step, reduced
 * on the host over every tail, Adams-Bashforth 2 (M_b and the previous rates), fp64, and M_b
 * kept on the host and moved through the GPU every outer step, in pieces of what fits
 * (`piece_tails` forces smaller ones). The restructured kernel; the macro on the host. */
#include "gpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    mm_stage_config c = {mm_kernel_restructured, MM_PIECES, 0, MM_ONE_PROCESS, 0};
    return mm_gpu_setup(env, model, state, &c);
}

const sb_variant_ops mm_original_ops = {setup, mm_gpu_run, mm_gpu_output, mm_gpu_teardown,
                                    mm_gpu_report};
