/* Stage 5: the paper's MPI line of fig. 4. Two processes (`mpirun -np 2 stagebench run copies
 * --variant mpi`), GPU 0 in the first and GPU 1 in the second: MPI_Send of the payload and
 * MPI_Recv, from and into device memory when the MPI is CUDA-aware (MPIX_Query_cuda_support),
 * else through pinned host memory on both sides, as the paper's MPI copies went. A run ends in
 * the first process when the second's empty acknowledgement arrives, so that the time the first
 * process records covers the whole copy. output() has the second process download what it
 * received and broadcast it, so that both processes validate the same bytes. */
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>

#include "../../cuda/check.h"
#include "../../cuda/base/error.h"
#include "../../harness/lockstep.h"
#include "endpoints.h"
#include "table.h"

typedef struct mpi_copy {
    sb_env *env;
    sb_lockstep p;
    int bytes, dev;
    cudaStream_t st;
    void *d_buf;    /* first process: the payload; second: where it lands */
    uint8_t *h_buf; /* pinned: the way through host memory when the MPI is not CUDA-aware */
} mpi_copy;

static int setup(sb_env *env, const void *model, void **state)
{
    const cp_model *m = model;
    mpi_copy *c = calloc(1, sizeof *c);
    if (!c)
        return sb_fail("out of host memory");
    *state = c;
    c->env = env;
    if (sb_lockstep_open(env, &c->p) != 0)
        return -1;
    if (c->p.size != 2) {
        sb_fail("mpi copies from one process to another: run it as `mpirun -np 2 stagebench run "
                "copies --variant mpi` (%d process%s here)",
                c->p.size, c->p.size == 1 ? "" : "es");
        return SB_REFUSED;
    }
    if (m->bytes > INT_MAX) {
        sb_fail("bytes=%zu: one MPI message carries at most %d bytes here", m->bytes, INT_MAX);
        return SB_REFUSED;
    }
    c->bytes = (int)m->bytes;
    int gpu = c->p.local_rank % env->ndevices;
    c->dev = env->devices[gpu];
    c->st = env->streams[gpu];
    int rc;
    if ((rc = sb_dev_alloc(&env->mem, c->dev, &c->d_buf, m->bytes,
                           c->p.rank ? "the destination" : "the payload")) ||
        (rc = cp_host_alloc((void **)&c->h_buf, m->bytes, "the payload's way through the host")))
        return rc;
    SB_CUDA(cudaSetDevice(c->dev));
    if (c->p.rank == 0) {
        cp_payload_fill(c->h_buf, m);
        if (sb_copy(&env->xfer, c->d_buf, c->h_buf, m->bytes, cudaMemcpyHostToDevice, c->st) != 0)
            return -1;
    } else
        SB_CUDA(cudaMemsetAsync(c->d_buf, 0, m->bytes, c->st));
    SB_CUDA(cudaStreamSynchronize(c->st));
    return 0;
}

static int run(void *state)
{
    mpi_copy *c = state;
    SB_CUDA(cudaSetDevice(c->dev));
    void *msg = c->p.cuda_aware ? c->d_buf : c->h_buf;
    if (c->p.rank == 0) {
        if (!c->p.cuda_aware) {
            if (sb_copy(&c->env->xfer, c->h_buf, c->d_buf, (size_t)c->bytes,
                        cudaMemcpyDeviceToHost, c->st) != 0)
                return -1;
            SB_CUDA(cudaStreamSynchronize(c->st));
        }
        SB_MPI(MPI_Send(msg, c->bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD));
        SB_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        return 0;
    }
    SB_MPI(MPI_Recv(msg, c->bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (!c->p.cuda_aware) {
        if (sb_copy(&c->env->xfer, c->d_buf, c->h_buf, (size_t)c->bytes,
                    cudaMemcpyHostToDevice, c->st) != 0)
            return -1;
        SB_CUDA(cudaStreamSynchronize(c->st));
    }
    SB_MPI(MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD));
    return 0;
}

static int output(void *state, void *out)
{
    mpi_copy *c = state;
    cp_output *o = out;
    if (c->p.rank == 1) {
        SB_CUDA(cudaSetDevice(c->dev));
        if (sb_copy(&c->env->xfer, o->data, c->d_buf, (size_t)c->bytes, cudaMemcpyDeviceToHost,
                    c->st) != 0)
            return -1;
        SB_CUDA(cudaStreamSynchronize(c->st));
    }
    SB_MPI(MPI_Bcast(o->data, c->bytes, MPI_BYTE, 1, MPI_COMM_WORLD));
    return 0;
}

static void teardown(void *state)
{
    mpi_copy *c = state;
    if (c)
        cudaFreeHost(c->h_buf);
    free(c);
}

const sb_variant_ops cp_mpi_ops = {setup, run, output, teardown, NULL};
