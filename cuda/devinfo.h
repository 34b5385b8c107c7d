/* Device facts for the records' context, and the suite's own measure of peak DRAM bandwidth. */
#ifndef SB_DEVINFO_H
#define SB_DEVINFO_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_device_info {
    int ordinal;
    char name[256];
    char uuid[48]; /* GPU-xxxxxxxx-xxxx-... as nvidia-smi prints it */
    int cc_major, cc_minor;
    int sm_count;
    int sm_clock_max_mhz, memory_clock_max_mhz, memory_bus_bits;
    size_t memory_bytes;
    int l2_bytes;
    int single_to_double_perf_ratio; /* FP32 over FP64 throughput (2 on an H100, 32 or 64 on
                                        consumer chips): cudaDevAttrSingleToDoublePrecisionPerfRatio */
    double peak_bw_theoretical; /* bytes/s: 2 (DDR) * memory clock * bus width / 8 */
    double peak_bw_measured;    /* bytes/s: device-to-device copy, read + written; 0 until measured */
} sb_device_info;

/* Number of usable GPUs: 0 (not an error) without a driver or a device. */
int sb_device_count(void);
/* Why there is no GPU, for "skipped" records: CUDA's own words. */
const char *sb_no_device_reason(void);
int sb_device_query(int ordinal, sb_device_info *info);
/* Best of several large device-to-device copies, counting bytes read plus bytes written. */
int sb_device_measure_bandwidth(int ordinal, double *bytes_per_second);

#ifdef __cplusplus
}
#endif

#endif
