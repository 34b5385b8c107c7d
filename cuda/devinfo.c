#include "devinfo.h"

#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "check.h"

static char no_device_reason[256];

int sb_device_count(void)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    int driver = 0;
    if (err != cudaSuccess && (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0)) {
        snprintf(no_device_reason, sizeof no_device_reason, "no GPU: no CUDA driver installed");
        cudaGetLastError();
        return 0;
    }
    if (err != cudaSuccess) {
        snprintf(no_device_reason, sizeof no_device_reason, "no GPU: %s",
                 cudaGetErrorString(err));
        cudaGetLastError();
        return 0;
    }
    if (n == 0)
        snprintf(no_device_reason, sizeof no_device_reason, "no GPU: no CUDA device visible");
    return n;
}

const char *sb_no_device_reason(void)
{
    return no_device_reason[0] ? no_device_reason : "no GPU";
}

int sb_device_query(int ordinal, sb_device_info *info)
{
    struct cudaDeviceProp prop;
    int khz = 0, mem_khz = 0, bus = 0, fp64_ratio = 0;
    memset(info, 0, sizeof *info);
    SB_CUDA(cudaGetDeviceProperties(&prop, ordinal));
    SB_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, ordinal));
    SB_CUDA(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, ordinal));
    SB_CUDA(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, ordinal));
    SB_CUDA(cudaDeviceGetAttribute(&fp64_ratio, cudaDevAttrSingleToDoublePrecisionPerfRatio,
                                   ordinal));
    info->ordinal = ordinal;
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
    snprintf(info->uuid, sizeof info->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->sm_count = prop.multiProcessorCount;
    info->sm_clock_max_mhz = khz / 1000;
    info->memory_clock_max_mhz = mem_khz / 1000;
    info->memory_bus_bits = bus;
    info->memory_bytes = prop.totalGlobalMem;
    info->l2_bytes = prop.l2CacheSize;
    info->single_to_double_perf_ratio = fp64_ratio;
    info->peak_bw_theoretical = 2.0 * mem_khz * 1000.0 * (bus / 8.0);
    return 0;
}

int sb_device_measure_bandwidth(int ordinal, double *bytes_per_second)
{
    /* 1 GiB each way: far beyond any L2, long enough (~0.5 ms on HBM3) for events to resolve. */
    const size_t bytes = (size_t)1 << 30;
    void *src = NULL, *dst = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    float best_ms = 0;
    int rc = -1;
    *bytes_per_second = 0;
    SB_CUDA(cudaSetDevice(ordinal));
    if (cudaMalloc(&src, bytes) != cudaSuccess || cudaMalloc(&dst, bytes) != cudaSuccess) {
        cudaGetLastError();
        sb_fail("device %d: no room for the 2 GiB bandwidth probe", ordinal);
        goto done;
    }
    if (cudaMemset(src, 0x5a, bytes) != cudaSuccess || cudaEventCreate(&start) != cudaSuccess ||
        cudaEventCreate(&stop) != cudaSuccess) {
        sb_fail("device %d: bandwidth probe set-up failed: %s", ordinal,
                cudaGetErrorString(cudaGetLastError()));
        goto done;
    }
    for (int i = 0; i < 12; i++) { /* the first two are warm-up */
        float ms = 0;
        if (cudaEventRecord(start, 0) != cudaSuccess ||
            cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0) != cudaSuccess ||
            cudaEventRecord(stop, 0) != cudaSuccess || cudaEventSynchronize(stop) != cudaSuccess ||
            cudaEventElapsedTime(&ms, start, stop) != cudaSuccess) {
            sb_fail("device %d: bandwidth probe failed: %s", ordinal,
                    cudaGetErrorString(cudaGetLastError()));
            goto done;
        }
        if (i >= 2 && (best_ms == 0 || ms < best_ms))
            best_ms = ms;
    }
    *bytes_per_second = 2.0 * (double)bytes / (best_ms * 1e-3);
    rc = 0;
done:
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    cudaFree(src);
    cudaFree(dst);
    return rc;
}
