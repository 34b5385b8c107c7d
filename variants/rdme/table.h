/* The RDME ladder (table.c) and the stages' operations, one file each. */
#ifndef RD_TABLE_H
#define RD_TABLE_H

#include "../../harness/variant.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const sb_variant_ops rd_cpu_reference_ops;
extern const sb_variant_ops rd_gpu_ops;
extern const sb_variant_ops rd_gpu_zero_copy_overflow_ops;

#define RD_NVARIANTS 3
extern const sb_variant rd_variants[RD_NVARIANTS];

#ifdef __cplusplus
}
#endif

#endif
