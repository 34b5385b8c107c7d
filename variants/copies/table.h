/* The copies ladder (table.c) and the variants' operations, one file each. */
#ifndef CP_TABLE_H
#define CP_TABLE_H

#include "../../harness/variant.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const sb_variant_ops cp_cpu_memcpy_ops;
extern const sb_variant_ops cp_host_to_gpu_ops;
extern const sb_variant_ops cp_gpu_host_gpu_ops;
extern const sb_variant_ops cp_gpu_peer_ops;
extern const sb_variant_ops cp_nccl_ops;
extern const sb_variant_ops cp_mpi_ops;

#define CP_NVARIANTS 6
extern const sb_variant cp_variants[CP_NVARIANTS];

#ifdef __cplusplus
}
#endif

#endif
