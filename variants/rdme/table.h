/* The RDME ladder (table.c) and the stages' operations, one file each. */
#ifndef RD_TABLE_H
#define RD_TABLE_H

#include "../../harness/variant.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const sb_variant_ops rd_cpu_reference_ops;
extern const sb_variant_ops rd_cpu_openmp_ops;
extern const sb_variant_ops rd_gpu_ops;
extern const sb_variant_ops rd_gpu_zero_copy_overflow_ops;
extern const sb_variant_ops rd_mgpu_staged_ops;
extern const sb_variant_ops rd_mgpu_peer_ops;
extern const sb_variant_ops rd_mgpu_peer_overlap_ops;
extern const sb_variant_ops rd_mgpu_balanced_ops;
extern const sb_variant_ops rd_mgpu_nccl_ops;
extern const sb_variant_ops rd_mpi_ops;
extern const sb_variant_ops rd_gpu_graph_ops;
extern const sb_variant_ops rd_gpu_fused_ops;
extern const sb_variant_ops rd_one_pass_ops;

#define RD_NVARIANTS 13
extern const sb_variant rd_variants[RD_NVARIANTS];

/* The CPU stages' state (cpu-reference.c): the model, a thread count, the output. */
int rd_reference_open(const void *model, int threads, void **state);
int rd_reference_state_run(void *state);
int rd_reference_state_output(void *state, void *out);
void rd_reference_state_free(void *state);

#ifdef __cplusplus
}
#endif

#endif
