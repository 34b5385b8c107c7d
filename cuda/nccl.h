/* NCCL, or, in a build without it (SB_NO_NCCL: Debian packages no NCCL for its CUDA 11.8), the
 * few declarations rdme's mgpu-nccl and the copies workload's nccl variant use, so that their
 * code compiles. Both need SB_NEEDS_NCCL, which the harness refuses in such a build before their
 * set-up; were a stand-in reached, it fails. */
#ifndef SB_NCCL_H
#define SB_NCCL_H

#ifndef SB_NO_NCCL
#include <nccl.h>
#else
#include <stddef.h>
#include <cuda_runtime_api.h>

typedef struct ncclComm *ncclComm_t;
typedef enum { ncclSuccess = 0, ncclInvalidUsage = 5 } ncclResult_t;
typedef enum { ncclUint8 = 1 } ncclDataType_t;

static inline const char *ncclGetErrorString(ncclResult_t r)
{
    return r == ncclSuccess ? "no error" : "this build has no NCCL";
}
static inline ncclResult_t ncclCommInitAll(ncclComm_t *comms, int n, const int *devs)
{
    (void)comms, (void)n, (void)devs;
    return ncclInvalidUsage;
}
static inline ncclResult_t ncclCommDestroy(ncclComm_t c)
{
    (void)c;
    return ncclSuccess;
}
static inline ncclResult_t ncclGroupStart(void)
{
    return ncclInvalidUsage;
}
static inline ncclResult_t ncclGroupEnd(void)
{
    return ncclSuccess;
}
static inline ncclResult_t ncclSend(const void *b, size_t n, ncclDataType_t t, int peer,
                                    ncclComm_t c, cudaStream_t s)
{
    (void)b, (void)n, (void)t, (void)peer, (void)c, (void)s;
    return ncclInvalidUsage;
}
static inline ncclResult_t ncclRecv(void *b, size_t n, ncclDataType_t t, int peer, ncclComm_t c,
                                    cudaStream_t s)
{
    (void)b, (void)n, (void)t, (void)peer, (void)c, (void)s;
    return ncclInvalidUsage;
}
#endif

#endif
