/* Kernels chained by programmatic dependent launch (sm_90 and later): a chained kernel is
 * launched as a programmatic dependent of the stream's kernel before it, so its blocks may be
 * resident before that kernel ends and the gap between the two shrinks. Within a CUDA graph
 * captured from the stream, the dependency becomes a programmatic edge. A chained kernel must
 * call sb_await_previous_kernel before its first global read of what the kernel before wrote;
 * without a programmatic dependency (an older GPU, or a plain launch) the wait returns at once.
 * The kernel before lets it launch early with sb_launch_next_kernel. */
#ifndef SB_CHAIN_CUH
#define SB_CHAIN_CUH

#include <cuda_runtime_api.h>

/* Waits until the kernel before has ended and its writes are visible. */
static __device__ inline void sb_await_previous_kernel(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* Lets the next chained kernel launch once every block of this one has called it (or ended): its
 * blocks then take SM resources as this kernel's free up, or sooner where some are spare. A
 * kernel that calls it late, or not at all, keeps its own grid whole on the SMs. */
static __device__ inline void sb_launch_next_kernel(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* Launches kernel k with `shared` bytes of dynamic shared memory, chained to the kernel before
 * it in the stream or not. */
template <class... P, class... A>
static cudaError_t sb_launch_kernel(void (*k)(P...), dim3 grid, int threads, size_t shared,
                                    int chained, cudaStream_t st, A... args)
{
#if CUDART_VERSION >= 12000
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = shared;
    cfg.stream = st;
    cfg.attrs = &attr;
    cfg.numAttrs = chained ? 1 : 0;
    return cudaLaunchKernelEx(&cfg, k, args...);
#else
    (void)chained;
    k<<<grid, threads, shared, st>>>(args...);
    return cudaGetLastError();
#endif
}

#endif
