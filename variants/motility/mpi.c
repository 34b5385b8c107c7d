/* Stage 5 (the paper's 3.3, the path past one machine): `optimized` with one process per GPU,
 * `mpirun -np N stagebench run motility --variant mpi ...` (every process runs the same command;
 * rank 0 prints and writes the records). Rank 0 runs the macro; Psi and dt go out by MPI_Bcast,
 * the coarse densities and M_f come back by MPI_Gatherv, F by MPI_Reduce: through the host, as
 * the device machines' OpenMPI is not CUDA-aware. Without mpirun: one process, one GPU. */
#include "gpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    mm_stage_config c = {mm_kernel_optimized, MM_RESIDENT, 0, MM_MPI, 0};
    return mm_gpu_setup(env, model, state, &c);
}

const sb_variant_ops mm_mpi_ops = {setup, mm_gpu_run, mm_gpu_output, mm_gpu_teardown,
                                    mm_gpu_report};
