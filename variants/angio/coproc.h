/* The paper's GPU stages (1-6): the GPU as a co-processor of the host simulation. Each step the
 * host builds the cell lists; each interaction phase converts the host's cells (structures) to
 * arrays per property, copies them to the GPU, runs the phase's kernels, copies the results back
 * and adds them into the host's cells; the life cycle stays on the host. Conversion, copies and
 * kernels are timed apart, as the paper did (its fig. 7). A stage is a choice of kernels. */
#ifndef AG_COPROC_H
#define AG_COPROC_H

#include "../../harness/variant.h"
#include "host.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ag_cell_kernels {
    AG_CC_NAIVE,        /* one kernel: each cell over 27 boxes (alg. 3) */
    AG_CC_LIST,         /* neighbour lists, then interactions from them (3.3) */
    AG_CC_LIST_SHARED,  /* lists built a box per block, neighbours staged in shared memory (alg. 4) */
    AG_CC_LIST_TEXTURE, /* + the interactions read neighbours through texture objects (3.5) */
} ag_cell_kernels;

typedef struct ag_coproc_stage {
    ag_cell_kernels cells;
    int tube_lists; /* 0: each cell searches its box's tubes; 1: tube lists (alg. 5, 6) */
    int pinned;     /* page-locked host buffers (3.7) */
} ag_coproc_stage;

int ag_coproc_setup(sb_env *env, const void *model, void **state, const ag_coproc_stage *stage);
/* run, output, teardown and report of every co-processor stage */
int ag_coproc_run(void *state);
int ag_coproc_output(void *state, void *out);
void ag_coproc_teardown(void *state);
void ag_coproc_report(void *state, sb_report *r);

/* For tests, after a one-step run (steps=1): the neighbour and tube lists that step built on
 * the GPU, copied back, each cell's entries in list order (out->has_neighbours,
 * out->has_tubes: whether the stage builds them). A list longer than its capacity (truncated)
 * or an entry out of range fails. Free *out with ag_step_lists_free, also after a failure. */
int ag_coproc_step_lists(void *state, ag_step_lists *out);

#ifdef __cplusplus
}
#endif

#endif
