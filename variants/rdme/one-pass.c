/* Stage 11 (beyond the paper): gpu-fused's device-side step loop on one GPU with the whole step
 * in one kernel (rd_one_pass): the x-, y- and z-sweeps and the reactions of a tile of columns,
 * its block redoing its neighbours' sweeps of the sites around it with the same keyed draws. A
 * step reads and writes the lattice once, the problem's floor, where gpu-fused passes over it
 * three times; the price is the sweeps of the ring around each tile done twice. The step goes
 * from one lattice to the other, so a body of the loop holds an even number of steps. */
#include "mgpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const rd_mgpu_stage stage = {RD_HALO_PEER, 1, 0, 1, 0, 1};
    return rd_mgpu_setup(env, model, state, &stage);
}

const sb_variant_ops rd_one_pass_ops = {setup, rd_mgpu_run, rd_mgpu_output, rd_mgpu_teardown,
                                        rd_mgpu_report};
