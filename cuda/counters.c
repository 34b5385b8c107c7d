/* Hardware counters: the dispatch. Checks the request, finds the device's compute capability and
 * hands the work to the first backend of the table that fits it, or to the one named by
 * SB_COUNTERS_BACKEND in the environment. Adding a backend is one more file defining an
 * sb_counters_backend_ops, one extern line and one row below; callers do not change. */
#define SB_COUNTERS_BACKEND
#include "counters.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <cupti_result.h>
#include <cupti_version.h>

#include "base/error.h"

const char *const sb_default_metrics[] = {
    "gpu__time_duration.sum",                            /* ns of GPU time in the range */
    "dram__bytes_read.sum",                              /* bytes read from device memory */
    "dram__bytes_write.sum",                             /* bytes written to device memory */
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",  /* SM throughput, % of peak */
    "sm__warps_active.avg.pct_of_peak_sustained_active", /* achieved occupancy, % */
    "lts__t_sector_hit_rate.pct",                        /* L2 hit rate, % */
    "smsp__inst_executed.sum",                           /* warp instructions: the issue floor */
};
const int sb_ndefault_metrics = (int)(sizeof sb_default_metrics / sizeof sb_default_metrics[0]);

/* ---- what the backends share ---- */

typedef CUresult(CUDAAPI *ctx_get_current_fn)(CUcontext *ctx);
typedef CUresult(CUDAAPI *device_get_fn)(CUdevice *dev, int ordinal);

int sb_counters_driver_entry(const char *symbol, void **fn, int device)
{
    *fn = NULL;
#if CUDART_VERSION >= 12050
    enum cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    /* 12000: the API as of CUDA 12.0 (both functions are much older and unchanged since) */
    cudaError_t err =
        cudaGetDriverEntryPointByVersion(symbol, fn, 12000, cudaEnableDefault, &status);
    int found = status == cudaDriverEntryPointSuccess;
#elif CUDART_VERSION >= 12000
    enum cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    cudaError_t err = cudaGetDriverEntryPoint(symbol, fn, cudaEnableDefault, &status);
    int found = status == cudaDriverEntryPointSuccess;
#else
    cudaError_t err = cudaGetDriverEntryPoint(symbol, fn, cudaEnableDefault);
    int found = 1;
#endif
    if (err != cudaSuccess || !found || *fn == NULL) {
        cudaGetLastError();
        sb_fail("hardware counters unavailable on device %d: the CUDA driver does not give %s "
                "(%s)",
                device, symbol, err != cudaSuccess ? cudaGetErrorString(err) : "symbol not found");
        return SB_COUNTERS_UNAVAILABLE;
    }
    return 0;
}

int sb_counters_primary_context(int device, CUcontext *ctx, CUdevice *dev)
{
    cudaError_t err = cudaSetDevice(device);
    if (err == cudaSuccess)
        err = cudaFree(0); /* creates the primary context if nothing has yet */
    if (err != cudaSuccess) {
        cudaGetLastError();
        return sb_fail("hardware counters on device %d: cannot make its context current: %s",
                       device, cudaGetErrorString(err));
    }
    void *get_current = NULL, *device_get = NULL;
    int rc = sb_counters_driver_entry("cuCtxGetCurrent", &get_current, device);
    if (rc == 0 && dev)
        rc = sb_counters_driver_entry("cuDeviceGet", &device_get, device);
    if (rc != 0)
        return rc;
    CUresult cr = ((ctx_get_current_fn)get_current)(ctx);
    if (cr != CUDA_SUCCESS || *ctx == NULL)
        return sb_fail("hardware counters on device %d: cuCtxGetCurrent failed (CUresult %d) "
                       "after cudaFree(0)",
                       device, (int)cr);
    if (dev && (cr = ((device_get_fn)device_get)(dev, device)) != CUDA_SUCCESS)
        return sb_fail("hardware counters on device %d: cuDeviceGet failed (CUresult %d)", device,
                       (int)cr);
    return 0;
}

int sb_counters_enter_device(int device, int *previous)
{
    *previous = -1;
    if (cudaGetDevice(previous) != cudaSuccess || cudaSetDevice(device) != cudaSuccess) {
        cudaError_t err = cudaGetLastError();
        return sb_fail("hardware counters on device %d: cannot make it current: %s", device,
                       cudaGetErrorString(err));
    }
    return 0;
}

void sb_counters_leave_device(int previous)
{
    if (previous >= 0 && cudaSetDevice(previous) != cudaSuccess)
        cudaGetLastError();
}

/* The backends, tried in order; the first whose fits() accepts the compute capability serves.
 * Between them they cover every compute capability: >= 7.5 and < 7.5. */
static const sb_counters_backend_ops *const backends[] = {
    &sb_counters_range_profiler,
    &sb_counters_event_metric,
};
static const int nbackends = (int)(sizeof backends / sizeof backends[0]);

