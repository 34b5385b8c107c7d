/* SM limits through green contexts (CUDA driver API, "Green Contexts" group; the declarations
 * and their documentation are in cuda.h of CUDA 13.0).
 *
 * Steps, as the driver documents them: the device's SM resource (cuDeviceGetDevResource), one
 * group split from it (cuDevSmResourceSplitByCount rounds the count up to the device's minimum and
 * alignment), a descriptor (cuDevResourceGenerateDesc), the green context (cuGreenCtxCreate, with
 * CU_GREEN_CTX_DEFAULT_STREAM, which the driver requires) and a stream in it
 * (cuGreenCtxStreamCreate, with CU_STREAM_NON_BLOCKING, which the driver requires).
 *
 * Memory: cuGreenCtxCreate "will retain the primary context on device dev", and cuCtxFromGreenCtx
 * says the context of a green context "is a normal primary context but with the resources of the
 * specified green context" (CUDA 13.0 driver API, Green Contexts; cuda.h). A green context is thus
 * the primary context running on fewer SMs: same address space, same allocations, so kernels on
 * its streams use what cudaMalloc gave in the primary context. The runtime's execution-context
 * documentation (CUDA 13.1+, cudaExecutionContext_t, "Lifetime of CUDA Resources") says the same
 * from the other side: memory, streams, events and modules belong to the device, not to one of
 * its contexts. Runtime launches into the stream work because a launch takes its context from the
 * stream (cuLaunchKernel: "the context to launch the kernel on will either be taken from the
 * specified stream hStream or the current context in case of NULL stream"), and cuStreamGetCtx
 * gives for it "the one returned by cuCtxFromGreenCtx() on the green context". The test
 * (tests/gpu_greenctx.c) checks all of this on a GPU.
 *
 * The driver is reached through the runtime's entry-point query, as in
 * cuda/counters-range-profiler.cu, not by linking libcuda: the binaries keep starting on machines
 * without a driver (cudart_static loads libcuda at run time), and a driver without green contexts
 * is a refusal instead of an unresolved symbol. */
#include "greenctx.h"

#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"

#if CUDA_VERSION < 12050

