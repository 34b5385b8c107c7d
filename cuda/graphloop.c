/* In C: C++ deletes cudaGraphNodeParams' default constructor (a union of node kinds), so the
 * kernels' .cu files build their loops through here. */
#include "graphloop.h"

#include <string.h>

#include "base/error.h"
#include "check.h"

#if defined(SB_NO_GRAPH_LOOP)
int sb_graph_loop_begin(sb_graph_loop *l, cudaStream_t st, enum cudaStreamCaptureMode mode)
{
    (void)st, (void)mode;
    memset(l, 0, sizeof *l);
    return sb_fail("a device-side graph loop needs conditional graph nodes (CUDA 12.4+); this "
                   "build's toolkit has none");
}
#elif defined(SB_GRAPH_LOOP_ON_HOST)
int sb_graph_loop_begin(sb_graph_loop *l, cudaStream_t st, enum cudaStreamCaptureMode mode)
{
    memset(l, 0, sizeof *l);
    SB_CUDA(cudaMalloc((void **)&l->d_go_on, sizeof *l->d_go_on));
    l->handle = (cudaGraphConditionalHandle)(uintptr_t)l->d_go_on;
    SB_CUDA(cudaGraphCreate(&l->graph, 0));
    SB_CUDA(cudaStreamBeginCaptureToGraph(st, l->graph, NULL, NULL, 0, mode));
    return 0;
}
#else
int sb_graph_loop_begin(sb_graph_loop *l, cudaStream_t st, enum cudaStreamCaptureMode mode)
{
    memset(l, 0, sizeof *l);
    SB_CUDA(cudaGraphCreate(&l->graph, 0));
    SB_CUDA(cudaGraphConditionalHandleCreate(&l->handle, l->graph, 1, cudaGraphCondAssignDefault));
    struct cudaGraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = l->handle;
    p.conditional.type = cudaGraphCondTypeWhile;
    p.conditional.size = 1;
    cudaGraphNode_t node;
    SB_CUDA(cudaGraphAddNode(&node, l->graph, NULL, NULL, 0, &p));
    SB_CUDA(cudaStreamBeginCaptureToGraph(st, p.conditional.phGraph_out[0], NULL, NULL, 0, mode));
    return 0;
}
#endif

int sb_graph_loop_end(sb_graph_loop *l, cudaStream_t st, int captured)
{
    cudaGraph_t body;
    cudaError_t e = cudaStreamEndCapture(st, &body);
    if (captured != 0)
        return -1;
    SB_CUDA(e);
    SB_CUDA(cudaGraphInstantiate(&l->exec, l->graph, 0));
    return 0;
}

int sb_graph_loop_launch(sb_graph_loop *l, cudaStream_t st)
{
#ifdef SB_GRAPH_LOOP_ON_HOST
    unsigned go_on;
    do {
        SB_CUDA(cudaGraphLaunch(l->exec, st));
        SB_CUDA(cudaMemcpyAsync(&go_on, l->d_go_on, sizeof go_on, cudaMemcpyDeviceToHost, st));
        SB_CUDA(cudaStreamSynchronize(st));
    } while (go_on);
#else
    SB_CUDA(cudaGraphLaunch(l->exec, st));
#endif
    return 0;
}

void sb_graph_loop_destroy(sb_graph_loop *l)
{
    if (l->exec)
        cudaGraphExecDestroy(l->exec);
    if (l->graph)
        cudaGraphDestroy(l->graph);
    cudaFree(l->d_go_on);
    memset(l, 0, sizeof *l);
}
