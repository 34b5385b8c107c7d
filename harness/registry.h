/* Every workload the suite knows. A new workload adds one line to registry.c. */
#ifndef SB_REGISTRY_H
#define SB_REGISTRY_H

#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

int sb_workload_count(void);
const sb_workload *sb_workload_at(int i);
/* NULL with a message listing the known workloads. */
const sb_workload *sb_find_workload(const char *name);

#ifdef __cplusplus
}
#endif

#endif
