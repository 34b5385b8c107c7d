#include "timing.h"

#include "check.h"

int sb_l2_flusher_init(sb_l2_flusher *f, int device)
{
    int l2 = 0;
    f->device = device;
    f->buffer = NULL;
    SB_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    f->bytes = 2 * (size_t)(l2 > 0 ? l2 : 1 << 20);
    SB_CUDA(cudaSetDevice(device));
    SB_CUDA(cudaMalloc(&f->buffer, f->bytes));
    return 0;
}

int sb_l2_flush(sb_l2_flusher *f, cudaStream_t stream)
{
    static unsigned char fill;
    SB_CUDA(cudaMemsetAsync(f->buffer, ++fill, f->bytes, stream));
    return 0;
}

void sb_l2_flusher_free(sb_l2_flusher *f)
{
    if (f->buffer) {
        cudaSetDevice(f->device);
        cudaFree(f->buffer);
    }
    f->buffer = NULL;
}

int sb_event_seconds(cudaEvent_t start, cudaEvent_t stop, double *seconds)
{
    float ms = 0;
    SB_CUDA(cudaEventSynchronize(stop));
    SB_CUDA(cudaEventElapsedTime(&ms, start, stop));
    *seconds = ms * 1e-3;
    return 0;
}
