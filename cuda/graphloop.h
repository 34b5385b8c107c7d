/* A CUDA graph whose one node is a while-loop the GPU runs with no host in between: the loop's
 * body is a graph to fill (by capturing a stream into it), and a kernel in the body decides with
 * cudaGraphSetConditional(*loop, go_on) whether the body runs again. */
#ifndef SB_GRAPHLOOP_H
#define SB_GRAPHLOOP_H

#include <cuda_runtime_api.h>

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