/* rc, the message naming SB_COUNTERS_BACKEND when it chose the backend (`forced` not NULL). */
static int with_forced_name(const sb_counters_backend_ops *forced, int rc)
{
    if (rc != 0 && forced != NULL)
        (void)sb_fail_context("SB_COUNTERS_BACKEND=%s", forced->name);
    return rc;
}

struct sb_counters {
    const sb_counters_backend_ops *backend;
    void *state;
};

/* The device's compute capability and name, or why there is none: 0, SB_COUNTERS_UNAVAILABLE
 * (no driver, no GPU) or -1 (no such device). */
static int device_query(int device, int *major, int *minor, char *name, size_t size)
{
    int count = 0, driver = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        const char *why = err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA device visible";
        if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0)
            why = "no CUDA driver installed";
        cudaGetLastError();
        sb_fail("hardware counters unavailable: no GPU (%s)", why);
        return SB_COUNTERS_UNAVAILABLE;
    }
    if (device < 0 || device >= count)
        return sb_fail("hardware counters: device %d does not exist (this machine has %d CUDA "
                       "device%s, 0 to %d)",
                       device, count, count == 1 ? "" : "s", count - 1);
    struct cudaDeviceProp prop;
    err = cudaGetDeviceProperties(&prop, device);
    if (err != cudaSuccess) {
        cudaGetLastError();
        sb_fail("hardware counters unavailable on device %d: cudaGetDeviceProperties failed: %s",
                device, cudaGetErrorString(err));
        return SB_COUNTERS_UNAVAILABLE;
    }
    *major = prop.major;
    *minor = prop.minor;
    snprintf(name, size, "%s", prop.name);
    return 0;
}

/* The backend SB_COUNTERS_BACKEND names, whatever the compute capability (to see how a backend
 * refuses a chip it does not serve), or NULL when it is unset or empty. -1 for a name no backend
 * has. */
static int forced_backend(const sb_counters_backend_ops **b)
{
    const char *name = getenv("SB_COUNTERS_BACKEND");
    *b = NULL;
    if (name == NULL || name[0] == '\0')
        return 0;
    char names[256] = "";
    for (int i = 0; i < nbackends; i++) {
        if (strcmp(backends[i]->name, name) == 0) {
            *b = backends[i];
            return 0;
        }
        size_t len = strlen(names);
        snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "", backends[i]->name);
    }
    return sb_fail("SB_COUNTERS_BACKEND=%s: no such counter backend (this build has %s); unset "
                   "it to choose by compute capability",
                   name, names);
}

/* The backend for `device`: 0 with *b set, SB_COUNTERS_UNAVAILABLE or -1 with the message set.
 * *forced tells the backend came from SB_COUNTERS_BACKEND. */
static int choose_backend(int device, const sb_counters_backend_ops **b, int *forced)
{
    int major = 0, minor = 0;
    char name[256];
    int rc = forced_backend(b);
    *forced = *b != NULL;
    if (rc == 0)
        rc = device_query(device, &major, &minor, name, sizeof name);
    if (rc != 0 || *forced)
        return with_forced_name(*b, rc);
    for (int i = 0; i < nbackends; i++)
        if (backends[i]->fits(major, minor)) {
            *b = backends[i];
            return 0;
        }
    char needs[512] = "";
    for (int i = 0; i < nbackends; i++) {
        size_t len = strlen(needs);
        snprintf(needs + len, sizeof needs - len, "%s%s needs %s", i ? "; " : "",
                 backends[i]->name, backends[i]->needs);
    }
    sb_fail("hardware counters unavailable on device %d (%s): no counter backend in this build "
            "supports compute capability %d.%d (%s)",
            device, name, major, minor, needs);
    return SB_COUNTERS_UNAVAILABLE;
}

int sb_counters_open(sb_counters **c, int device, const char *const *metrics, int n)
{
    if (c == NULL)
        return sb_fail("sb_counters_open: no place for the result");
    *c = NULL;
    if (metrics == NULL || n < 1)
        return sb_fail("hardware counters: no metric asked for");
    if (n > SB_MAX_METRICS)
        return sb_fail("hardware counters: %d metrics asked for, at most %d at once", n,
                       SB_MAX_METRICS);
    for (int i = 0; i < n; i++) {
        if (metrics[i] == NULL || metrics[i][0] == '\0')
            return sb_fail("hardware counters: metric %d of %d has no name", i + 1, n);
        if (strlen(metrics[i]) >= SB_METRIC_NAME)
            return sb_fail("hardware counters: metric name '%.40s...' is longer than %d characters",
                           metrics[i], SB_METRIC_NAME - 1);
    }
    const sb_counters_backend_ops *b = NULL;
    int forced = 0;
    int rc = choose_backend(device, &b, &forced);
    if (rc != 0)
        return rc;
    sb_counters *h = calloc(1, sizeof *h);
    if (h == NULL)
        return sb_fail("hardware counters: out of host memory");
    h->backend = b;
    rc = b->open(&h->state, device, metrics, n);
    if (rc != 0) {
        free(h);
        return with_forced_name(forced ? b : NULL, rc);
    }
    *c = h;
    return 0;
}

