/* Stage 8 (beyond the paper, the path past one machine): one process per GPU, started by
 * `mpirun -np N stagebench run rdme --variant mpi ...` (every process runs the same command; the
 * first prints and writes the records). Process r drives slab r on GPU r of its host. After each
 * step the processes swap edge planes by MPI_Sendrecv, straight from device memory when the MPI
 * is CUDA-aware (MPIX_Query_cuda_support), else through pinned host planes; the overflow count is
 * an MPI_Allreduce; overflow placement and the output gather every slab with MPI_Allgatherv, so
 * that each process holds the whole lattice, places the particles the same way, and validates
 * the same output. Without mpirun it runs as one process: one slab. */
#include "mgpu.h"
#include "table.h"

static int setup(sb_env *env, const void *model, void **state)
{
    static const rd_mgpu_stage stage = {RD_HALO_MPI, 0, 0, 0, 0, 0};
    return rd_mgpu_setup(env, model, state, &stage);
}

const sb_variant_ops rd_mpi_ops = {setup, rd_mgpu_run, rd_mgpu_output, rd_mgpu_teardown,
                                   rd_mgpu_report};
