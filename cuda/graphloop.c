/* In C: C++ deletes cudaGraphNodeParams' default constructor (a union of node kinds), so the
 * kernels' .cu files build their loops through here. */
#include "graphloop.h"

#include <string.h>

#include "check.h"

#ifdef SB_NO_GRAPH_LOOP
#include "../harness/error.h"

int sb_graph_while(cudaGraph_t *graph, cudaGraphConditionalHandle *loop, cudaGraph_t *body)
{
    (void)graph, (void)loop, (void)body;
    return sb_fail("a device-side graph loop needs conditional graph nodes (CUDA 12.4+); this "
                   "build's toolkit has none");
}
#else
int sb_graph_while(cudaGraph_t *graph, cudaGraphConditionalHandle *loop, cudaGraph_t *body)
{
    SB_CUDA(cudaGraphCreate(graph, 0));
    SB_CUDA(cudaGraphConditionalHandleCreate(loop, *graph, 1, cudaGraphCondAssignDefault));
    struct cudaGraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = *loop;
    p.conditional.type = cudaGraphCondTypeWhile;
    p.conditional.size = 1;
    cudaGraphNode_t node;
    SB_CUDA(cudaGraphAddNode(&node, *graph, NULL, NULL, 0, &p));
    *body = p.conditional.phGraph_out[0];
    return 0;
}
#endif
