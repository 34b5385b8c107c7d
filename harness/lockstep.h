/* Variants whose processes run in lockstep under mpirun, one per GPU (rdme's mpi stage, copies'
 * mpi): MPI begun here when nobody began it, and ended at exit; the process's rank, the number of
 * processes and its rank among those of its host (which of the host's GPUs it takes); whether
 * the MPI moves device memory itself (CUDA-aware); and the harness's sampling decisions taken by
 * rank 0 for every process (env->agree), so that all of them call run() as often. Every process
 * runs the same command; `stagebench run` lets only rank 0 print and write records. */
#ifndef SB_LOCKSTEP_H
#define SB_LOCKSTEP_H

#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_lockstep {
    int rank, size, local_rank, local_size, cuda_aware; /* local: among this host's processes */
} sb_lockstep;

/* Checks an MPI call (in a file that includes <mpi.h>): a failure becomes one message (file:line,
 * the call, MPI's own text) through sb_fail, and the caller returns -1. */
#define SB_MPI(call)                                                                               \
    do {                                                                                           \
        int sb_mpi_rc_ = (call);                                                                   \
        if (sb_mpi_rc_ != MPI_SUCCESS) {                                                           \
            char sb_mpi_text_[MPI_MAX_ERROR_STRING];                                               \
            int sb_mpi_len_ = 0;                                                                   \
            MPI_Error_string(sb_mpi_rc_, sb_mpi_text_, &sb_mpi_len_);                              \
            return sb_fail("%s:%d: %s failed: %s", __FILE__, __LINE__, #call, sb_mpi_text_);       \
        }                                                                                          \
    } while (0)

/* -1 (sb_fail says why) when MPI cannot start. Without mpirun: one process, rank 0. */
int sb_lockstep_open(sb_env *env, sb_lockstep *p);

#ifdef __cplusplus
}
#endif

#endif
