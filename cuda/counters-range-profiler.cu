/* Hardware counters through CUPTI's Profiler Host API (cupti_profiler_host.h: metric names,
 * config image, number of passes, evaluation) and Range Profiler (cupti_range_profiler.h:
 * collection), for compute capability >= 7.5 with CUDA >= 12.8.
 *
 * One user range ("sb") per pass, user replay: the caller runs the same work in every pass
 * between sb_counters_begin_pass and sb_counters_end_pass, and CUPTI says when every pass it
 * planned has been submitted. After the last pass the counter data is decoded and the metrics
 * evaluated for that one range.
 *
 * What the range covers: CUPTI documents that in user-range mode "kernels launched between
 * Push/Pop API calls will be profiled", that ranges may span many kernel launches launched
 * asynchronously, and that (NVLink, C2C and PCIe metrics aside) metrics are collected at the
 * CUDA context level. So a range counts everything the context runs between push and pop: every
 * kernel on every stream of the context, copies and sets included, summed over the range (not per
 * kernel). CUPTI's documentation does not mention device-side (dynamic parallelism) launches for
 * the range profiler; child grids run in the parent's context and finish before the parent grid
 * does, so when the caller synchronizes before end_pass their work falls inside the range. Checked
 * on an H200 (CUDA 13.0, driver 580): a copy done by child grids that one parent thread launched
 * gave the same dram__bytes_read/write.sum and sm__ctas_launched.sum as the same copy launched
 * from the host. Work on other devices or contexts is not counted.
 *
 * CUDA C (.cu, host code only) rather than C11: cupti_profiler_host.h includes the C++ header
 * <string>, so only a C++ compiler can read it.
 *
 * No call to the driver API is linked: binaries must start where there is no libcuda.so. The
 * CUcontext CUPTI needs comes from cuCtxGetCurrent, fetched through the runtime's driver
 * entry-point lookup after cudaFree(0) made the device's primary context current; <cuda.h> is
 * included for its types only. */
#define SB_COUNTERS_BACKEND
#include "counters.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

/* The range profiler appeared in CUDA 12.6 Update 2; this backend asks for 12.8 (CUPTI API 26)
 * or later. With older headers it builds as a stub that says why it cannot serve. */
#if defined(__has_include)
#if __has_include(<cupti_range_profiler.h>)
#include <cupti_version.h>
#if CUPTI_API_VERSION >= 26
#define SB_HAVE_RANGE_PROFILER 1
#endif
#endif
#endif

static int fits(int cc_major, int cc_minor)
{
    return cc_major > 7 || (cc_major == 7 && cc_minor >= 5);
}

#ifndef SB_HAVE_RANGE_PROFILER

static int stub_unavailable(void)
{
    sb_fail("hardware counters unavailable: this build's CUPTI has no range profiler (build with "
            "the CUDA toolkit 12.8 or later)");
    return SB_COUNTERS_UNAVAILABLE;
}
static int stub_open(void **state, int device, const char *const *metrics, int n)
{
    (void)state, (void)device, (void)metrics, (void)n;
    return stub_unavailable();
}
static int stub_passes(const void *state)
{
    (void)state;
    return 0;
}
static int stub_pass(void *state)
{
    (void)state;
    return stub_unavailable();
}
static int stub_end_pass(void *state, int *done)
{
    (void)state, (void)done;
    return stub_unavailable();
}
static int stub_values(void *state, double *values)
{
    (void)state, (void)values;
    return stub_unavailable();
}
static void stub_close(void *state)
{
    (void)state;
}
static int stub_list(int device, FILE *f)
{
    (void)device, (void)f;
    return stub_unavailable();
}

const sb_counters_backend_ops sb_counters_range_profiler = {
    "range-profiler", "user", "compute capability >= 7.5 and CUDA >= 12.8", fits, stub_open,
    stub_passes, stub_pass, stub_end_pass, stub_values, stub_close, stub_list};

#else /* SB_HAVE_RANGE_PROFILER */

#include <cuda.h> /* types only: CUcontext, CUdevice, CUresult */
#include <cuda_runtime_api.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>


