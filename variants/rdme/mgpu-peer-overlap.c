/* Stage 5: the paper's fig. 2, overlap of copies and compute on two streams ordered by events:
 * the reactions of the edge planes, and then their copies to the neighbours, run on a second,
 * high-priority stream beside the interior's reactions (reactions touch one site each, so the two
 * launches are independent). The paper also splits the x-sweep, to hide
 * the copy from its receive buffer into the halo; here (stage 4) the neighbours write the halo
 * planes themselves, so no such copy is left to hide (splitting it anyway cost 10 % of the step
 * on two H200s, dividing E. coli at 8 nm). */
#include "mgpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const rd_mgpu_stage stage = {RD_HALO_PEER, 1, 0, 0, 0, 0};
    return rd_mgpu_setup(env, model, state, &stage);
}

const sb_variant_ops rd_mgpu_peer_overlap_ops = {setup, rd_mgpu_run, rd_mgpu_output, rd_mgpu_teardown,
                                                   rd_mgpu_report};
