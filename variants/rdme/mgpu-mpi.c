/* The multi-GPU engine's MPI stage (mgpu.c): one process per slab, its halos by message after
 * each step, and the collective parts (overflow, the output) as MPI collectives. */
#include "mgpu-internal.h"

/* One process per slab: this one drives the slab of its rank on the GPU of its rank on its host
 * (the GPUs the harness gave it, round-robin). MPI starts here when nobody started it. */
int mgpu_mpi_open(rd_mgpu *t)
{
    sb_lockstep p;
    if (sb_lockstep_open(t->env, &p) != 0)
        return -1;
    if (p.size > RD_MAX_SLABS)
        return sb_fail("%d MPI processes: the lattice splits over at most %d", p.size,
                       RD_MAX_SLABS);
    t->mpi = 1;
    t->nslabs = p.size;
    t->lead = p.rank;
    t->local_rank = p.local_rank;
    t->cuda_aware = p.cuda_aware;
    t->ngpus = t->env->ndevices;
    SB_MPI(MPI_Type_contiguous((int)t->m->nx * t->m->ny * (int)rd_site_bytes(t->m->format),
                               MPI_BYTE, &t->plane_type));
    SB_MPI(MPI_Type_commit(&t->plane_type));
    return 0;
}

/* Without CUDA-aware transfers: the pinned host planes the halos go through */
int mgpu_mpi_open_buffers(rd_mgpu *t)
{
    worker *w = &t->w[t->lead];
    for (int k = 0; k < 2; k++) {
        if (mgpu_host_alloc_near(w->dev, &t->send[k], t->plane_bytes) != 0 ||
            mgpu_host_alloc_near(w->dev, &w->recv[k][0], t->plane_bytes) != 0)
            return -1;
    }
    return 0;
}

/* Each process's own planes (already in its h_lattice) into every process's h_lattice. */
int mgpu_mpi_gather_lattice(rd_mgpu *t)
{
    int counts[RD_MAX_SLABS], displs[RD_MAX_SLABS];
    for (int i = 0; i < t->nslabs; i++) {
        counts[i] = rd_slab_planes(&t->part, i);
        displs[i] = t->part.z[i];
    }
    SB_MPI(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, t->h_lattice, counts, displs,
                          t->plane_type, MPI_COMM_WORLD));
    return 0;
}

/* Every process's overflow entries of the step, in rank order, into every t->entries. */
int mgpu_mpi_gather_entries(worker *w, size_t *total)
{
    rd_mgpu *t = w->team;
    int n = (int)*w->h_count, counts[RD_MAX_SLABS], displs[RD_MAX_SLABS], sum = 0;
    SB_MPI(MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < t->nslabs; i++) {
        displs[i] = sum;
        sum += counts[i];
    }
    SB_MPI(MPI_Allgatherv(w->h_entries, n, MPI_UINT64_T, t->entries, counts, displs,
                          MPI_UINT64_T, MPI_COMM_WORLD));
    *total = (size_t)sum;
    return 0;
}

/* Halos by message after a step, for the step after: my first own plane goes down (tag 0) and
 * comes in from above as my upper halo; my last goes up (tag 1) and comes in from below. Device
 * memory straight to MPI where it is CUDA-aware, else through pinned host planes. */
int mgpu_mpi_exchange(worker *w, void *buffer)
{
    rd_mgpu *t = w->team;
    int below = w->neighbour[BELOW] >= 0 ? w->neighbour[BELOW] : MPI_PROC_NULL;
    int above = w->neighbour[ABOVE] >= 0 ? w->neighbour[ABOVE] : MPI_PROC_NULL;
    int first = w->slab.halo, last = w->slab.halo + w->slab.planes - 1;
    if (t->cuda_aware) {
        SB_MPI(MPI_Sendrecv(mgpu_plane_at(t, buffer, first), 1, t->plane_type, below, 0,
                            mgpu_plane_at(t, buffer, last + 1), 1, t->plane_type, above, 0,
                            MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        SB_MPI(MPI_Sendrecv(mgpu_plane_at(t, buffer, last), 1, t->plane_type, above, 1,
                            mgpu_plane_at(t, buffer, 0), 1, t->plane_type, below, 1, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
        w->xfer.peer += (uint64_t)t->plane_bytes * ((below >= 0) + (above >= 0));
        return 0;
    }
    if (sb_copy(&w->xfer, t->send[0], mgpu_plane_at(t, buffer, first), t->plane_bytes,
                cudaMemcpyDeviceToHost, w->st[0]) != 0 ||
        sb_copy(&w->xfer, t->send[1], mgpu_plane_at(t, buffer, last), t->plane_bytes,
                cudaMemcpyDeviceToHost, w->st[0]) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(w->st[0]));
    SB_MPI(MPI_Sendrecv(t->send[0], 1, t->plane_type, below, 0, w->recv[ABOVE][0], 1,
                        t->plane_type, above, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    SB_MPI(MPI_Sendrecv(t->send[1], 1, t->plane_type, above, 1, w->recv[BELOW][0], 1,
                        t->plane_type, below, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int side = BELOW; side <= ABOVE; side++)
        if (w->neighbour[side] >= 0 &&
            sb_copy(&w->xfer, mgpu_plane_at(t, buffer, side == BELOW ? 0 : last + 1),
                    w->recv[side][0], t->plane_bytes, cudaMemcpyHostToDevice, w->st[0]) != 0)
            return -1;
    return 0;
}