#define RANGE_NAME "sb"

typedef struct rp_state {
    int device;
    CUcontext ctx;
    char chip[64];
    uint8_t *availability; /* counter availability image: read by the host object, kept alive */
    size_t availability_size;
    CUpti_Profiler_Host_Object *host;
    CUpti_RangeProfiler_Object *rp;
    uint8_t *config; /* config image: scheduling of the metrics over the passes */
    size_t config_size;
    uint8_t *counter_data; /* counter data image: the decoded counters of the range */
    size_t counter_data_size;
    int n;
    char names[SB_MAX_METRICS][SB_METRIC_NAME];
    const char *name_ptrs[SB_MAX_METRICS];
    int passes;        /* planned by the host API */
    int submitted;     /* passes ended */
    int started;       /* cuptiRangeProfilerStart without its Stop yet */
    int pushed;        /* the range pushed and not popped yet */
    int all_submitted; /* CUPTI said every pass was submitted */
    int evaluated;
    double values[SB_MAX_METRICS];
} rp_state;

static const char *result_string(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || s == NULL)
        return "unknown CUPTI error";
    return s;
}

/* A failed CUPTI call as the project's error: SB_COUNTERS_UNAVAILABLE where this machine cannot
 * give counters (permission, vGPU, unsupported device or setup, another profiler attached), -1
 * for everything else. `setup` is set while opening or listing, where CUPTI's catch-all
 * CUPTI_ERROR_UNKNOWN also counts as unavailable (a library CUPTI loads at run time, such as
 * libnvperf_host.so, that is missing or refused may surface that way). */
static int cupti_failed(CUptiResult r, const char *call, int device, int setup)
{
    switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        sb_fail("hardware counters unavailable on device %d: counters need permission "
                "(ERR_NVGPUCTRPERM): run as root or load nvidia with "
                "NVreg_RestrictProfilingToAdminUsers=0",
                device);
        return SB_COUNTERS_UNAVAILABLE;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        sb_fail("hardware counters unavailable on device %d: it is a vGPU and profiling is not "
                "supported or not enabled for this VM (%s failed: %s)",
                device, call, result_string(r));
        return SB_COUNTERS_UNAVAILABLE;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_API_NOT_IMPLEMENTED:
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
        sb_fail("hardware counters unavailable on device %d: %s failed: %s", device, call,
                result_string(r));
        return SB_COUNTERS_UNAVAILABLE;
    default:
        if (setup && r == CUPTI_ERROR_UNKNOWN) {
            sb_fail("hardware counters unavailable on device %d: %s failed: %s", device, call,
                    result_string(r));
            return SB_COUNTERS_UNAVAILABLE;
        }
        return sb_fail("hardware counters on device %d: %s failed: %s", device, call,
                       result_string(r));
    }
}

/* Runs a CUPTI call; on failure returns what cupti_failed says from the enclosing function.
 * Needs `s` (an rp_state *) and `setup` in scope. */
#define RP_CALL(fn, params)                                                                        \
    do {                                                                                           \
        CUptiResult rp_r_ = fn(params);                                                            \
        if (rp_r_ != CUPTI_SUCCESS)                                                                \
            return cupti_failed(rp_r_, #fn, s->device, setup);                                     \
    } while (0)

/* cuptiProfilerInitialize once per process; deinitializing is left to process exit. Like the rest
 * of this file, not for several threads at once. */
static int profiler_initialize(rp_state *s, int setup)
{
    static int initialized;
    if (initialized)
        return 0;
    CUpti_Profiler_Initialize_Params p = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL};
    RP_CALL(cuptiProfilerInitialize, &p);
    initialized = 1;
    return 0;
}

