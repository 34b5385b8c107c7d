/* A loop of a captured CUDA graph: the body, captured from a stream, runs again for as long as
 * a kernel in it says so (sb_graph_loop_continue), with no host in between: the graph's one node
 * is a while-loop (a conditional node) that the GPU runs by itself.
 *
 * SB_GRAPH_LOOP_ON_HOST (the build without dynamic parallelism, cmake -DSB_CDP=OFF, which
 * compute-sanitizer's racecheck and synccheck check): the body is a plain graph and the host
 * launches it again while a flag the same kernel writes says so. The kernels and their order are
 * the same; only who decides the next turn differs. racecheck's process fails and synccheck reports
 * barrier errors on kernels inside a conditional node (tests/graph_loop_probe.cu), so the checks
 * need this form. It times host round trips: not for measurements. */
#ifndef SB_GRAPHLOOP_H
#define SB_GRAPHLOOP_H

#include <stdint.h>
#include <cuda_runtime_api.h>

/* A toolkit without conditional graph nodes (CUDA before 12.4: cmake's probe sets
 * SB_NO_GRAPH_LOOP): the stages that loop on the device need SB_NEEDS_GRAPH_LOOP and the harness
 * refuses them before their set-up, so these stand-ins only let their code compile; were one
 * reached, it fails with the reason. CUDA 11.8's cudaGraphInstantiate takes an error node and a
 * log, its WithFlags form is the 12.0 one. */
#ifdef SB_NO_GRAPH_LOOP
typedef unsigned long long cudaGraphConditionalHandle;
#ifdef __CUDACC__
static __device__ inline void cudaGraphSetConditional(cudaGraphConditionalHandle h, unsigned v)
{
    (void)h, (void)v;
}
#endif
static inline cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t s, cudaGraph_t g,
                                                        const cudaGraphNode_t *deps,
                                                        const void *data, size_t n,
                                                        enum cudaStreamCaptureMode mode)
{
    (void)s, (void)g, (void)deps, (void)data, (void)n, (void)mode;
    return cudaErrorNotSupported;
}
#if CUDART_VERSION < 12000
#define cudaGraphInstantiate(exec, graph, flags) cudaGraphInstantiateWithFlags(exec, graph, flags)
#endif
#endif

typedef struct sb_graph_loop {
    cudaGraph_t graph; /* the while node's graph (on the host: the body itself) */
    cudaGraphExec_t exec;
    cudaGraphConditionalHandle handle; /* what the deciding kernel passes on */
    unsigned *d_go_on;                 /* on the host: the flag the deciding kernel writes */
} sb_graph_loop;

#ifdef __CUDACC__
/* In the body's deciding kernel (one thread): whether the body runs again. */
static __device__ inline void sb_graph_loop_continue(cudaGraphConditionalHandle loop,
                                                     unsigned go_on)
{
#ifdef SB_GRAPH_LOOP_ON_HOST
    *(unsigned *)(uintptr_t)loop = go_on;
#else
    cudaGraphSetConditional(loop, go_on);
#endif
}
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Creates the loop and starts capturing stream `st` into its body; the kernels launched next
 * form the body, one of them given l->handle. The body runs at least once a launch. 0, or -1
 * with sb_error(). */
int sb_graph_loop_begin(sb_graph_loop *l, cudaStream_t st, enum cudaStreamCaptureMode mode);
/* Ends the capture (always, so that no stream is left capturing) and, when `captured` is 0 (the
 * launches into the body succeeded), instantiates the loop. */
int sb_graph_loop_end(sb_graph_loop *l, cudaStream_t st, int captured);
/* Runs the loop on `st`: one launch, or on the host one launch a turn with a read of the flag. */
int sb_graph_loop_launch(sb_graph_loop *l, cudaStream_t st);
void sb_graph_loop_destroy(sb_graph_loop *l);

#ifdef __cplusplus
}
#endif

#endif
