/* The angiogenesis ladder (table.c) and the stages' operations, one file each. */
#ifndef AG_TABLE_H
#define AG_TABLE_H

#include "../../harness/variant.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const sb_variant_ops ag_cpu_reference_ops;
extern const sb_variant_ops ag_cpu_openmp_ops;

#define AG_NVARIANTS 2
extern const sb_variant ag_variants[AG_NVARIANTS];

#ifdef __cplusplus
}
#endif

#endif