/* cuGreenCtxStreamCreate is declared from CUDA 12.5 on. */
int sb_sm_limit_open(sb_sm_limit *l, int device, int sms, cudaStream_t *stream)
{
    memset(l, 0, sizeof *l);
    *stream = NULL;
    sb_fail("SM limit on device %d: %d SMs asked, but this build's CUDA (%d.%d) has no green-context "
            "streams (CUDA 12.5+)",
            device, sms, CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
    return SB_REFUSED;
}

void sb_sm_limit_close(sb_sm_limit *l)
{
    memset(l, 0, sizeof *l);
}

#else

typedef CUresult(CUDAAPI *get_error_string_fn)(CUresult error, const char **str);
typedef CUresult(CUDAAPI *device_get_fn)(CUdevice *dev, int ordinal);
typedef CUresult(CUDAAPI *ctx_get_current_fn)(CUcontext *ctx);
typedef CUresult(CUDAAPI *ctx_set_current_fn)(CUcontext ctx);
typedef CUresult(CUDAAPI *device_get_dev_resource_fn)(CUdevice dev, CUdevResource *resource,
                                                      CUdevResourceType type);
typedef CUresult(CUDAAPI *sm_resource_split_by_count_fn)(CUdevResource *result,
                                                         unsigned int *nb_groups,
                                                         const CUdevResource *input,
                                                         CUdevResource *remaining,
                                                         unsigned int use_flags,
                                                         unsigned int min_count);
typedef CUresult(CUDAAPI *resource_generate_desc_fn)(CUdevResourceDesc *desc,
                                                     CUdevResource *resources, unsigned int n);
typedef CUresult(CUDAAPI *green_ctx_create_fn)(CUgreenCtx *green, CUdevResourceDesc desc,
                                               CUdevice dev, unsigned int flags);
typedef CUresult(CUDAAPI *green_ctx_destroy_fn)(CUgreenCtx green);
typedef CUresult(CUDAAPI *green_ctx_stream_create_fn)(CUstream *stream, CUgreenCtx green,
                                                      unsigned int flags, int priority);
typedef CUresult(CUDAAPI *stream_fn)(CUstream stream);

/* Members named as the driver's functions, so that failure messages name them. */
static struct {
    get_error_string_fn cuGetErrorString;
    device_get_fn cuDeviceGet;
    ctx_get_current_fn cuCtxGetCurrent;
    ctx_set_current_fn cuCtxSetCurrent;
    device_get_dev_resource_fn cuDeviceGetDevResource;
    sm_resource_split_by_count_fn cuDevSmResourceSplitByCount;
    resource_generate_desc_fn cuDevResourceGenerateDesc;
    green_ctx_create_fn cuGreenCtxCreate;
    green_ctx_destroy_fn cuGreenCtxDestroy;
    green_ctx_stream_create_fn cuGreenCtxStreamCreate;
    stream_fn cuStreamSynchronize;
    stream_fn cuStreamDestroy;
} drv;

/* Looked up once per process (limits may be opened from the threads of a multi-GPU run). */
static pthread_once_t drv_once = PTHREAD_ONCE_INIT;
static int drv_rc;
static char drv_why[512];

static int cu_failed(CUresult r, const char *call, const char *file, int line)
{
    const char *text = NULL;
    if (drv.cuGetErrorString == NULL || drv.cuGetErrorString(r, &text) != CUDA_SUCCESS ||
        text == NULL)
        text = "unknown error";
    return sb_fail("%s:%d: %s failed: %s (CUresult %d)", file, line, call, text, (int)r);
}

#define SB_CU(call)                                                                                \
    do {                                                                                           \
        CUresult sb_cu_ = (call);                                                                  \
        if (sb_cu_ != CUDA_SUCCESS)                                                                \
            return cu_failed(sb_cu_, #call, __FILE__, __LINE__);                                   \
    } while (0)

/* The ABI asked of the driver: this file's headers, or the driver's own version if older (the
 * functions used here have kept their signatures since they appeared). */
static unsigned int abi_version;

static int entry(const char *symbol, void **fn)
{
    enum cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    cudaError_t err = cudaGetDriverEntryPointByVersion(symbol, fn, abi_version, cudaEnableDefault,
                                                       &status);
    if (err == cudaSuccess && status == cudaDriverEntryPointSuccess && *fn != NULL)
        return 0;
    cudaGetLastError();
    snprintf(drv_why, sizeof drv_why, "the CUDA driver (%u.%u) does not give %s (%s)",
             abi_version / 1000, abi_version % 1000 / 10, symbol,
             err != cudaSuccess ? cudaGetErrorString(err)
             : status == cudaDriverEntryPointVersionNotSufficent ? "version not sufficient"
                                                                  : "symbol not found");
    return SB_REFUSED;
}

#define LOAD(name)                                                                                 \
    do {                                                                                           \
        void *fn_ = NULL;                                                                          \
        if ((drv_rc = entry(#name, &fn_)) != 0)                                                    \
            return;                                                                                \
        memcpy(&drv.name, &fn_, sizeof fn_);                                                       \
    } while (0)

static void load_driver(void)
{
    int version = 0;
    cudaError_t err = cudaDriverGetVersion(&version);
    if (err != cudaSuccess || version == 0) {
        cudaGetLastError();
        snprintf(drv_why, sizeof drv_why, "no CUDA driver: %s",
                 err != cudaSuccess ? cudaGetErrorString(err) : "none installed");
        drv_rc = SB_REFUSED;
        return;
    }
    abi_version = version < CUDA_VERSION ? (unsigned)version : CUDA_VERSION;
    if (abi_version < 12050) {
        snprintf(drv_why, sizeof drv_why,
                 "the CUDA driver (%d.%d) has no green-context streams (CUDA 12.5+)",
                 version / 1000, version % 1000 / 10);
        drv_rc = SB_REFUSED;
        return;
    }
    LOAD(cuGetErrorString);
    LOAD(cuDeviceGet);
    LOAD(cuCtxGetCurrent);
    LOAD(cuCtxSetCurrent);
    LOAD(cuDeviceGetDevResource);
    LOAD(cuDevSmResourceSplitByCount);
    LOAD(cuDevResourceGenerateDesc);
    LOAD(cuGreenCtxCreate);
    LOAD(cuGreenCtxDestroy);
    LOAD(cuGreenCtxStreamCreate);
    LOAD(cuStreamSynchronize);
    LOAD(cuStreamDestroy);
}

/* What the device's SMs allow, for the messages. */
typedef struct split_rules {
    unsigned total, minimum, alignment; /* minimum, alignment: 0 where the headers lack them */
} split_rules;

static int create(sb_sm_limit *l, int device, int sms, split_rules *rules)
{
    CUdevice dev;
    CUdevResource all, group;
    CUdevResourceDesc desc;
    memset(&all, 0, sizeof all);
    memset(&group, 0, sizeof group);
    SB_CU(drv.cuDeviceGet(&dev, device));
    CUresult r = drv.cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM);
    if (r == CUDA_ERROR_NOT_SUPPORTED) {
        cu_failed(r, "cuDeviceGetDevResource", __FILE__, __LINE__);
        return SB_REFUSED;
    }
    SB_CU(r);
    rules->total = all.sm.smCount;
#if CUDA_VERSION >= 13000
    rules->minimum = all.sm.minSmPartitionSize;
    rules->alignment = all.sm.smCoscheduledAlignment;
#endif
    if (sms < 1 || (unsigned)sms > all.sm.smCount)
        return sb_fail("not between 1 and the device's SM count");
    /* One group, no remainder wanted: the rest of the SMs stay with the primary context. */
    unsigned int groups = 1;
    SB_CU(drv.cuDevSmResourceSplitByCount(&group, &groups, &all, NULL, 0, (unsigned)sms));
    if (groups != 1)
        return sb_fail("cuDevSmResourceSplitByCount made no group (rounded up, it does not fit)");
    SB_CU(drv.cuDevResourceGenerateDesc(&desc, &group, 1));
    r = drv.cuGreenCtxCreate(&l->green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM);
    if (r == CUDA_ERROR_NOT_SUPPORTED) {
        l->green = NULL;
        cu_failed(r, "cuGreenCtxCreate", __FILE__, __LINE__);
        return SB_REFUSED;
    }
    if (r != CUDA_SUCCESS)
        l->green = NULL;
    SB_CU(r);
    CUstream stream = NULL;
    SB_CU(drv.cuGreenCtxStreamCreate(&stream, l->green, CU_STREAM_NON_BLOCKING, 0));
    l->stream = (cudaStream_t)stream; /* CUstream and cudaStream_t are the same type */
    l->sms = (int)group.sm.smCount;
    return 0;
}

/* Streams go before their green context: cuGreenCtxDestroy does not destroy them and leaves them
 * unusable, even for cuStreamDestroy. Results are not checked, as in the suite's other frees:
 * nothing is left to do about them, and a context broken by a kernel fault has already said so at
 * the caller's synchronisation. */
static void release(sb_sm_limit *l)
{
    if (l->stream != NULL) {
        drv.cuStreamSynchronize((CUstream)l->stream); /* no green context torn down under work */
        drv.cuStreamDestroy((CUstream)l->stream);
    }
    if (l->green != NULL)
        drv.cuGreenCtxDestroy(l->green);
    l->stream = NULL;
    l->green = NULL;
    l->sms = 0;
}

/* None of the calls above sets a context current (cudaInitDevice and cuGreenCtxCreate say they do
 * not; cuGreenCtxStreamCreate ignores the current context), so this only guards against a driver
 * that would. The runtime's current device is the current context's (CUDA runtime API,
 * Interactions with the CUDA Driver API), so it comes back with it. */
static int restore_context(CUcontext saved)
{
    CUcontext now = NULL;
    SB_CU(drv.cuCtxGetCurrent(&now));
    if (now != saved)
        SB_CU(drv.cuCtxSetCurrent(saved));
    return 0;
}

int sb_sm_limit_open(sb_sm_limit *l, int device, int sms, cudaStream_t *stream)
{
    memset(l, 0, sizeof *l);
    l->device = device;
    *stream = NULL;
    pthread_once(&drv_once, load_driver);
    if (drv_rc != 0) {
        sb_fail("SM limit on device %d: %d SMs asked: %s", device, sms, drv_why);
        return drv_rc;
    }
    /* The primary context first: cuGreenCtxCreate retains it, and advises it be active already
     * (else it is created and torn down with the green context). Not made current. */
    cudaError_t err = cudaInitDevice(device, 0, 0);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return sb_fail("SM limit on device %d: %d SMs asked: cudaInitDevice failed: %s", device,
                       sms, cudaGetErrorString(err));
    }
    CUcontext saved = NULL;
    CUresult r = drv.cuCtxGetCurrent(&saved);
    if (r != CUDA_SUCCESS) {
        cu_failed(r, "cuCtxGetCurrent", __FILE__, __LINE__);
        return sb_fail_context("SM limit on device %d: %d SMs asked", device, sms);
    }

    split_rules rules = {0, 0, 0};
    int rc = create(l, device, sms, &rules);
    if (rc != 0) {
        if (rules.total == 0)
            sb_fail_context("SM limit on device %d: %d SMs asked", device, sms);
        else if (rules.minimum == 0)
            sb_fail_context("SM limit on device %d: %d SMs asked (the device has %u)", device,
                            sms, rules.total);
        else
            sb_fail_context("SM limit on device %d: %d SMs asked (the device has %u, split in "
                            "groups of at least %u, in multiples of %u)",
                            device, sms, rules.total, rules.minimum, rules.alignment);
        release(l);
    }
    if (restore_context(saved) != 0) {
        sb_fail_context("SM limit on device %d: restoring the caller's context", device);
        release(l);
        return -1;
    }
    if (rc == 0)
        *stream = l->stream;
    return rc;
}

void sb_sm_limit_close(sb_sm_limit *l)
{
    /* Anything to release was made after the driver was loaded. */
    if (l->stream != NULL || l->green != NULL)
        release(l);
}

#endif /* CUDA_VERSION >= 12050 */

int sb_sm_limit_sms(const sb_sm_limit *l)
{
    return l->sms;
}
