/* Every workload the suite knows. A new workload adds one line to registry.c. */
#ifndef SB_REGISTRY_H
#define SB_REGISTRY_H

#include "../harness/variant.h"

#ifdef __cplusplus
extern "C" {
#endif

int sb_workload_count(void);
const sb_workload *sb_workload_at(int i);
/* NULL with a message listing the known workloads. */
const sb_workload *sb_find_workload(const char *name);
/* The input file parameter i of w names at point p, or NULL (w->input_file, else the value of a
 * set SB_PARAM_PATH parameter); *hint as w->input_file says. */
const char *sb_input_file(const sb_workload *w, const sb_params *p, int i, const char **hint);
/* Adds a workload after the built-in ones, for a test executable only (tests/faulty_stagebench.c
 * registers one whose variants crash, hang or exit, then runs the same main as stagebench). */
int sb_register_test_workload(const sb_workload *w);

#ifdef __cplusplus
}
#endif

#endif
