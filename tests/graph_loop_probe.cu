/* A probe for compute-sanitizer, not a test of stagebench: one block-wide exchange through shared
 * memory with a barrier every thread reaches, run three times either as plain launches or as the
 * body of a device-side while loop (a conditional graph node, as RDME's one-GPU gpu-graph and
 * gpu-fused run their steps). racecheck and synccheck should find nothing in either; if they
 * report errors only for the loop, the tool, not the kernel, is at fault (bench/scripts/device-check
 * sanitize runs both).
 *   graph_loop_probe plain|loop      exit 0: the exchange's result is right */
#include <stdio.h>
#include <string.h>

#include "../cuda/check.h"
#include "../cuda/graphloop.h"
#include "../cuda/base/error.h"

#define THREADS 256
#define BLOCKS 64
#define PASSES 3

__global__ void exchange(int *out)
{
    __shared__ int s[THREADS];
    s[threadIdx.x] = (int)(blockIdx.x * THREADS + threadIdx.x);
    __syncthreads();
    out[blockIdx.x * THREADS + threadIdx.x] += s[THREADS - 1 - threadIdx.x];
}

__global__ void count_pass(cudaGraphConditionalHandle loop, int *passes)
{
    *passes += 1;
    sb_graph_loop_continue(loop, *passes < PASSES);
}

static int run(int as_loop, int *out, int *passes)
{
    cudaStream_t st;
    SB_CUDA(cudaStreamCreate(&st));
    if (!as_loop) {
        for (int p = 0; p < PASSES; p++) {
            exchange<<<BLOCKS, THREADS, 0, st>>>(out);
            SB_CUDA(cudaGetLastError());
        }
    } else {
        sb_graph_loop loop;
        if (sb_graph_loop_begin(&loop, st, cudaStreamCaptureModeThreadLocal) != 0)
            return -1;
        exchange<<<BLOCKS, THREADS, 0, st>>>(out);
        count_pass<<<1, 1, 0, st>>>(loop.handle, passes);
        int rc = sb_graph_loop_end(&loop, st, 0) || sb_graph_loop_launch(&loop, st);
        sb_graph_loop_destroy(&loop);
        if (rc != 0)
            return -1;
    }
    SB_CUDA(cudaStreamSynchronize(st));
    SB_CUDA(cudaStreamDestroy(st));
    return 0;
}

int main(int argc, char **argv)
{
    int as_loop = argc == 2 && strcmp(argv[1], "loop") == 0;
    if (argc != 2 || (!as_loop && strcmp(argv[1], "plain") != 0)) {
        fprintf(stderr, "usage: graph_loop_probe plain|loop\n");
        return 2;
    }
    int count;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("graph_loop_probe: SKIPPED (no GPU)\n");
        return 77;
    }
    int *out, *passes, host[BLOCKS * THREADS];
    if (cudaMalloc((void **)&out, sizeof host) != cudaSuccess ||
        cudaMalloc((void **)&passes, sizeof *passes) != cudaSuccess ||
        cudaMemset(out, 0, sizeof host) != cudaSuccess ||
        cudaMemset(passes, 0, sizeof *passes) != cudaSuccess || run(as_loop, out, passes) != 0 ||
        cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost) != cudaSuccess) {
        fprintf(stderr, "graph_loop_probe %s: %s (%s)\n", argv[1], sb_error(),
                cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    for (int i = 0; i < BLOCKS * THREADS; i++) {
        int b = i / THREADS, t = i % THREADS, want = PASSES * (b * THREADS + THREADS - 1 - t);
        if (host[i] != want) {
            fprintf(stderr, "graph_loop_probe %s: out[%d] = %d, want %d\n", argv[1], i, host[i], want);
            return 1;
        }
    }
    printf("graph_loop_probe %s: %d passes right\n", argv[1], PASSES);
    return 0;
}
