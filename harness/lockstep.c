#include "lockstep.h"

#include <mpi.h>
#include <mpi-ext.h> /* MPIX_Query_cuda_support (Open MPI) */
#include <stdlib.h>

#include "../cuda/base/error.h"

static void close_at_exit(void)
{
    int done = 0;
    MPI_Finalized(&done);
    if (!done)
        MPI_Finalize();
}

static int agree(int decision)
{
    MPI_Bcast(&decision, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return decision;
}

int sb_lockstep_open(sb_env *env, sb_lockstep *p)
{
    int started = 0, provided;
    SB_MPI(MPI_Initialized(&started));
    if (!started) {
        SB_MPI(MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided));
        atexit(close_at_exit);
    }
    SB_MPI(MPI_Comm_size(MPI_COMM_WORLD, &p->size));
    SB_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &p->rank));
    MPI_Comm host;
    SB_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, p->rank, MPI_INFO_NULL, &host));
    SB_MPI(MPI_Comm_rank(host, &p->local_rank));
    SB_MPI(MPI_Comm_size(host, &p->local_size));
    SB_MPI(MPI_Comm_free(&host));
    p->cuda_aware = 0;
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    p->cuda_aware = MPIX_Query_cuda_support();
#endif
    env->agree = agree;
    return 0;
}
