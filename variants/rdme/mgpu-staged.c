/* Stage 3: the lattice in z-slabs over the GPUs (mgpu.c), one host thread each; every step a
 * GPU copies its edge planes to pinned host buffers placed for the receivers, which copy them in
 * before their next step. Nothing overlaps. */
#include "mgpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const rd_mgpu_stage stage = {RD_HALO_STAGED, 0, 0, 0, 0, 0};
    return rd_mgpu_setup(env, model, state, &stage);
}

const sb_variant_ops rd_mgpu_staged_ops = {setup, rd_mgpu_run, rd_mgpu_output, rd_mgpu_teardown,
                                             rd_mgpu_report};