/* CUPTI's own verdict on the device, so that the message can say what stands in the way. */
static int device_supported(rp_state *s, int setup, CUdevice dev)
{
    CUpti_Profiler_DeviceSupported_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
    p.cuDevice = dev;
    p.api = CUPTI_PROFILER_RANGE_PROFILING;
    RP_CALL(cuptiProfilerDeviceSupported, &p);
    if (p.isSupported != CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED &&
        p.isSupported != CUPTI_PROFILER_CONFIGURATION_DISABLED)
        return 0;
    const char *why = "CUPTI reports the device or its configuration unsupported";
    if (p.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED)
        why = "it is a vGPU and profiling is not enabled for this VM";
    else if (p.vGpu == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        why = "it is a vGPU that does not support profiling";
    else if (p.architecture == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        why = "CUPTI does not support its architecture";
    else if (p.confidentialCompute == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        why = "confidential computing is on";
    else if (p.cmp == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        why = "it is a crypto-mining processor (CMP)";
    else if (p.sli == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        why = "SLI is on";
    else if (p.wsl == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
        why = "WSL without profiling support";
    sb_fail("hardware counters unavailable on device %d: %s", s->device, why);
    return SB_COUNTERS_UNAVAILABLE;
}

/* Context, chip name, counter availability and the host object: what open and list share. */
static int host_setup(rp_state *s, int device)
{
    const int setup = 1;
    s->device = device;
    CUdevice dev = 0;
    int rc = sb_counters_primary_context(device, &s->ctx, &dev);
    if (rc == 0)
        rc = profiler_initialize(s, setup);
    if (rc == 0)
        rc = device_supported(s, setup, dev);
    if (rc != 0)
        return rc;

    CUpti_Device_GetChipName_Params chip;
    memset(&chip, 0, sizeof chip);
    chip.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
    chip.deviceIndex = (size_t)device;
    RP_CALL(cuptiDeviceGetChipName, &chip);
    snprintf(s->chip, sizeof s->chip, "%s", chip.pChipName ? chip.pChipName : "unknown chip");

    CUpti_Profiler_GetCounterAvailability_Params avail;
    memset(&avail, 0, sizeof avail);
    avail.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
    avail.ctx = s->ctx;
    RP_CALL(cuptiProfilerGetCounterAvailability, &avail); /* the size */
    if (avail.counterAvailabilityImageSize == 0)
        return sb_fail("hardware counters on device %d: CUPTI gave an empty counter availability "
                       "image",
                       device);
    s->availability_size = avail.counterAvailabilityImageSize;
    s->availability = (uint8_t *)calloc(1, s->availability_size);
    if (s->availability == NULL)
        return sb_fail("hardware counters: out of host memory");
    avail.pCounterAvailabilityImage = s->availability;
    RP_CALL(cuptiProfilerGetCounterAvailability, &avail); /* the image */

    CUpti_Profiler_Host_Initialize_Params init;
    memset(&init, 0, sizeof init);
    init.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    init.pChipName = s->chip;
    init.pCounterAvailabilityImage = s->availability;
    RP_CALL(cuptiProfilerHostInitialize, &init);
    s->host = init.pHostObject;
    return 0;
}

/* Releases what host_setup and open took, in reverse order. Results are not reported: this runs
 * on error paths too, where the first error's message must stay. */
static void rp_release(rp_state *s)
{
    if (s->rp != NULL) {
        if (s->pushed) {
            CUpti_RangeProfiler_PopRange_Params pop = {
                CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE, NULL, s->rp};
            (void)cuptiRangeProfilerPopRange(&pop);
        }
        if (s->started) {
            CUpti_RangeProfiler_Stop_Params stop;
            memset(&stop, 0, sizeof stop);
            stop.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
            stop.pRangeProfilerObject = s->rp;
            (void)cuptiRangeProfilerStop(&stop);
        }
        CUpti_RangeProfiler_Disable_Params off = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE,
                                                  NULL, s->rp};
        (void)cuptiRangeProfilerDisable(&off);
    }
    if (s->host != NULL) {
        CUpti_Profiler_Host_Deinitialize_Params deinit = {
            CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, NULL, s->host};
        (void)cuptiProfilerHostDeinitialize(&deinit);
    }
    free(s->counter_data);
    free(s->config);
    free(s->availability);
    free(s);
}

/* Every base metric of the chip, with its type. The names belong to the host object. */
typedef struct base_list {
    const char **names;
    CUpti_MetricType *types;
    size_t n;
} base_list;

static int base_metrics(rp_state *s, base_list *out, int setup)
{
    memset(out, 0, sizeof *out);
    size_t total = 0;
    CUpti_Profiler_Host_GetBaseMetrics_Params p[CUPTI_METRIC_TYPE__COUNT];
    for (int t = 0; t < CUPTI_METRIC_TYPE__COUNT; t++) {
        memset(&p[t], 0, sizeof p[t]);
        p[t].structSize = CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE;
        p[t].pHostObject = s->host;
        p[t].metricType = (CUpti_MetricType)t;
        RP_CALL(cuptiProfilerHostGetBaseMetrics, &p[t]);
        total += p[t].numMetrics;
    }
    out->names = (const char **)calloc(total ? total : 1, sizeof *out->names);
    out->types = (CUpti_MetricType *)calloc(total ? total : 1, sizeof *out->types);
    if (out->names == NULL || out->types == NULL) {
        free(out->names);
        free(out->types);
        memset(out, 0, sizeof *out);
        return sb_fail("hardware counters: out of host memory");
    }
    for (int t = 0; t < CUPTI_METRIC_TYPE__COUNT; t++)
        for (size_t i = 0; i < p[t].numMetrics; i++) {
            out->names[out->n] = p[t].ppMetricNames[i];
            out->types[out->n] = (CUpti_MetricType)t;
            out->n++;
        }
    return 0;
}

static void base_list_free(base_list *b)
{
    free(b->names);
    free(b->types);
    memset(b, 0, sizeof *b);
}

/* "base" + "." + "sub" into out; sub may come with or without its leading dot. */
static void full_name(const char *base, const char *sub, char *out, size_t size)
{
    snprintf(out, size, "%s%s%s", base, sub[0] == '.' ? "" : ".", sub);
}

/* The sub-metrics (rollups and suffixes) of one base metric, as full names in a malloc'd array
 * of SB_METRIC_NAME-sized slots. */
static int sub_metrics(rp_state *s, const char *base, CUpti_MetricType type,
                       char (**out)[SB_METRIC_NAME], size_t *n, int setup)
{
    *out = NULL;
    *n = 0;
    CUpti_Profiler_Host_GetSubMetrics_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE;
    p.pHostObject = s->host;
    p.metricType = type;
    p.pMetricName = base;
    RP_CALL(cuptiProfilerHostGetSubMetrics, &p);
    if (p.numOfSubmetrics == 0)
        return 0;
    char(*names)[SB_METRIC_NAME] = (char(*)[SB_METRIC_NAME])calloc(p.numOfSubmetrics, sizeof *names);
    if (names == NULL)
        return sb_fail("hardware counters: out of host memory");
    for (size_t i = 0; i < p.numOfSubmetrics; i++)
        full_name(base, p.ppSubMetrics[i] ? p.ppSubMetrics[i] : "", names[i], sizeof names[i]);
    *out = names;
    *n = p.numOfSubmetrics;
    return 0;
}

/* Is `name` a metric this chip knows? 1 yes, 0 no, or an error from the call. */
static int known_metric(rp_state *s, const char *name)
{
    CUpti_Profiler_Host_GetMetricProperties_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
    p.pHostObject = s->host;
    p.pMetricName = name;
    CUptiResult r = cuptiProfilerHostGetMetricProperties(&p);
    if (r == CUPTI_SUCCESS)
        return 1;
    if (r == CUPTI_ERROR_INVALID_METRIC_NAME || r == CUPTI_ERROR_INVALID_PARAMETER)
        return 0;
    return cupti_failed(r, "cuptiProfilerHostGetMetricProperties", s->device, 1);
}

/* The message for a name the chip does not know, or a bare base name (`incomplete`: the host API
 * knows it, but collecting needs a rollup or sub-metric): -1, listing the nearest names. A known
 * base gets that base's full names; anything else the nearest base names. */
static int unknown_metric(rp_state *s, const char *name, int incomplete)
{
    char base[SB_METRIC_NAME];
    snprintf(base, sizeof base, "%s", name);
    char *dot = strchr(base, '.');
    if (dot != NULL)
        *dot = '\0';
    char matches[1024] = "";
    base_list bases;
    if (base_metrics(s, &bases, 1) == 0) {
        /* the longest base that the name extends (some bases hold dots themselves) */
        size_t hit = bases.n, hit_len = 0;
        for (size_t i = 0; i < bases.n; i++) {
            size_t len = bases.names[i] ? strlen(bases.names[i]) : 0;
            if (len > hit_len && strncmp(name, bases.names[i], len) == 0 &&
                (name[len] == '.' || name[len] == '\0')) {
                hit = i;
                hit_len = len;
            }
        }
        char(*subs)[SB_METRIC_NAME] = NULL;
        size_t nsubs = 0;
        if (hit < bases.n &&
            sub_metrics(s, bases.names[hit], bases.types[hit], &subs, &nsubs, 1) == 0 &&
            nsubs > 0) {
            const char **ptrs = (const char **)calloc(nsubs, sizeof *ptrs);
            if (ptrs != NULL) {
                for (size_t i = 0; i < nsubs; i++)
                    ptrs[i] = subs[i];
                sb_counters_close_matches(name, ptrs, nsubs, 5, matches, sizeof matches);
                free(ptrs);
            }
        } else {
            sb_counters_close_matches(base, bases.names, bases.n, 5, matches, sizeof matches);
        }
        free(subs);
        base_list_free(&bases);
    }
    return sb_fail("%s metric '%s' on %s%s; close matches: %s; `stagebench list --metrics` lists "
                   "them all",
                   incomplete ? "incomplete" : "unknown", name, s->chip,
                   incomplete ? " (it needs a rollup or sub-metric: .sum, .avg, ...)" : "",
                   matches[0] ? matches : "(none could be listed)");
}

/* A call that took the metric names failed: names the culprit when it is a name (-1, with the
 * nearest names), else says what failed. */
static int names_failed(rp_state *s, CUptiResult r, const char *call)
{
    for (int i = 0; i < s->n; i++) {
        int known = known_metric(s, s->name_ptrs[i]);
        if (known == 0)
            return unknown_metric(s, s->name_ptrs[i], 0);
        if (known != 1)
            return known;
    }
    /* the host API knows bare base names ("dram__bytes_read"); collecting them fails */
    base_list bases;
    if (base_metrics(s, &bases, 1) == 0) {
        for (int i = 0; i < s->n; i++)
            for (size_t j = 0; j < bases.n; j++)
                if (bases.names[j] != NULL && strcmp(s->name_ptrs[i], bases.names[j]) == 0) {
                    base_list_free(&bases);
                    return unknown_metric(s, s->name_ptrs[i], 1);
                }
        base_list_free(&bases);
    }
    return cupti_failed(r, call, s->device, 1);
}

/* The config image for the metrics and the number of passes it needs. */
static int configure(rp_state *s)
{
    const int setup = 1;
    CUpti_Profiler_Host_ConfigAddMetrics_Params add;
    memset(&add, 0, sizeof add);
    add.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    add.pHostObject = s->host;
    add.ppMetricNames = s->name_ptrs;
    add.numMetrics = (size_t)s->n;
    CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add);
    if (r != CUPTI_SUCCESS)
        return names_failed(s, r, "cuptiProfilerHostConfigAddMetrics");

    CUpti_Profiler_Host_GetConfigImageSize_Params size;
    memset(&size, 0, sizeof size);
    size.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    size.pHostObject = s->host;
    RP_CALL(cuptiProfilerHostGetConfigImageSize, &size);
    if (size.configImageSize == 0)
        return sb_fail("hardware counters on device %d: CUPTI gave an empty config image",
                       s->device);
    s->config_size = size.configImageSize;
    s->config = (uint8_t *)calloc(1, s->config_size);
    if (s->config == NULL)
        return sb_fail("hardware counters: out of host memory");

    CUpti_Profiler_Host_GetConfigImage_Params image;
    memset(&image, 0, sizeof image);
    image.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
    image.pHostObject = s->host;
    image.configImageSize = s->config_size;
    image.pConfigImage = s->config;
    RP_CALL(cuptiProfilerHostGetConfigImage, &image);

    CUpti_Profiler_Host_GetNumOfPasses_Params passes;
    memset(&passes, 0, sizeof passes);
    passes.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    passes.configImageSize = s->config_size;
    passes.pConfigImage = s->config;
    RP_CALL(cuptiProfilerHostGetNumOfPasses, &passes);
    if (passes.numOfPasses < 1 || passes.numOfPasses > 100000)
        return sb_fail("hardware counters on device %d: CUPTI planned %zu passes", s->device,
                       passes.numOfPasses);
    s->passes = (int)passes.numOfPasses;
    return 0;
}

/* The range profiler on the context: one range per pass, one nesting level, user replay. */
static int enable(rp_state *s)
{
    const int setup = 1;
    CUpti_RangeProfiler_Enable_Params on;
    memset(&on, 0, sizeof on);
    on.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
    on.ctx = s->ctx;
    RP_CALL(cuptiRangeProfilerEnable, &on);
    s->rp = on.pRangeProfilerObject;

    CUpti_RangeProfiler_GetCounterDataSize_Params size;
    memset(&size, 0, sizeof size);
    size.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
    size.pRangeProfilerObject = s->rp;
    size.pMetricNames = s->name_ptrs;
    size.numMetrics = (size_t)s->n;
    size.maxNumOfRanges = 1;
    size.maxNumRangeTreeNodes = 1;
    CUptiResult r = cuptiRangeProfilerGetCounterDataSize(&size);
    if (r != CUPTI_SUCCESS)
        return names_failed(s, r, "cuptiRangeProfilerGetCounterDataSize");
    if (size.counterDataSize == 0)
        return sb_fail("hardware counters on device %d: CUPTI gave an empty counter data image",
                       s->device);
    s->counter_data_size = size.counterDataSize;
    s->counter_data = (uint8_t *)calloc(1, s->counter_data_size);
    if (s->counter_data == NULL)
        return sb_fail("hardware counters: out of host memory");

    CUpti_RangeProfiler_CounterDataImage_Initialize_Params init;
    memset(&init, 0, sizeof init);
    init.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    init.pRangeProfilerObject = s->rp;
    init.counterDataSize = s->counter_data_size;
    init.pCounterData = s->counter_data;
    RP_CALL(cuptiRangeProfilerCounterDataImageInitialize, &init);

    CUpti_RangeProfiler_SetConfig_Params config;
    memset(&config, 0, sizeof config);
    config.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    config.pRangeProfilerObject = s->rp;
    config.configSize = s->config_size;
    config.pConfig = s->config;
    config.counterDataImageSize = s->counter_data_size;
    config.pCounterDataImage = s->counter_data;
    config.range = CUPTI_UserRange;
    config.replayMode = CUPTI_UserReplay;
    config.maxRangesPerPass = 1;
    config.numNestingLevels = 1;
    config.minNestingLevel = 1;
    config.passIndex = 0;
    config.targetNestingLevel = 1;
    RP_CALL(cuptiRangeProfilerSetConfig, &config);
    return 0;
}

static int rp_open(void **state, int device, const char *const *metrics, int n)
{
    *state = NULL;
    rp_state *s = (rp_state *)calloc(1, sizeof *s);
    if (s == NULL)
        return sb_fail("hardware counters: out of host memory");
    s->n = n;
    for (int i = 0; i < n; i++) {
        snprintf(s->names[i], sizeof s->names[i], "%s", metrics[i]);
        s->name_ptrs[i] = s->names[i];
    }
    int rc = host_setup(s, device);
    if (rc == 0)
        rc = configure(s);
    if (rc == 0)
        rc = enable(s);
    if (rc != 0) {
        rp_release(s);
        return rc;
    }
    *state = s;
    return 0; /* the device's context stays current, as sb_counters_open promises */
}

static int rp_passes(const void *state)
{
    return ((const rp_state *)state)->passes;
}

static int rp_begin_pass(void *state)
{
    rp_state *s = (rp_state *)state;
    const int setup = 0;
    if (s->all_submitted)
        return sb_fail("hardware counters: a pass was begun after every pass was submitted");
    if (s->pushed)
        return sb_fail("hardware counters: a pass was begun twice without ending it");
    int previous, rc = sb_counters_enter_device(s->device, &previous);
    if (rc != 0)
        return rc;
    CUpti_RangeProfiler_Start_Params start;
    memset(&start, 0, sizeof start);
    start.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
    start.pRangeProfilerObject = s->rp;
    CUptiResult r = cuptiRangeProfilerStart(&start);
    if (r == CUPTI_SUCCESS) {
        s->started = 1;
        CUpti_RangeProfiler_PushRange_Params push;
        memset(&push, 0, sizeof push);
        push.structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE;
        push.pRangeProfilerObject = s->rp;
        push.pRangeName = RANGE_NAME;
        r = cuptiRangeProfilerPushRange(&push);
        if (r == CUPTI_SUCCESS) {
            s->pushed = 1;
        } else {
            rc = cupti_failed(r, "cuptiRangeProfilerPushRange", s->device, setup);
            CUpti_RangeProfiler_Stop_Params stop; /* no pass half begun */
            memset(&stop, 0, sizeof stop);
            stop.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
            stop.pRangeProfilerObject = s->rp;
            if (cuptiRangeProfilerStop(&stop) == CUPTI_SUCCESS)
                s->started = 0;
        }
    } else {
        rc = cupti_failed(r, "cuptiRangeProfilerStart", s->device, setup);
    }
    sb_counters_leave_device(previous);
    return rc;
}

static int rp_end_pass(void *state, int *done)
{
    rp_state *s = (rp_state *)state;
    const int setup = 0;
    *done = 0;
    if (!s->pushed)
        return sb_fail("hardware counters: a pass was ended without being begun");
    int previous, rc = sb_counters_enter_device(s->device, &previous);
    if (rc != 0)
        return rc;
    /* the caller synchronized already; this makes sure the range holds all of the pass's work */
    cudaError_t err = cudaDeviceSynchronize();
    CUpti_RangeProfiler_PopRange_Params pop;
    memset(&pop, 0, sizeof pop);
    pop.structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE;
    pop.pRangeProfilerObject = s->rp;
    CUptiResult r = cuptiRangeProfilerPopRange(&pop);
    s->pushed = 0;
    if (r != CUPTI_SUCCESS)
        rc = cupti_failed(r, "cuptiRangeProfilerPopRange", s->device, setup);
    CUpti_RangeProfiler_Stop_Params stop;
    memset(&stop, 0, sizeof stop);
    stop.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    stop.pRangeProfilerObject = s->rp;
    r = cuptiRangeProfilerStop(&stop);
    s->started = 0;
    if (r != CUPTI_SUCCESS && rc == 0)
        rc = cupti_failed(r, "cuptiRangeProfilerStop", s->device, setup);
    sb_counters_leave_device(previous);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return sb_fail("hardware counters: the work of pass %d failed on device %d: %s",
                       s->submitted + 1, s->device, cudaGetErrorString(err));
    }
    if (rc != 0)
        return rc;
    s->submitted++;
    s->all_submitted = stop.isAllPassSubmitted != 0;
    *done = s->all_submitted;
    if (!s->all_submitted && s->submitted >= 8 * s->passes + 8)
        return sb_fail("hardware counters: CUPTI still asks for passes after %d (it planned %d)",
                       s->submitted, s->passes);
    return 0;
}

/* Decodes the counter data and evaluates the metrics for the one range, once. */
static int evaluate(rp_state *s)
{
    const int setup = 0;
    CUpti_RangeProfiler_DecodeData_Params decode;
    memset(&decode, 0, sizeof decode);
    decode.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
    decode.pRangeProfilerObject = s->rp;
    RP_CALL(cuptiRangeProfilerDecodeData, &decode);
    if (decode.numOfRangeDropped != 0)
        return sb_fail("hardware counters on device %d: CUPTI dropped %zu range(s) while decoding",
                       s->device, decode.numOfRangeDropped);

    CUpti_RangeProfiler_GetCounterDataInfo_Params info;
    memset(&info, 0, sizeof info);
    info.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
    info.pCounterDataImage = s->counter_data;
    info.counterDataImageSize = s->counter_data_size;
    RP_CALL(cuptiRangeProfilerGetCounterDataInfo, &info);
    if (info.numTotalRanges != 1)
        return sb_fail("hardware counters on device %d: %zu ranges recorded, expected the one "
                       "range '" RANGE_NAME "'",
                       s->device, info.numTotalRanges);

    CUpti_Profiler_Host_EvaluateToGpuValues_Params eval;
    memset(&eval, 0, sizeof eval);
    eval.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
    eval.pHostObject = s->host;
    eval.pCounterDataImage = s->counter_data;
    eval.counterDataImageSize = s->counter_data_size;
    eval.rangeIndex = 0;
    eval.ppMetricNames = s->name_ptrs;
    eval.numMetrics = (size_t)s->n;
    eval.pMetricValues = s->values;
    RP_CALL(cuptiProfilerHostEvaluateToGpuValues, &eval);
    s->evaluated = 1;
    return 0;
}

static int rp_values(void *state, double *values)
{
    rp_state *s = (rp_state *)state;
    if (!s->all_submitted)
        return sb_fail("hardware counters: values asked for after %d of the passes (%d planned); "
                       "end_pass has not said done",
                       s->submitted, s->passes);
    if (!s->evaluated) {
        int previous, rc = sb_counters_enter_device(s->device, &previous);
        if (rc != 0)
            return rc;
        rc = evaluate(s);
        sb_counters_leave_device(previous);
        if (rc != 0)
            return rc;
    }
    memcpy(values, s->values, (size_t)s->n * sizeof *values);
    return 0;
}

static void rp_close(void *state)
{
    if (state != NULL)
        rp_release((rp_state *)state);
}

/* for sorting indices of a base_list by name */
static const base_list *sort_bases;
static int compare_base(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    return strcmp(sort_bases->names[i] ? sort_bases->names[i] : "",
                  sort_bases->names[j] ? sort_bases->names[j] : "");
}

static int rp_list(int device, FILE *f)
{
    rp_state *s = (rp_state *)calloc(1, sizeof *s);
    if (s == NULL)
        return sb_fail("hardware counters: out of host memory");
    int rc = host_setup(s, device);
    base_list bases;
    memset(&bases, 0, sizeof bases);
    size_t *order = NULL;
    if (rc == 0)
        rc = base_metrics(s, &bases, 1);
    if (rc == 0 && (order = (size_t *)calloc(bases.n ? bases.n : 1, sizeof *order)) == NULL)
        rc = sb_fail("hardware counters: out of host memory");
    if (rc == 0) {
        for (size_t i = 0; i < bases.n; i++)
            order[i] = i;
        sort_bases = &bases;
        qsort(order, bases.n, sizeof *order, compare_base);
        sort_bases = NULL;
        for (size_t k = 0; k < bases.n && rc == 0; k++) {
            size_t i = order[k];
            if (bases.names[i] == NULL)
                continue;
            char(*subs)[SB_METRIC_NAME] = NULL;
            size_t nsubs = 0;
            rc = sub_metrics(s, bases.names[i], bases.types[i], &subs, &nsubs, 1);
            for (size_t j = 0; rc == 0 && j < nsubs; j++)
                if (fprintf(f, "%s\n", subs[j]) < 0)
                    rc = sb_fail("hardware counters: cannot write the metric list");
            free(subs);
        }
    }
    free(order);
    base_list_free(&bases);
    rp_release(s);
    return rc;
}

const sb_counters_backend_ops sb_counters_range_profiler = {
    "range-profiler", "user",       "compute capability >= 7.5", fits,     rp_open,
    rp_passes,        rp_begin_pass, rp_end_pass,                 rp_values, rp_close,
    rp_list};

#endif /* SB_HAVE_RANGE_PROFILER */
