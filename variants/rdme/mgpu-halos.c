/* The halo transports of the multi-GPU engine (mgpu.c): after each step a GPU's edge planes go
 * into its neighbours' halo planes, by peer copies (the neighbour's memory written straight, after
 * its y-sweep), through pinned host buffers placed for the receiver (staged, or a pair that cannot
 * peer), or by NCCL sends and receives. MPI's are messages (mgpu-mpi.c). */
#include "mgpu-internal.h"

char *mgpu_plane_at(const rd_mgpu *t, void *buffer, int p)
{
    return (char *)buffer + (size_t)p * t->plane_bytes;
}

/* Waits until neighbour n has recorded its y-sweep of `step`; then stream st waits for that
 * sweep on the GPU: from then on nothing reads or writes n's halo planes until its next step. */
static int after_neighbour_y(worker *n, long long step, cudaStream_t st)
{
    rd_mgpu *t = n->team;
    for (unsigned spins = 1; atomic_load(&n->y_step) < step; spins++) {
        if (atomic_load(&t->bar.failed))
            return sb_fail("stopped: another GPU failed");
        if (spins % 4096 == 0)
            sched_yield();
    }
    SB_CUDA(cudaStreamWaitEvent(st, n->ev[EV_Y_DONE], 0));
    return 0;
}

/* The edge planes of buffer d_lat[out] to the neighbours after step `step`: straight into their
 * halo planes (peer copies, NCCL), or into their receive buffers in host memory (staged). */
int mgpu_halos_out(worker *w, int out, long long step, int instrumented)
{
    rd_mgpu *t = w->team;
    cudaStream_t st = w->st[1];
    void *buffer = w->d_lat[out];
    int first = w->slab.halo, last = w->slab.halo + w->slab.planes - 1;
    if (t->stage.path == RD_HALO_NCCL) {
        if (instrumented) /* NCCL's meeting with the neighbours is inside its copies */
            SB_CUDA(cudaEventRecord(w->ev[EV_COPIES], st));
        /* Their receives are on their streams, after their own reactions. Sends to a neighbour
         * in the order it receives from this one (it matters when both neighbours are the same
         * GPU: two slabs, periodic). */
        SB_NCCL(ncclGroupStart());
        if (w->neighbour[ABOVE] >= 0)
            SB_NCCL(ncclSend(mgpu_plane_at(t, buffer, last), t->plane_bytes, ncclUint8,
                             w->neighbour[ABOVE], w->comm, st));
        if (w->neighbour[BELOW] >= 0) {
            SB_NCCL(ncclRecv(mgpu_plane_at(t, buffer, 0), t->plane_bytes, ncclUint8,
                             w->neighbour[BELOW], w->comm, st));
            SB_NCCL(ncclSend(mgpu_plane_at(t, buffer, first), t->plane_bytes, ncclUint8,
                             w->neighbour[BELOW], w->comm, st));
        }
        if (w->neighbour[ABOVE] >= 0)
            SB_NCCL(ncclRecv(mgpu_plane_at(t, buffer, last + 1), t->plane_bytes, ncclUint8,
                             w->neighbour[ABOVE], w->comm, st));
        SB_NCCL(ncclGroupEnd());
        w->xfer.peer += (uint64_t)t->plane_bytes *
                        ((w->neighbour[ABOVE] >= 0) + (w->neighbour[BELOW] >= 0));
        return 0;
    }
    /* the waits for the neighbours first, then the copies: an instrumented step times them
     * apart (EV_COPIES) */
    for (int side = BELOW; side <= ABOVE; side++) {
        int n = w->neighbour[side], their_side = side == BELOW ? ABOVE : BELOW;
        if (n >= 0 && !t->w[n].recv_host[their_side] && after_neighbour_y(&t->w[n], step, st) != 0)
            return -1;
    }
    if (instrumented)
        SB_CUDA(cudaEventRecord(w->ev[EV_COPIES], st));
    for (int side = BELOW; side <= ABOVE; side++) {
        if (w->neighbour[side] < 0)
            continue;
        worker *to = &t->w[w->neighbour[side]];
        /* my first plane is the halo above of the slab below, my last the halo below of the one
         * above */
        int their_side = side == BELOW ? ABOVE : BELOW;
        const void *src = mgpu_plane_at(t, buffer, side == BELOW ? first : last);
        /* through host memory, or into the halo plane of the neighbour's buffer that holds this
         * step's result */
        int rc = to->recv_host[their_side]
                     ? sb_copy(&w->xfer, to->recv[their_side][step & 1], src, t->plane_bytes,
                               cudaMemcpyDeviceToHost, st)
                     : sb_copy_peer(&w->xfer,
                                    mgpu_plane_at(t, to->d_lat[out],
                                                  their_side == BELOW ? 0 : to->slab.planes + 1),
                                    to->dev, src, w->dev, t->plane_bytes, st);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* The planes that came through host memory after step `step` into the halo planes of `buffer`. */
int mgpu_halos_in(worker *w, void *buffer, long long step)
{
    rd_mgpu *t = w->team;
    if (w->halos_fresh)
        return 0;
    for (int side = BELOW; side <= ABOVE; side++) {
        if (w->neighbour[side] < 0 || !w->recv_host[side])
            continue;
        void *dst = mgpu_plane_at(t, buffer, side == BELOW ? 0 : w->slab.planes + 1);
        if (sb_copy(&w->xfer, dst, w->recv[side][step & 1], t->plane_bytes,
                    cudaMemcpyHostToDevice, w->st[0]) != 0)
            return -1;
    }
    return 0;
}

/* How each halo of w arrives: written by the neighbour GPU itself when it can reach w's memory
 * (peer path; peer access enabled), else through receive buffers in pinned host memory on w's
 * NUMA node, as the paper places its staging buffers. */
int mgpu_open_receive_buffers(rd_mgpu *t, worker *w)
{
    for (int side = BELOW; side <= ABOVE; side++) {
        int n = w->neighbour[side];
        if (n < 0 || t->stage.path == RD_HALO_NCCL)
            continue;
        int from = t->w[n].dev, peer = 0;
        if (t->stage.path == RD_HALO_PEER) {
            peer = from == w->dev;
            if (!peer)
                SB_CUDA(cudaDeviceCanAccessPeer(&peer, from, w->dev));
            if (peer && from != w->dev) {
                SB_CUDA(cudaSetDevice(from));
                cudaError_t e = cudaDeviceEnablePeerAccess(w->dev, 0);
                if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
                    return sb_fail("enabling peer access from GPU %d to GPU %d: %s", from,
                                   w->dev, cudaGetErrorString(e));
                cudaGetLastError(); /* clear "already enabled" */
            }
        }
        w->recv_host[side] = !peer;
        for (int parity = 0; !peer && parity < 2; parity++)
            if (mgpu_host_alloc_near(w->dev, &w->recv[side][parity], t->plane_bytes) != 0)
                return -1;
    }
    return 0;
}

/* stage mgpu-nccl: a communicator per GPU, a rank per slab */
int mgpu_open_nccl(rd_mgpu *t)
{
    sb_env *env = t->env;
    ncclComm_t comms[RD_MAX_SLABS];
    SB_NCCL(ncclCommInitAll(comms, t->nslabs, env->devices));
    for (int i = 0; i < t->nslabs; i++)
        t->w[i].comm = comms[i];
    return 0;
}
