/* Every CUDA runtime call and every kernel launch is checked: a failure becomes one error message
 * (file:line, the call, CUDA's own text) through sb_fail, and the caller returns -1. */
#ifndef SB_CHECK_H
#define SB_CHECK_H

#include <cuda_runtime_api.h>
#include "base/error.h"

#define SB_CUDA(call)                                                                              \
    do {                                                                                           \
        cudaError_t sb_err_ = (call);                                                              \
        if (sb_err_ != cudaSuccess)                                                                \
            return sb_fail("%s:%d: %s failed: %s", __FILE__, __LINE__, #call,                      \
                           cudaGetErrorString(sb_err_));                                           \
    } while (0)

/* After a launch that returns its error (cudaLaunchKernelEx): launch-configuration errors now,
 * not at the next sync; the last error is cleared either way. */
#define SB_LAUNCH_OK(launch_error, kernel_name)                                                    \
    do {                                                                                           \
        cudaError_t sb_err_ = (launch_error);                                                      \
        (void)cudaGetLastError();                                                                  \
        if (sb_err_ != cudaSuccess)                                                                \
            return sb_fail("%s:%d: launch of %s failed: %s", __FILE__, __LINE__, kernel_name,      \
                           cudaGetErrorString(sb_err_));                                           \
    } while (0)

/* After a <<<>>> launch. */
#define SB_LAUNCHED(kernel_name) SB_LAUNCH_OK(cudaGetLastError(), kernel_name)

#endif
