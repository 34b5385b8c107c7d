/* The motility ladder (table.c) and the stages' operations, one file each. */
#ifndef MM_TABLE_H
#define MM_TABLE_H

#include "../../harness/variant.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const sb_variant_ops mm_cpu_reference_ops;
extern const sb_variant_ops mm_cpu_openmp_ops;

#define MM_NVARIANTS 2
extern const sb_variant mm_variants[MM_NVARIANTS];

#ifdef __cplusplus
}
#endif

#endif
