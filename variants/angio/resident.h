/* The resident engine (resident.cu) of stages 7 and 8: the whole simulation on the GPU, cells and
 * tubes uploaded once, nothing copied per step but the counts the host needs. `sorted` (stage 8)
 * re-orders the interaction inputs by box after every cell-list rebuild. */
#ifndef AG_RESIDENT_H
#define AG_RESIDENT_H

#include "../../harness/variant.h"

#ifdef __cplusplus
extern "C" {
#endif

int ag_resident_setup(sb_env *env, const void *model, void **state, int sorted);
/* run, output, teardown and report of both stages */
int ag_resident_run(void *state);
int ag_resident_output(void *state, void *out);
void ag_resident_teardown(void *state);
void ag_resident_report(void *state, sb_report *r);

#ifdef __cplusplus
}
#endif

#endif
