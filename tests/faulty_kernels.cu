/* The GPU faults of the test-only `faulty` workload (tests/faulty_stagebench.c): a kernel each
 * that is correct, writes to an address nothing maps (a sticky illegal-address error), fails a
 * device-side assert (sticky too), or spins (a hang: the isolated variant's time limit ends it;
 * the kernel itself gives up after a minute, so that nothing is left spinning if its process
 * outlives the test). A test executable only, never the product. */
#undef NDEBUG /* the asserts stay in a Release build */
#include <assert.h>
#include <stdint.h>

#include "../cuda/check.h"
#include "faulty_kernels.h"

#define FAULTY_N 1024

__global__ void fill(int *buf, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        buf[i] = i;
}

/* `far` lies 1 TiB past the allocation: no mapping there. */
__global__ void write_far(int *far)
{
    far[threadIdx.x] = 1;
}

__global__ void fail_assert(const int *buf, int n)
{
    assert(n < 0 && buf != nullptr); /* n is FAULTY_N */
}

__device__ uint64_t global_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spin(volatile int *flag, uint64_t give_up_ns)
{
    uint64_t start = global_ns();
    while (*flag == 0 && global_ns() - start < give_up_ns)
        ;
}

extern "C" int faulty_gpu_open(int device, void **buf)
{
    *buf = NULL;
    SB_CUDA(cudaSetDevice(device));
    SB_CUDA(cudaMalloc(buf, FAULTY_N * sizeof(int)));
    SB_CUDA(cudaMemset(*buf, 0, FAULTY_N * sizeof(int)));
    return 0;
}

extern "C" int faulty_gpu_step(int fault, void *buf_, cudaStream_t stream)
{
    int *buf = (int *)buf_;
    switch (fault) {
    case FAULTY_GPU_NONE:
        fill<<<(FAULTY_N + 255) / 256, 256, 0, stream>>>(buf, FAULTY_N);
        SB_LAUNCHED("fill");
        break;
    case FAULTY_GPU_ILLEGAL_ADDRESS:
        write_far<<<1, 32, 0, stream>>>((int *)((char *)buf + (1ull << 40)));
        SB_LAUNCHED("write_far");
        break;
    case FAULTY_GPU_ASSERT:
        fail_assert<<<1, 1, 0, stream>>>(buf, FAULTY_N);
        SB_LAUNCHED("fail_assert");
        break;
    case FAULTY_GPU_HANG:
        spin<<<1, 1, 0, stream>>>(buf, 60ull * 1000 * 1000 * 1000);
        SB_LAUNCHED("spin");
        break;
    }
    SB_CUDA(cudaStreamSynchronize(stream));
    int last = 0;
    SB_CUDA(cudaMemcpyAsync(&last, buf + FAULTY_N - 1, sizeof last, cudaMemcpyDeviceToHost, stream));
    SB_CUDA(cudaStreamSynchronize(stream));
    if (fault == FAULTY_GPU_HANG)
        return sb_fail("faulty: the spinning kernel gave up after a minute");
    if (fault == FAULTY_GPU_NONE && last != FAULTY_N - 1)
        return sb_fail("faulty: the fill kernel wrote %d, not %d", last, FAULTY_N - 1);
    return 0;
}

extern "C" void faulty_gpu_close(void *buf)
{
    if (buf)
        cudaFree(buf); /* fails after a sticky error: nothing to do about it */
}
