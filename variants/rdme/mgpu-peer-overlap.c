/* Stage 5: the paper's fig. 2. The x-sweep of the own planes runs while the halos come in on a
 * second stream; the reactions of the edge planes run first, and their copies to the neighbours
 * go out on the second stream while the interior's reactions run. Events order the streams. */
#include "mgpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const rd_mgpu_stage stage = {RD_HALO_PEER, 1, 0};
    return rd_mgpu_setup(env, model, state, &stage);
}

const sb_variant_ops rd_mgpu_peer_overlap_ops = {setup, rd_mgpu_run, rd_mgpu_output, rd_mgpu_teardown,
                                                   rd_mgpu_report};