const char *sb_counters_backend(const sb_counters *c)
{
    return c ? c->backend->name : "none";
}

const char *sb_counters_replay(const sb_counters *c)
{
    return c ? c->backend->replay : "none";
}

int sb_counters_passes(const sb_counters *c)
{
    return c ? c->backend->passes(c->state) : 0;
}

int sb_counters_begin_pass(sb_counters *c)
{
    if (c == NULL)
        return sb_fail("sb_counters_begin_pass: counters not open");
    return c->backend->begin_pass(c->state);
}

int sb_counters_end_pass(sb_counters *c, int *done)
{
    if (c == NULL || done == NULL)
        return sb_fail("sb_counters_end_pass: counters not open");
    *done = 0;
    return c->backend->end_pass(c->state, done);
}

int sb_counters_values(sb_counters *c, double *values)
{
    if (c == NULL || values == NULL)
        return sb_fail("sb_counters_values: counters not open");
    return c->backend->values(c->state, values);
}

void sb_counters_close(sb_counters *c)
{
    if (c == NULL)
        return;
    c->backend->close(c->state);
    free(c);
}

int sb_counters_list(int device, FILE *f)
{
    const sb_counters_backend_ops *b = NULL;
    int forced = 0;
    int rc = choose_backend(device, &b, &forced);
    if (rc != 0)
        return rc;
    return with_forced_name(forced ? b : NULL, b->list(device, f));
}

const char *sb_cupti_version(void)
{
    static _Thread_local char text[64];
    uint32_t v = 0;
    if (cuptiGetVersion(&v) != CUPTI_SUCCESS || v == 0)
        return "unavailable";
    if (v >= 100000) { /* CUDA 13 on: xxyyzz = toolkit major, minor, CUPTI update */
        snprintf(text, sizeof text, "%u.%u (API %u)", (unsigned)(v / 10000),
                 (unsigned)(v / 100 % 100), (unsigned)v);
        return text;
    }
    /* before CUDA 13 the API version was a small counter (cupti_version.h lists them) */
    static const struct {
        uint32_t api;
        const char *toolkit;
    } older[] = {{13, "11.0"}, {14, "11.1"}, {15, "11.2"}, {16, "11.5"}, {17, "11.6"},
                 {18, "11.8"}, {19, "12.0"}, {20, "12.2"}, {21, "12.3"}, {22, "12.4"},
                 {23, "12.5"}, {24, "12.6"}, {26, "12.8"}, {27, "12.9"}, {28, "12.9"}};
    for (size_t i = 0; i < sizeof older / sizeof older[0]; i++)
        if (older[i].api == v) {
            snprintf(text, sizeof text, "%s (API %u)", older[i].toolkit, (unsigned)v);
            return text;
        }
    snprintf(text, sizeof text, "API %u", (unsigned)v);
    return text;
}

/* Levenshtein distance, two rows; names are short (SB_METRIC_NAME), longer ones are cut. */
static int edit_distance(const char *a, const char *b)
{
    enum { MAXLEN = SB_METRIC_NAME };
    int row0[MAXLEN + 1], row1[MAXLEN + 1];
    size_t la = strlen(a), lb = strlen(b);
    if (la > MAXLEN)
        la = MAXLEN;
    if (lb > MAXLEN)
        lb = MAXLEN;
    int *prev = row0, *cur = row1;
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            int best = sub < del ? sub : del;
            cur[j] = best < ins ? best : ins;
        }
        int *t = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

void sb_counters_close_matches(const char *wanted, const char *const *candidates, size_t n,
                               int max, char *out, size_t size)
{
    enum { KEEP = 8 };
    int dist[KEEP];
    size_t which[KEEP];
    int kept = 0;
    if (size == 0)
        return;
    out[0] = '\0';
    if (max > KEEP)
        max = KEEP;
    for (size_t i = 0; i < n && max > 0; i++) {
        if (candidates[i] == NULL)
            continue;
        int d = edit_distance(wanted, candidates[i]);
        if (kept == max && d >= dist[kept - 1])
            continue;
        int at = kept < max ? kept++ : kept - 1; /* drop the farthest when full */
        while (at > 0 && dist[at - 1] > d) {     /* stable: earlier candidates win ties */
            dist[at] = dist[at - 1];
            which[at] = which[at - 1];
            at--;
        }
        dist[at] = d;
        which[at] = i;
    }
    for (int k = 0; k < kept; k++) {
        size_t len = strlen(out);
        snprintf(out + len, size - len, "%s%s", k ? ", " : "", candidates[which[k]]);
    }
}
