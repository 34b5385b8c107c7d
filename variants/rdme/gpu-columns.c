/* Stage 11 (beyond the paper): stage 10's device-side step loop on one GPU with the sweeps of
 * kernels-columns.cu, written for few instructions per site (kernels.cu's are bound by
 * instruction issue, not DRAM): a thread keeps a line of sites along the swept axis in
 * registers, writes the sites with nothing in or next to them as it read them, and leaves the
 * draws and the gathers of the others to warp-wide lists; the z-sweep applies the reactions.
 * Packed 32-bit sites only; byte16 and several slabs are refused. */
#include "mgpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const rd_mgpu_stage stage = {RD_HALO_PEER, 1, 0, 1, 1, 1};
    return rd_mgpu_setup(env, model, state, &stage);
}

const sb_variant_ops rd_gpu_columns_ops = {setup, rd_mgpu_run, rd_mgpu_output, rd_mgpu_teardown,
                                           rd_mgpu_report};
