/* Stage 10 (beyond the paper): stage 9's device-side loop over steps on one GPU, with the
 * z-sweep and the reactions in one kernel: each z-sweep thread applies a site's reaction as it
 * writes the site, so a step passes over the lattice three times instead of four (24 B a site
 * instead of the 32 B floor of the paper's four passes) and launches one kernel less. Where a
 * whole plane fits a block's shared memory (packed32, up to 64 x 64 sites: the Min system), the
 * x- and y-sweeps of a plane are one kernel too (rd_sweep_xy): two kernels a step. Where the
 * x-sweep goes by warp strips instead (packed32 rows of whole quads, at least 128 sites: the
 * large cells), the next step's x-strips do each step's reactions, on the sites as they load
 * them, and the graph body ends with its last step's (rd_react_ahead_applies): three kernels and
 * three passes a step, the z-strips kept without reactions. */
#include "mgpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const rd_mgpu_stage stage = {RD_HALO_PEER, 1, 0, 1, 1, 0};
    return rd_mgpu_setup(env, model, state, &stage);
}

const sb_variant_ops rd_gpu_fused_ops = {setup, rd_mgpu_run, rd_mgpu_output, rd_mgpu_teardown,
                                         rd_mgpu_report};
