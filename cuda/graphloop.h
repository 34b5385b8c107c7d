/* A CUDA graph whose one node is a while-loop the GPU runs with no host in between: the loop's
 * body is a graph to fill (by capturing a stream into it), and a kernel in the body decides with
 * cudaGraphSetConditional(*loop, go_on) whether the body runs again. */
#ifndef SB_GRAPHLOOP_H
#define SB_GRAPHLOOP_H

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

#ifdef __cplusplus
extern "C" {
#endif

/* *graph gets the while node, whose condition starts at 1 at every launch (the body runs at
 * least once); *body is the node's body graph, owned by *graph. 0, or -1 with sb_error(). */
int sb_graph_while(cudaGraph_t *graph, cudaGraphConditionalHandle *loop, cudaGraph_t *body);

#ifdef __cplusplus
}
#endif

#endif
