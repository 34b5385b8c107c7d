/* The angiogenesis ladder (table.c) and the stages' operations, one file each. */
#ifndef AG_TABLE_H
#define AG_TABLE_H

#include "../../harness/variant.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const sb_variant_ops ag_cpu_reference_ops;
extern const sb_variant_ops ag_cpu_openmp_ops;
extern const sb_variant_ops ag_gpu_naive_ops;
extern const sb_variant_ops ag_neighbor_list_ops;
extern const sb_variant_ops ag_shared_memory_ops;
extern const sb_variant_ops ag_texture_ops;
extern const sb_variant_ops ag_tube_lists_ops;
extern const sb_variant_ops ag_pinned_ops;
extern const sb_variant_ops ag_resident_ops;
extern const sb_variant_ops ag_sorted_ops;

#define AG_NVARIANTS 10
extern const sb_variant ag_variants[AG_NVARIANTS];

#ifdef __cplusplus
}
#endif

#endif
