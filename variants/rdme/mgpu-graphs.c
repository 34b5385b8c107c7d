/* Steps as CUDA graphs (stage gpu-graph on one GPU or several, gpu-fused on one; mgpu.c):
 * captured once at set-up, then launched each step, or on one GPU looped by the GPU itself until
 * a particle overflows, a sample is due or the run ends. */
#include "mgpu-internal.h"

/* Steps a body of the one-GPU loop where the kernels are chained: at most RD_GRAPH_STEPS_MAX,
 * evened out over the steps between two samples. A sample then stops the loop at most
 * a step a body before a body's end (the rest of its kernels are launched, and return at once):
 * 32 such steps in a run of 20,000 without samples. */
static int default_graph_steps(const rd_model *m)
{
    long long span = m->sample_steps > 0 && m->sample_steps < m->steps ? m->sample_steps : m->steps;
    long long bodies = (span + RD_GRAPH_STEPS_MAX - 1) / RD_GRAPH_STEPS_MAX;
    return bodies > 0 ? (int)((span + bodies - 1) / bodies) : 1;
}

/* One step with three buffers, so that it ends in the buffer it starts from (A): x A->B, y B->C,
 * z C->A, reactions in A; a graph captured once then serves every step. With one slab the step is
 * the body of a while-loop the GPU runs until a particle overflows, a sample is due or the run
 * ends: no host round trip per step. With several, a step is two graphs, x and y, then the rest,
 * and the host launches the second once the neighbours have launched their first: the halo copies
 * in it wait on the neighbours' y-sweep events. */
