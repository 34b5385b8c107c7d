/* The multi-GPU engine's balancer (stages mgpu-balanced and mgpu-nccl; mgpu.c): every batch of
 * steps the planes may be split anew after the GPUs' step times, and each GPU then hands over its
 * planes through the host; the split is recorded as a series. */
#include "mgpu-internal.h"

/* The split (the second slab's first plane) as a point of the series at steps_done steps. */
void mgpu_record_split(rd_mgpu *t, long long steps_done)
{
    sb_series *s = &t->split;
    if (++s->n > SB_MAX_SERIES_POINTS) { /* full: keep every other point, record half as often */
        for (int i = 0; i < SB_MAX_SERIES_POINTS / 2; i++) {
            s->x[i] = s->x[2 * i];
            s->y[i] = s->y[2 * i];
        }
        s->n = SB_MAX_SERIES_POINTS / 2 + 1;
        t->split_stride *= 2;
    }
    s->x[s->n - 1] = (double)steps_done * t->m->tau;
    s->y[s->n - 1] = t->part.z[1];
}

/* The paper's balancer at the end of a batch: worker 0 compares the GPUs' mean step times and
 * may split the planes anew; then every GPU hands its planes over through the host. */
int mgpu_rebalance(worker *w, int cur, long long steps_done)
{
    rd_mgpu *t = w->team;
    t->seconds[w->index] = w->busy / (double)t->balance_steps;
    w->busy = 0;
    if (mgpu_team_barrier_wait(t) != 0)
        return -1;
    if (w->index == 0) {
        rd_partition next;
        t->moved = rd_partition_rebalance(&t->part, t->seconds, t->balance_threshold, t->cap,
                                          &next);
        if (t->moved < 0)
            return -1;
        if (t->moved)
            t->part = next;
        if ((steps_done / t->balance_steps) % t->split_stride == 0)
            mgpu_record_split(t, steps_done);
    }
    if (mgpu_team_barrier_wait(t) != 0)
        return -1;
    if (!t->moved)
        return 0;
    if (mgpu_download_own(w, w->d_lat[cur]) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(w->st[0]));
    if (mgpu_team_barrier_wait(t) != 0)
        return -1;
    w->slab.z0 = t->part.z[w->index];
    w->slab.planes = rd_slab_planes(&t->part, w->index);
    return mgpu_upload_slab(w, w->d_lat[cur]);
}

