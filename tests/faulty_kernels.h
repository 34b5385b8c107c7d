/* The GPU half of the test-only `faulty` workload (tests/faulty_kernels.cu). */
#ifndef FAULTY_KERNELS_H
#define FAULTY_KERNELS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { FAULTY_GPU_NONE, FAULTY_GPU_ILLEGAL_ADDRESS, FAULTY_GPU_ASSERT, FAULTY_GPU_HANG };

/* A small device buffer on `device`. 0 or -1 (sb_error says why). */
int faulty_gpu_open(int device, void **buf);
/* One kernel of the fault's kind on `stream`, then a synchronisation: 0, or -1 with CUDA's error
 * (an illegal address, a device-side assert); FAULTY_GPU_HANG does not return for a minute. */
int faulty_gpu_step(int fault, void *buf, cudaStream_t stream);
void faulty_gpu_close(void *buf);

#ifdef __cplusplus
}
#endif

#endif
