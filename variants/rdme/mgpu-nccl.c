/* Stage 7 (beyond the paper): stage 6 with the halos sent by NCCL (ncclSend/ncclRecv in a group
 * per GPU) straight into the neighbours' halo planes, on the second stream: NCCL picks NVLink or
 * PCIe, and no receive buffer or local copy is needed. One NCCL rank per GPU. */
#include "mgpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const rd_mgpu_stage stage = {RD_HALO_NCCL, 1, 1, 0, 0, 0};
    return rd_mgpu_setup(env, model, state, &stage);
}

const sb_variant_ops rd_mgpu_nccl_ops = {setup, rd_mgpu_run, rd_mgpu_output, rd_mgpu_teardown,
                                           rd_mgpu_report};