int mgpu_capture_graphs(worker *w)
{
    rd_mgpu *t = w->team;
    rd_site_format f = t->m->format;
    rd_step a = mgpu_step_of(w, 0);
    a.step_at = w->d_step;
    void *A = w->d_lat[0], *B = w->d_lat[1], *C = w->d_lat[2];
    cudaStream_t st = w->st[0];
    int own_lo = w->slab.halo, own_hi = w->slab.halo + w->slab.planes;
    int lo = w->neighbour[BELOW] >= 0 ? 0 : own_lo;
    int hi = w->neighbour[ABOVE] >= 0 ? own_hi + 1 : own_hi;
    const rd_reaction_table *r = w->d_reactions;
    SB_CUDA(cudaSetDevice(w->dev));
    if (t->nslabs == 1 && t->stage.one_pass) {
        /* one kernel a step, from one lattice to the other: a body of an even number of steps
         * ends where it starts (mgpu_simulate_graphs moves the lattice back when the loop stops
         * after an odd number) */
        int steps = t->graph_steps ? t->graph_steps : 2;
        if (steps % 2)
            return sb_fail("graph_steps=%d: one-pass goes from one lattice to the other and back, "
                           "so its loop's body holds an even number of steps",
                           steps);
        w->body_steps = steps;
        a.runs = &w->d_bounds->runs;
        t->passes = 1.0;
        if (sb_graph_loop_begin(&w->loop, st, cudaStreamCaptureModeThreadLocal) != 0)
            return -1;
        int rc = 0;
        for (a.body_step = 0; a.body_step < steps && rc == 0; a.body_step++)
            rc = a.body_step % 2 ? rd_one_pass(f, B, A, &a, r, w->d_fired, st)
                                 : rd_one_pass(f, A, B, &a, r, w->d_fired, st);
        rc = rc || rd_graph_step_done(w->loop.handle, w->d_step, w->d_bounds, w->sink.count,
                                      steps, 0, st);
        return sb_graph_loop_end(&w->loop, st, rc);
    }
    if (t->nslabs == 1) {
        if (rd_chain_if_one_wave(f, &a, w->dev) != 0 ||
            sb_graph_loop_begin(&w->loop, st, cudaStreamCaptureModeThreadLocal) != 0)
            return -1;
        /* gpu-fused where the x-sweep goes by strips: each step's reactions in the next step's
         * x-sweep, which needs a body of several steps */
        int ahead = t->stage.fused && rd_react_ahead_applies(f, &a, A, B, t->m->has_order0);
        rd_reaction_table table; /* their kernels' argument, by value */
        rd_reaction_table_of(t->m, &table);
        /* where the step's kernels are chained, the body's first kernel is not (nothing runs
         * before it in the body): several steps a body pay that launch, and step_done, once */
        int steps = t->graph_steps        ? t->graph_steps
                    : a.chained || ahead ? default_graph_steps(t->m)
                                         : 1;
        w->body_steps = steps;
        a.runs = steps > 1 ? &w->d_bounds->runs : NULL;
        ahead = ahead && steps > 1;
        /* gpu-fused's passes a step: the reactions ride on the x-sweeps (and one pass a body
         * fires the last step's), else on the z-sweep, with x and y one pass where a block
         * holds a plane */
        if (t->stage.fused) {
            int xy = ahead ? 0 : rd_sweep_xy_one_kernel(f, A, C, &a);
            if (xy < 0)
                return sb_graph_loop_end(&w->loop, st, -1);
            t->passes = ahead ? 3.0 + 1.0 / steps : xy ? 2.0 : 3.0;
        }
        int rc = 0;
        for (a.body_step = 0; a.body_step < steps && rc == 0; a.body_step++)
            if (ahead)
                rc = (a.body_step == 0
                          ? rd_sweep_planes(f, 0, A, B, &a, lo, hi, st)
                          : rd_sweep_x_react_ahead(A, B, &a, lo, hi, &table, w->d_ahead, st)) ||
                     rd_sweep_planes(f, 1, B, C, &a, lo, hi, st) || rd_sweep_z(f, C, A, &a, st);
            else
                rc = (t->stage.fused ? rd_sweep_xy(f, A, B, C, &a, lo, hi, st)
                                     : rd_sweep_planes(f, 0, A, B, &a, lo, hi, st) ||
                                           rd_sweep_planes(f, 1, B, C, &a, lo, hi, st)) ||
                     (t->stage.fused ? rd_sweep_z_react(f, C, A, &a, r, w->d_fired, st)
                                     : rd_sweep_z(f, C, A, &a, st) ||
                                           rd_react(f, A, &a, own_lo, own_hi, r, w->d_fired, st));
        if (ahead)
            rc = rc || rd_react_last(A, &a, own_lo, own_hi, &table, w->d_fired, w->d_ahead, st);
        rc = rc || rd_graph_step_done(w->loop.handle, w->d_step, w->d_bounds, w->sink.count,
                                      steps, a.chained, st);
        return sb_graph_loop_end(&w->loop, st, rc);
    }
    /* Captures go on to their end after an error (the first is kept), so that no stream is
     * left capturing. */
    cudaError_t e = cudaSuccess;
#define KEEP(call)                                                                                 \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e == cudaSuccess)                                                                      \
            e = e_;                                                                                \
    } while (0)
    SB_CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    int rc = rd_sweep_planes(f, 0, A, B, &a, lo, hi, st) ||
             rd_sweep_planes(f, 1, B, C, &a, lo, hi, st);
    KEEP(cudaEventRecordWithFlags(w->ev[EV_Y_DONE], st, cudaEventRecordExternal));
    KEEP(cudaStreamEndCapture(st, &w->graph[0]));
    SB_CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    /* the edge planes' reactions and their copies on the second stream, beside the interior's
     * reactions; a copy between devices is captured as cudaMemcpyAsync over unified addresses
     * (the peer call is not) */
    rc = rc || rd_sweep_z(f, C, A, &a, st);
    KEEP(cudaEventRecord(w->ev[EV_Z], st));
    KEEP(cudaStreamWaitEvent(w->st[1], w->ev[EV_Z], 0));
    rc = rc || rd_react_edges(f, A, &a, r, w->d_fired, w->st[1]) ||
         rd_react(f, A, &a, own_lo + 1, own_hi - 1, r, w->d_fired, st);
    for (int side = BELOW; side <= ABOVE; side++) {
        if (w->neighbour[side] < 0)
            continue;
        worker *to = &t->w[w->neighbour[side]];
        int their_side = side == BELOW ? ABOVE : BELOW;
        KEEP(cudaStreamWaitEvent(w->st[1], to->ev[EV_Y_DONE], cudaEventWaitExternal));
        KEEP(cudaMemcpyAsync(
            mgpu_plane_at(t, to->d_lat[0], their_side == BELOW ? 0 : to->slab.planes + 1),
            mgpu_plane_at(t, A, side == BELOW ? own_lo : own_hi - 1), t->plane_bytes,
            cudaMemcpyDefault, w->st[1]));
    }
    /* join the second stream before the step advances: its kernel reads the step too */
    KEEP(cudaEventRecord(w->ev[EV_OUT1], w->st[1]));
    KEEP(cudaStreamWaitEvent(st, w->ev[EV_OUT1], 0));
    rc = rc || rd_graph_step_advance(w->d_step, st);
    KEEP(cudaStreamEndCapture(st, &w->graph[1]));
