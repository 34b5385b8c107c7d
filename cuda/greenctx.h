/* A GPU made slower on purpose, for load-balancing experiments: a stream whose kernels run on only
 * part of the device's SMs, through a CUDA green context (driver API, CUDA 12.5+ driver).
 *
 * The stream is a plain cudaStream_t of `device`: runtime <<<>>> launches, cudaMemcpyAsync,
 * cudaMemsetAsync and cudaEventRecord take it as they take any stream of that device (launch with
 * `device` current, as for any of its streams), and kernels on it read and write memory that
 * cudaMalloc gave in the primary context (see greenctx.c for the documentation behind this).
 * Differences from a stream of cudaStreamCreate:
 *  - it is non-blocking (the driver requires it): no implicit ordering with the legacy default
 *    stream, order it with events or stream synchronisation;
 *  - use it from one host thread at a time (green contexts have no internal locking);
 *  - the SM count is a floor, not a cap the hardware always holds: with MPS, or on compute
 *    capability 9.x once a module with dynamic parallelism is loaded (sbcore has one), kernels may
 *    also use a shared set of 2 more SMs (CUDA driver API, Green Contexts).
 * cudaDeviceSynchronize on `device` also waits for the stream (it synchronises the primary context
 * and its green contexts). */
#ifndef SB_GREENCTX_H
#define SB_GREENCTX_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_sm_limit {
    int device;
    int sms;                     /* SMs granted: the count asked, rounded up to the granularity */
    struct CUgreenCtx_st *green; /* CUgreenCtx (cuda.h), kept opaque here */
    cudaStream_t stream;         /* a stream of the green context */
} sb_sm_limit;

/* Opens a stream of `device` whose kernels run on `sms` of its SMs. 0; -1 (sb_error says why: the
 * device, the SMs asked and what the device can split); SB_REFUSED (2) when the driver, the build
 * or the device has no green contexts. The thread's current context and device are unchanged. */
int sb_sm_limit_open(sb_sm_limit *l, int device, int sms, cudaStream_t *stream);
/* Waits for the stream's work, then destroys the stream and the green context (the stream may not
 * be used afterwards). Safe on a zeroed or already closed limit. */
void sb_sm_limit_close(sb_sm_limit *l);
/* SMs actually granted (the driver rounds splits up to the device's granularity). */
int sb_sm_limit_sms(const sb_sm_limit *l);

#ifdef __cplusplus
}
#endif

#endif
