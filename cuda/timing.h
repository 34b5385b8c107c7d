/* GPU-side timing support: CUDA events around the timed region, and an L2 flush before it when a
 * sample must start cold. */
#ifndef SB_TIMING_H
#define SB_TIMING_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_l2_flusher {
    int device;
    void *buffer;
    size_t bytes;
} sb_l2_flusher;

/* A buffer of twice the device's L2: writing it evicts whatever a previous sample left there. */
int sb_l2_flusher_init(sb_l2_flusher *f, int device);
int sb_l2_flush(sb_l2_flusher *f, cudaStream_t stream);
void sb_l2_flusher_free(sb_l2_flusher *f);

/* Elapsed seconds between two recorded events (waits for the second). */
int sb_event_seconds(cudaEvent_t start, cudaEvent_t stop, double *seconds);

#ifdef __cplusplus
}
#endif

#endif
