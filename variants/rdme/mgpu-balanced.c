/* Stage 6: stage 5 plus the paper's dynamic load balancing: each GPU's step time averaged over a
 * batch (balance_steps; default 25 ms of simulated time); when one is further from the mean than
 * balance_threshold, the z planes are split again in proportion to each GPU's speed, in whole
 * z-sweep tiles, within what each GPU's free memory holds (partition.c). */
#include "mgpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const rd_mgpu_stage stage = {RD_HALO_PEER, 1, 1, 0, 0, 0};
    return rd_mgpu_setup(env, model, state, &stage);
}

const sb_variant_ops rd_mgpu_balanced_ops = {setup, rd_mgpu_run, rd_mgpu_output, rd_mgpu_teardown,
                                               rd_mgpu_report};