#undef KEEP
    if (rc != 0)
        return -1;
    SB_CUDA(e);
    SB_CUDA(cudaGraphInstantiate(&w->exec[0], w->graph[0], 0));
    SB_CUDA(cudaGraphInstantiate(&w->exec[1], w->graph[1], 0));
    return 0;
}

/* The step loop with graphs; the state stays in d_lat[0]. */
int mgpu_simulate_graphs(worker *w, int *sample)
{
    rd_mgpu *t = w->team;
    const rd_model *m = t->m;
    int nsamples = rd_output_nsamples(m), halos = 0;
    for (int side = BELOW; side <= ABOVE; side++)
        halos += w->neighbour[side] >= 0;
    for (long long step = 0; step < m->steps;) {
        long long next = step + 1;
        if (t->nslabs == 1) {
            /* the GPU loops until an overflow, the next sample or the end */
            long long stop = *sample < nsamples ? rd_output_sample_step(m, *sample) : m->steps;
            w->h_bounds->stop = stop;
            w->h_bounds->runs = stop - step < w->body_steps ? (int)(stop - step) : w->body_steps;
            if (sb_copy(&w->xfer, w->d_bounds, w->h_bounds, sizeof *w->h_bounds,
                        cudaMemcpyHostToDevice, w->st[0]) != 0)
                return -1;
            if (sb_graph_loop_launch(&w->loop, w->st[0]) != 0)
                return -1;
            if (sb_copy(&w->xfer, w->h_step, w->d_step, sizeof *w->h_step,
                        cudaMemcpyDeviceToHost, w->st[0]) != 0)
                return -1;
        } else {
            SB_CUDA(cudaGraphLaunch(w->exec[0], w->st[0]));
            atomic_store(&w->y_step, step);
            for (int side = BELOW; side <= ABOVE; side++) /* their y-sweep events recorded */
                for (unsigned spins = 1; w->neighbour[side] >= 0 &&
                                         atomic_load(&t->w[w->neighbour[side]].y_step) < step;
                     spins++) {
                    if (atomic_load(&t->bar.failed))
                        return sb_fail("stopped: another GPU failed");
                    if (spins % 4096 == 0)
                        sched_yield();
                }
            SB_CUDA(cudaGraphLaunch(w->exec[1], w->st[0]));
            w->xfer.peer += (uint64_t)halos * t->plane_bytes;
        }
        if (sb_copy(&w->xfer, w->h_count, w->sink.count, sizeof *w->h_count,
                    cudaMemcpyDeviceToHost, w->st[0]) != 0)
            return -1;
        SB_CUDA(cudaStreamSynchronize(w->st[0]));
        if (t->nslabs == 1)
            next = *w->h_step;
        /* one-pass: after an odd number of steps the lattice is in the second buffer */
        if (t->stage.one_pass && (next - step) % 2 &&
            sb_copy(&w->xfer, w->d_lat[0], w->d_lat[1], t->plane_bytes * w->slab.planes,
                    cudaMemcpyDeviceToDevice, w->st[0]) != 0)
            return -1;
        unsigned long long overflowed;
        if (mgpu_team_sum(t, *w->h_count, &overflowed) != 0)
            return -1;
        if (overflowed && mgpu_resolve_overflow(w, 0) != 0)
            return -1;
        step = next;
        if (*sample < nsamples && rd_output_sample_step(m, *sample) == step &&
            mgpu_count_sample(w, w->d_lat[0], (*sample)++) != 0)
            return -1;
    }
    return 0;
}

