/* Stage gpu-columns' sweeps (kernels-columns.cu): the packed 32-bit site only, on the whole
 * lattice as one buffer (one slab, no halo planes: buffer index = global index). Each launch is
 * the one-slab graph's step body of mgpu.c: x A->B, y B->C, z and reactions C->A. */
#ifndef RD_KERNELS_COLUMNS_H
#define RD_KERNELS_COLUMNS_H

#include <cuda_runtime_api.h>

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads the kernels now (lazy module loading would bill the first timed run). */
int rd_columns_load(void);
/* The x- (axis 0) or y-sweep (axis 1) of every plane, from in to out. */
int rd_columns_sweep(int axis, const void *in, void *out, const rd_step *a, cudaStream_t st);
/* The z-sweep, each written site's reaction applied as it is written (fired counts them). */
int rd_columns_sweep_z_react(const void *in, void *out, const rd_step *a,
                             const rd_reaction_table *table, unsigned long long *fired,
                             cudaStream_t st);

#ifdef __cplusplus
}
#endif

#endif
