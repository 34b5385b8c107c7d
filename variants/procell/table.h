/* The ProCell ladder: one row per variant (table.c), each stage's operations in its own file. */
#ifndef PC_TABLE_H
#define PC_TABLE_H

#include "../../harness/variant.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PC_NVARIANTS 10
extern const sb_variant pc_variants[PC_NVARIANTS];

extern const sb_variant_ops pc_cpu_reference_ops;
extern const sb_variant_ops pc_cpu_openmp_ops;
extern const sb_variant_ops pc_host_loop_ops;
extern const sb_variant_ops pc_dynamic_parallelism_ops;
extern const sb_variant_ops pc_bounding_ops;
extern const sb_variant_ops pc_depth_inference_ops;
extern const sb_variant_ops pc_gpu_histogram_ops;
extern const sb_variant_ops pc_subtree_dfs_ops;
extern const sb_variant_ops pc_multi_gpu_ops;
extern const sb_variant_ops pc_split_trees_ops;

#ifdef __cplusplus
}
#endif

#endif
