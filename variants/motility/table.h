/* The motility ladder (table.c) and the stages' operations, one file each. */
#ifndef MM_TABLE_H
#define MM_TABLE_H

#include "../../harness/variant.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const sb_variant_ops mm_cpu_reference_ops;
extern const sb_variant_ops mm_cpu_openmp_ops;
extern const sb_variant_ops mm_original_ops;
extern const sb_variant_ops mm_resident_ops;
extern const sb_variant_ops mm_optimized_ops;
extern const sb_variant_ops mm_optimized_fp64_ops;
extern const sb_variant_ops mm_optimized_no_fast_math_ops;
extern const sb_variant_ops mm_optimized_no_launch_bounds_ops;
extern const sb_variant_ops mm_optimized_no_dimension_mapping_ops;
extern const sb_variant_ops mm_optimized_no_reorder_ops;
extern const sb_variant_ops mm_optimized_no_unroll_ops;
extern const sb_variant_ops mm_optimized_block_16x16_ops;
extern const sb_variant_ops mm_multi_gpu_ops;
extern const sb_variant_ops mm_mpi_ops;
extern const sb_variant_ops mm_gpu_macro_ops;
extern const sb_variant_ops mm_multi_gpu_macro_ops;

#define MM_NVARIANTS 16
extern const sb_variant mm_variants[MM_NVARIANTS];

#ifdef __cplusplus
}
#endif

#endif
