/* Hardware counters through CUPTI's legacy Event and Metric APIs (cupti_events.h,
 * cupti_metrics.h), for compute capability < 7.5: Kepler, Maxwell, Pascal and Volta, the chips the
 * range profiler (counters-range-profiler.cu, >= 7.5) does not serve. CUPTI serves these APIs on
 * those chips up to CUDA 12; CUPTI 13 answers every call with
 * CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED, and so does any CUPTI on chips of 7.5 and later: both
 * come back from open as unavailable, saying so.
 *
 * Names: the default set's perfworks names are read through the legacy metric mappings[] names
 * for the chip, or reported as NaN where no legacy metric means the same (the table says why).
 * Legacy metric and event names ("achieved_occupancy", "active_warps") are taken as they are.
 *
 * Passes: the events of every metric asked go into cuptiEventGroupSetsCreate, which splits them
 * into the sets that can be counted together: one set per pass, user replay. begin_pass enables
 * a set, end_pass reads its groups, normalised over domain instances as CUPTI documents
 * (summed over the instances read, times total instances / instances read), and values()
 * evaluates each metric from its events and the mean pass time.
 *
 * Collection mode: CONTINUOUS. In KERNEL mode CUPTI zeroes the counters "when each kernel
 * execution begins" (cupti_events.h), so a pass of several kernels would count only its last.
 * CONTINUOUS counts everything between enable and read, as the range profiler's range does
 * (device-launched grids, graphs and copies included), but device-wide: another process's work
 * on the same GPU counts too. CUPTI lists as a limitation that in this mode a read may return
 * values late; each pass starts and ends with the device synchronized to keep the window exact.
 *
 * The driver is reached through the runtime's entry-point query, not by linking libcuda, as in
 * counters-range-profiler.cu: binaries must start where there is no driver. */
#define SB_COUNTERS_BACKEND
#include "counters.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda.h> /* types only: CUcontext, CUdevice, CUresult */
#include <cuda_runtime_api.h>
#include <cupti_events.h>
#include <cupti_metrics.h>
#include <cupti_result.h>

#include "base/error.h"

enum {
    MAX_EVENTS = 512,      /* distinct events of one metric set */
    MAX_ROWS_PER_NAME = 4, /* rows of mappings[] one name may have on one chip */
    CC_LIMIT = 75,         /* this backend serves compute capability below 7.5 */
};

static int fits(int cc_major, int cc_minor)
{
    return cc_major * 10 + cc_minor < CC_LIMIT;
}

/* ---- the perfworks names of the default set, as legacy metrics ---- */

typedef enum {
    SOURCE_METRIC,  /* a legacy metric, times scale */
    SOURCE_EVENT,   /* a legacy event, summed over the domain's instances */
    SOURCE_ELAPSED, /* ns between CUDA events around the pass */
    SOURCE_NONE,    /* no legacy equivalent: NaN */
} source_kind;

typedef struct metric_mapping {
    const char *perfworks;
    int cc_from, cc_to; /* compute capability as major * 10 + minor, both included */
    source_kind kind;
    const char *legacy; /* SOURCE_METRIC: the legacy metric's name */
    double scale;
    const char *why_none; /* SOURCE_NONE: why, for `stagebench list --metrics` and the docs */
} metric_mapping;

/* Rows of one name that fit a chip are tried in order; the first metric the chip's CUPTI knows
 * serves. Names from CUPTI's metrics reference (Metric API, "Metrics for Capability 3.x / 5.x /
 * 6.x / 7.0"). 3.0-3.7 Kepler, 5.0-5.3 Maxwell, 6.0-6.2 Pascal, 7.0-7.2 Volta. */
static const metric_mapping mappings[] = {
    /* the range profiler's value is the range's elapsed GPU time: here the same window, timed by
     * CUDA events recorded with the device idle at both ends */
    {"gpu__time_duration.sum", 30, 74, SOURCE_ELAPSED, NULL, 1, NULL},
    /* Kepler and Maxwell count DRAM traffic in 32-byte transactions */
    {"dram__bytes_read.sum", 30, 53, SOURCE_METRIC, "dram_read_transactions", 32, NULL},
    /* Pascal and Volta count the bytes themselves */
    {"dram__bytes_read.sum", 60, 74, SOURCE_METRIC, "dram_read_bytes", 1, NULL},
    /* ... and still the transactions, for a CUPTI that lacks dram_read_bytes */
    {"dram__bytes_read.sum", 60, 74, SOURCE_METRIC, "dram_read_transactions", 32, NULL},
    /* as for reads */
    {"dram__bytes_write.sum", 30, 53, SOURCE_METRIC, "dram_write_transactions", 32, NULL},
    {"dram__bytes_write.sum", 60, 74, SOURCE_METRIC, "dram_write_bytes", 1, NULL},
    {"dram__bytes_write.sum", 60, 74, SOURCE_METRIC, "dram_write_transactions", 32, NULL},
    /* the busiest SM unit's share of its peak has no legacy counterpart: sm_efficiency is the time
     * some warp was resident, the *_utilization metrics are levels 0-10 per unit */
    {"sm__throughput.avg.pct_of_peak_sustained_elapsed", 30, 74, SOURCE_NONE, NULL, 1,
     "no legacy metric is the busiest SM unit's % of peak (sm_efficiency is the time a warp was "
     "resident; *_fu_utilization are levels 0-10)"},
    /* achieved_occupancy is the same ratio (active warps per active cycle over the SM's most) as a
     * fraction */
    {"sm__warps_active.avg.pct_of_peak_sustained_active", 30, 74, SOURCE_METRIC,
     "achieved_occupancy", 100, NULL},
    /* Kepler has no hit rate over all L2 requests: this is the reads SMs send through L1
     * (global and local loads); texture/__ldg reads and all writes are left out */
    {"lts__t_sector_hit_rate.pct", 30, 37, SOURCE_METRIC, "l2_l1_read_hit_rate", 1, NULL},
    /* from Maxwell on every global and local access reaches L2 through the unified L1/texture
     * cache: its requests' hit rate is L2's as the SMs see it */
    {"lts__t_sector_hit_rate.pct", 50, 74, SOURCE_METRIC, "l2_tex_hit_rate", 1, NULL},
    /* reads only, for a CUPTI that lacks l2_tex_hit_rate */
    {"lts__t_sector_hit_rate.pct", 50, 74, SOURCE_METRIC, "l2_tex_read_hit_rate", 1, NULL},
    /* warp instructions executed, summed over the SMs, on every chip the backend serves */
    {"smsp__inst_executed.sum", 30, 74, SOURCE_METRIC, "inst_executed", 1, NULL},
};
static const size_t nmappings = sizeof mappings / sizeof mappings[0];

/* The rows of `name` that fit compute capability cc, in order; their count. */
static int mapping_rows(const char *name, int cc, const metric_mapping **rows)
{
    int n = 0;
    for (size_t i = 0; i < nmappings && n < MAX_ROWS_PER_NAME; i++)
        if (strcmp(mappings[i].perfworks, name) == 0 && cc >= mappings[i].cc_from &&
            cc <= mappings[i].cc_to)
            rows[n++] = &mappings[i];
    return n;
}

/* Perfworks names hold "__" (unit__counter); legacy names do not. */
static int is_perfworks_name(const char *name)
{
    return strstr(name, "__") != NULL;
}

/* -1 for a perfworks name the table does not map on cc, with the nearest names it maps. */
static int unmapped_name(const char *name, int cc)
{
    const char *names[sizeof mappings / sizeof mappings[0]];
    size_t n = 0;
    for (size_t i = 0; i < nmappings; i++)
        if (i == 0 || strcmp(mappings[i].perfworks, mappings[i - 1].perfworks) != 0)
            names[n++] = mappings[i].perfworks;
    char matches[1024];
    sb_counters_close_matches(name, names, n, 3, matches, sizeof matches);
    return sb_fail("unknown metric '%s' for compute capability %d.%d (the event-metric backend "
                   "maps only the default set's perfworks names); close matches: %s; or name a "
                   "legacy metric or event (`stagebench list --metrics` lists them)",
                   name, cc / 10, cc % 10, matches);
}

int sb_event_metric_mapping(const char *name, int cc_major, int cc_minor, char *out, size_t size)
{
    int cc = cc_major * 10 + cc_minor;
    if (size > 0)
        out[0] = '\0';
    if (!is_perfworks_name(name)) {
        snprintf(out, size, "%s", name);
        return 0;
    }
    const metric_mapping *rows[MAX_ROWS_PER_NAME];
    int n = mapping_rows(name, cc, rows);
    if (n == 0)
        return unmapped_name(name, cc);
    if (rows[0]->kind == SOURCE_NONE) {
        snprintf(out, size, "%s", rows[0]->why_none);
        return SB_COUNTERS_UNAVAILABLE;
    }
    if (rows[0]->kind == SOURCE_ELAPSED) {
        snprintf(out, size, "CUDA events around each pass");
        return 0;
    }
    for (int i = 0; i < n; i++) {
        size_t len = strlen(out);
        if (len >= size)
            break;
        if (rows[i]->scale != 1)
            snprintf(out + len, size - len, "%s%s*%g", i ? " or " : "", rows[i]->legacy,
                     rows[i]->scale);
        else
            snprintf(out + len, size - len, "%s%s", i ? " or " : "", rows[i]->legacy);
    }
    return 0;
}

/* ---- CUPTI errors ---- */

static const char *result_string(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || s == NULL)
        return "unknown CUPTI error";
    return s;
}

/* A failed CUPTI call as the project's error: SB_COUNTERS_UNAVAILABLE where this machine cannot
 * give counters through this API (CUPTI 13, a chip of 7.5 or later, permission, vGPU, another
 * profiler), -1 for everything else. */
static int cupti_failed(CUptiResult r, const char *call, int device)
{
    switch (r) {
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
        sb_fail("hardware counters unavailable on device %d: CUPTI's Event/Metric API does not "
                "serve it (%s: %s); it needs compute capability < 7.5 and CUDA 12 or older "
                "(`sh bench/scripts/legacy-build` builds with CUDA 11.8)",
                device, call, result_string(r));
        return SB_COUNTERS_UNAVAILABLE;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        sb_fail("hardware counters unavailable on device %d: counters need permission "
                "(ERR_NVGPUCTRPERM): run as root or load nvidia with "
                "NVreg_RestrictProfilingToAdminUsers=0",
                device);
        return SB_COUNTERS_UNAVAILABLE;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_API_NOT_IMPLEMENTED:
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
        sb_fail("hardware counters unavailable on device %d: %s failed: %s", device, call,
                result_string(r));
        return SB_COUNTERS_UNAVAILABLE;
    default:
        return sb_fail("hardware counters on device %d: %s failed: %s", device, call,
                       result_string(r));
    }
}

/* Runs CUPTI's fn(...); on failure returns what cupti_failed says from the enclosing function,
 * which has `s` (an em_state *) in scope. */
#define EM_CALL(fn, ...)                                                                           \
    do {                                                                                           \
        CUptiResult em_r_ = fn(__VA_ARGS__);                                                       \
        if (em_r_ != CUPTI_SUCCESS)                                                                \
            return cupti_failed(em_r_, #fn, s->device);                                            \
    } while (0)

/* ---- the state ---- */

typedef struct requested {
    source_kind kind;
    char legacy[SB_METRIC_NAME]; /* the legacy metric or event read */
    const char *why_none;        /* SOURCE_NONE: the table's reason */
    double scale;
    CUpti_MetricID metric; /* SOURCE_METRIC */
    CUpti_MetricValueKind value_kind;
    int first_slot, nslots; /* SOURCE_METRIC: its events, in em_state.slots */
    int event;              /* SOURCE_EVENT: index in em_state.events */
} requested;

typedef struct em_state {
    int device, cc;
    CUdevice cudev;
    CUcontext ctx;
    int n;
    requested req[SB_MAX_METRICS];
    CUpti_EventID events[MAX_EVENTS]; /* the distinct events to count */
    double totals[MAX_EVENTS];        /* their normalised values, summed over the passes */
    int nevents;
    int slots[MAX_EVENTS]; /* each metric's events in CUPTI's order, as indices in events[] */
    int nslots;
    CUpti_EventGroupSets *sets;
    int passes;    /* planned: one per group set, at least one (for the time) */
    int submitted; /* passes ended */
    int in_pass;   /* a pass begun and not ended */
    int enabled;   /* the current pass's group set is enabled */
    cudaEvent_t start, stop;
    int timers;        /* start and stop were created */
    double elapsed_ns; /* summed over the passes */
} em_state;

/* ---- the device and its context ---- */

/* The device's compute capability, CUdevice and primary context (made current). */
static int device_setup(em_state *s, int device)
{
    s->device = device;
    int rc = sb_counters_primary_context(device, &s->ctx, &s->cudev);
    if (rc != 0)
        return rc;
    int major = 0, minor = 0;
    cudaError_t err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return sb_fail("hardware counters on device %d: cannot read its compute capability: %s",
                       device, cudaGetErrorString(err));
    }
    s->cc = major * 10 + minor;
    return 0;
}

/* ---- the chip's legacy names, for listing and for close matches ---- */

typedef struct name_list {
    char (*names)[SB_METRIC_NAME];
    size_t n, nmetrics; /* metrics first, then events */
} name_list;

static int name_list_add(name_list *l, size_t capacity, const char *name)
{
    if (l->n >= capacity)
        return sb_fail("hardware counters: CUPTI listed more names than it counted");
    snprintf(l->names[l->n++], SB_METRIC_NAME, "%s", name);
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Every metric and event name the device's CUPTI knows, each part sorted. */
static int legacy_names(em_state *s, name_list *out)
{
    memset(out, 0, sizeof *out);
    uint32_t nmetrics = 0, ndomains = 0;
    EM_CALL(cuptiDeviceGetNumMetrics, s->cudev, &nmetrics);
    EM_CALL(cuptiDeviceGetNumEventDomains, s->cudev, &ndomains);
    CUpti_MetricID *metrics = calloc(nmetrics ? nmetrics : 1, sizeof *metrics);
    CUpti_EventDomainID *domains = calloc(ndomains ? ndomains : 1, sizeof *domains);
    if (metrics == NULL || domains == NULL) {
        free(metrics);
        free(domains);
        return sb_fail("hardware counters: out of host memory");
    }
    size_t bytes = nmetrics * sizeof *metrics;
    CUptiResult r = cuptiDeviceEnumMetrics(s->cudev, &bytes, metrics);
    const char *call = "cuptiDeviceEnumMetrics";
    if (r == CUPTI_SUCCESS) {
        bytes = ndomains * sizeof *domains;
        r = cuptiDeviceEnumEventDomains(s->cudev, &bytes, domains);
        call = "cuptiDeviceEnumEventDomains";
    }
    size_t nevents = 0;
    for (uint32_t d = 0; r == CUPTI_SUCCESS && d < ndomains; d++) {
        uint32_t k = 0;
        r = cuptiEventDomainGetNumEvents(domains[d], &k);
        call = "cuptiEventDomainGetNumEvents";
        nevents += k;
    }
    size_t capacity = nmetrics + nevents;
    if (r == CUPTI_SUCCESS &&
        (out->names = calloc(capacity ? capacity : 1, sizeof *out->names)) == NULL) {
        free(metrics);
        free(domains);
        return sb_fail("hardware counters: out of host memory");
    }
    int rc = 0;
    char name[SB_METRIC_NAME];
    for (uint32_t i = 0; r == CUPTI_SUCCESS && rc == 0 && i < nmetrics; i++) {
        size_t len = sizeof name;
        r = cuptiMetricGetAttribute(metrics[i], CUPTI_METRIC_ATTR_NAME, &len, name);
        call = "cuptiMetricGetAttribute(NAME)";
        if (r == CUPTI_SUCCESS)
            rc = name_list_add(out, capacity, name);
    }
    out->nmetrics = out->n;
    for (uint32_t d = 0; r == CUPTI_SUCCESS && rc == 0 && d < ndomains; d++) {
        uint32_t k = 0;
        r = cuptiEventDomainGetNumEvents(domains[d], &k);
        CUpti_EventID *ids = calloc(k ? k : 1, sizeof *ids);
        if (ids == NULL) {
            rc = sb_fail("hardware counters: out of host memory");
            break;
        }
        bytes = k * sizeof *ids;
        if (r == CUPTI_SUCCESS)
            r = cuptiEventDomainEnumEvents(domains[d], &bytes, ids);
        call = "cuptiEventDomainEnumEvents";
        for (uint32_t e = 0; r == CUPTI_SUCCESS && rc == 0 && e < k; e++) {
            size_t len = sizeof name;
            r = cuptiEventGetAttribute(ids[e], CUPTI_EVENT_ATTR_NAME, &len, name);
            call = "cuptiEventGetAttribute(NAME)";
            if (r == CUPTI_SUCCESS)
                rc = name_list_add(out, capacity, name);
        }
        free(ids);
    }
    free(metrics);
    free(domains);
    if (r != CUPTI_SUCCESS && rc == 0)
        rc = cupti_failed(r, call, s->device);
    if (rc != 0) {
        free(out->names);
        memset(out, 0, sizeof *out);
        return rc;
    }
    qsort(out->names, out->nmetrics, sizeof *out->names, compare_names);
    qsort(out->names + out->nmetrics, out->n - out->nmetrics, sizeof *out->names, compare_names);
    return 0;
}

/* -1 for a legacy name the device knows neither as metric nor as event, with the nearest. */
static int unknown_legacy_name(em_state *s, const char *name)
{
    char matches[1024] = "(none could be listed)";
    name_list all;
    if (legacy_names(s, &all) == 0) {
        const char **ptrs = calloc(all.n ? all.n : 1, sizeof *ptrs);
        if (ptrs != NULL) {
            for (size_t i = 0; i < all.n; i++)
                ptrs[i] = all.names[i];
            sb_counters_close_matches(name, ptrs, all.n, 5, matches, sizeof matches);
            free(ptrs);
        }
        free(all.names);
    }
    return sb_fail("unknown metric '%s' on device %d (compute capability %d.%d, event-metric "
                   "backend); close matches: %s; `stagebench list --metrics` lists them all",
                   name, s->device, s->cc / 10, s->cc % 10, matches);
}

/* ---- opening: names, events, group sets ---- */

/* events[] index of id, added if new. */
static int event_index(em_state *s, CUpti_EventID id, int *index)
{
    for (int i = 0; i < s->nevents; i++)
        if (s->events[i] == id) {
            *index = i;
            return 0;
        }
    if (s->nevents == MAX_EVENTS)
        return sb_fail("hardware counters: the metrics asked need more than %d events; ask for "
                       "fewer at once",
                       MAX_EVENTS);
    s->events[s->nevents] = id;
    *index = s->nevents++;
    return 0;
}

/* A legacy metric: its id, value kind and events. 0; 1 when the device does not know the name
 * (nothing set); else the error. */
static int add_metric(em_state *s, requested *q, const char *legacy, double scale)
{
    CUpti_MetricID id;
    CUptiResult r = cuptiMetricGetIdFromName(s->cudev, legacy, &id);
    if (r == CUPTI_ERROR_INVALID_METRIC_NAME)
        return 1;
    if (r != CUPTI_SUCCESS)
        return cupti_failed(r, "cuptiMetricGetIdFromName", s->device);
    size_t len = sizeof q->value_kind;
    EM_CALL(cuptiMetricGetAttribute, id, CUPTI_METRIC_ATTR_VALUE_KIND, &len, &q->value_kind);
    uint32_t k = 0;
    EM_CALL(cuptiMetricGetNumEvents, id, &k);
    if (k > (uint32_t)(MAX_EVENTS - s->nslots))
        return sb_fail("hardware counters: the metrics asked need more than %d events; ask for "
                       "fewer at once",
                       MAX_EVENTS);
    CUpti_EventID ids[MAX_EVENTS];
    size_t bytes = k * sizeof ids[0];
    EM_CALL(cuptiMetricEnumEvents, id, &bytes, ids);
    q->kind = SOURCE_METRIC;
    snprintf(q->legacy, sizeof q->legacy, "%s", legacy);
    q->scale = scale;
    q->metric = id;
    q->first_slot = s->nslots;
    q->nslots = (int)k;
    for (uint32_t i = 0; i < k; i++) {
        int rc = event_index(s, ids[i], &s->slots[s->nslots++]);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* What metric `name` reads on this device: a row of mappings[], or the legacy name itself. */
static int resolve(em_state *s, const char *name, requested *q)
{
    memset(q, 0, sizeof *q);
    if (!is_perfworks_name(name)) {
        int rc = add_metric(s, q, name, 1);
        if (rc != 1)
            return rc;
        CUpti_EventID id;
        CUptiResult r = cuptiEventGetIdFromName(s->cudev, name, &id);
        if (r == CUPTI_ERROR_INVALID_EVENT_NAME)
            return unknown_legacy_name(s, name);
        if (r != CUPTI_SUCCESS)
            return cupti_failed(r, "cuptiEventGetIdFromName", s->device);
        q->kind = SOURCE_EVENT;
        snprintf(q->legacy, sizeof q->legacy, "%s", name);
        q->scale = 1;
        return event_index(s, id, &q->event);
    }
    const metric_mapping *rows[MAX_ROWS_PER_NAME];
    int n = mapping_rows(name, s->cc, rows);
    if (n == 0)
        return unmapped_name(name, s->cc);
    if (rows[0]->kind != SOURCE_METRIC) {
        q->kind = rows[0]->kind;
        q->why_none = rows[0]->why_none;
        return 0;
    }
    char tried[512] = "";
    for (int i = 0; i < n; i++) {
        int rc = add_metric(s, q, rows[i]->legacy, rows[i]->scale);
        if (rc != 1)
            return rc;
        size_t len = strlen(tried);
        snprintf(tried + len, sizeof tried - len, "%s%s", i ? ", " : "", rows[i]->legacy);
    }
    return sb_fail("metric '%s' on device %d (compute capability %d.%d): its CUPTI knows none of "
                   "the legacy metrics it maps to (%s); name a legacy metric instead "
                   "(`stagebench list --metrics`)",
                   name, s->device, s->cc / 10, s->cc % 10, tried);
}

/* The group sets for the events, each group reading every instance of its domain. */
static int plan_passes(em_state *s)
{
    s->passes = 1; /* the time alone needs one */
    if (s->nevents == 0)
        return 0;
    EM_CALL(cuptiEventGroupSetsCreate, s->ctx, (size_t)s->nevents * sizeof s->events[0], s->events,
            &s->sets);
    if (s->sets->numSets == 0)
        return sb_fail("hardware counters on device %d: CUPTI planned no pass for %d events",
                       s->device, s->nevents);
    s->passes = (int)s->sets->numSets;
    uint32_t all = 1;
    for (uint32_t p = 0; p < s->sets->numSets; p++)
        for (uint32_t g = 0; g < s->sets->sets[p].numEventGroups; g++)
            EM_CALL(cuptiEventGroupSetAttribute, s->sets->sets[p].eventGroups[g],
                    CUPTI_EVENT_GROUP_ATTR_PROFILE_ALL_DOMAIN_INSTANCES, sizeof all, &all);
    return 0;
}

/* Releases what open took. Results are not reported: this runs on error paths too, where the
 * first error's message must stay. */
static void em_release(em_state *s)
{
    if (s->enabled)
        (void)cuptiEventGroupSetDisable(&s->sets->sets[s->submitted]);
    if (s->sets != NULL)
        (void)cuptiEventGroupSetsDestroy(s->sets);
    if (s->timers) {
        (void)cudaEventDestroy(s->start);
        (void)cudaEventDestroy(s->stop);
    }
    free(s);
}

static int em_open(void **state, int device, const char *const *metrics, int n)
{
    *state = NULL;
    em_state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return sb_fail("hardware counters: out of host memory");
    int rc = device_setup(s, device);
    if (rc == 0) { /* the first legacy call: CUPTI 13 and chips >= 7.5 refuse here */
        CUptiResult r = cuptiSetEventCollectionMode(s->ctx, CUPTI_EVENT_COLLECTION_MODE_CONTINUOUS);
        if (r != CUPTI_SUCCESS)
            rc = cupti_failed(r, "cuptiSetEventCollectionMode(CONTINUOUS)", device);
    }
    s->n = n;
    for (int i = 0; rc == 0 && i < n; i++)
        rc = resolve(s, metrics[i], &s->req[i]);
    if (rc == 0)
        rc = plan_passes(s);
    if (rc == 0) {
        cudaError_t err = cudaEventCreate(&s->start);
        if (err == cudaSuccess) {
            err = cudaEventCreate(&s->stop);
            if (err != cudaSuccess)
                cudaEventDestroy(s->start);
        }
        if (err != cudaSuccess) {
            cudaGetLastError();
            rc = sb_fail("hardware counters on device %d: cudaEventCreate failed: %s", device,
                         cudaGetErrorString(err));
        }
        s->timers = err == cudaSuccess;
    }
    if (rc != 0) {
        em_release(s);
        return rc;
    }
    *state = s;
    return 0; /* the device's context stays current, as sb_counters_open promises */
}

static int em_passes(const void *state)
{
    return ((const em_state *)state)->passes;
}

/* ---- passes ---- */

/* Waits for the device; `whose` names the work that failed if it fails. */
static int device_idle(const em_state *s, const char *whose)
{
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        cudaGetLastError();
        return sb_fail("hardware counters: the work %s pass %d failed on device %d: %s", whose,
                       s->submitted + 1, s->device, cudaGetErrorString(err));
    }
    return 0;
}

static int em_begin_pass(void *state)
{
    em_state *s = state;
    if (s->submitted == s->passes)
        return sb_fail("hardware counters: a pass was begun after every pass was submitted");
    if (s->in_pass)
        return sb_fail("hardware counters: a pass was begun twice without ending it");
    int previous, rc = sb_counters_enter_device(s->device, &previous);
    if (rc != 0)
        return rc;
    rc = device_idle(s, "before"); /* work from before the pass stays out of its counts */
    if (rc == 0 && s->sets != NULL) {
        /* enabling zeroes the set's counters and starts them */
        CUptiResult r = cuptiEventGroupSetEnable(&s->sets->sets[s->submitted]);
        if (r == CUPTI_SUCCESS)
            s->enabled = 1;
        else
            rc = cupti_failed(r, "cuptiEventGroupSetEnable", s->device);
    }
    if (rc == 0) {
        cudaError_t err = cudaEventRecord(s->start, 0);
        if (err != cudaSuccess) {
            cudaGetLastError();
            rc = sb_fail("hardware counters on device %d: cudaEventRecord failed: %s", s->device,
                         cudaGetErrorString(err));
        }
    }
    if (rc == 0) {
        s->in_pass = 1;
    } else if (s->enabled) { /* no pass half begun */
        if (cuptiEventGroupSetDisable(&s->sets->sets[s->submitted]) == CUPTI_SUCCESS)
            s->enabled = 0;
    }
    sb_counters_leave_device(previous);
    return rc;
}

/* Reads one group: every event summed over the instances read, scaled to all instances of the
 * domain (CUPTI's normalisation for cuptiMetricGetValue), added to totals[]. */
static int read_group(em_state *s, CUpti_EventGroup group)
{
    CUpti_EventDomainID domain;
    uint32_t read_instances = 0, total_instances = 0, nevents = 0;
    size_t len = sizeof domain;
    EM_CALL(cuptiEventGroupGetAttribute, group, CUPTI_EVENT_GROUP_ATTR_EVENT_DOMAIN_ID, &len,
            &domain);
    len = sizeof read_instances;
    EM_CALL(cuptiEventGroupGetAttribute, group, CUPTI_EVENT_GROUP_ATTR_INSTANCE_COUNT, &len,
            &read_instances);
    len = sizeof nevents;
    EM_CALL(cuptiEventGroupGetAttribute, group, CUPTI_EVENT_GROUP_ATTR_NUM_EVENTS, &len, &nevents);
    len = sizeof total_instances;
    EM_CALL(cuptiDeviceGetEventDomainAttribute, s->cudev, domain,
            CUPTI_EVENT_DOMAIN_ATTR_TOTAL_INSTANCE_COUNT, &len, &total_instances);
    if (read_instances == 0 || nevents == 0)
        return sb_fail("hardware counters on device %d: an event group of %u events over %u "
                       "instances",
                       s->device, (unsigned)nevents, (unsigned)read_instances);
    size_t nvalues = (size_t)read_instances * nevents;
    uint64_t *values = calloc(nvalues, sizeof *values);
    CUpti_EventID *ids = calloc(nevents, sizeof *ids);
    if (values == NULL || ids == NULL) {
        free(values);
        free(ids);
        return sb_fail("hardware counters: out of host memory");
    }
    size_t value_bytes = nvalues * sizeof *values, id_bytes = nevents * sizeof *ids, nread = 0;
    CUptiResult r = cuptiEventGroupReadAllEvents(group, CUPTI_EVENT_READ_FLAG_NONE, &value_bytes,
                                                 values, &id_bytes, ids, &nread);
    int rc = r == CUPTI_SUCCESS ? 0 : cupti_failed(r, "cuptiEventGroupReadAllEvents", s->device);
    /* laid out instance by instance, each holding every event in ids[] order */
    for (size_t e = 0; rc == 0 && e < nread; e++) {
        double sum = 0;
        for (uint32_t i = 0; i < read_instances; i++) {
            uint64_t v = values[(size_t)i * nread + e];
            if (v == CUPTI_EVENT_OVERFLOW) {
                rc = sb_fail("hardware counters on device %d: an event counter overflowed in "
                             "pass %d; give the pass less work",
                             s->device, s->submitted + 1);
                break;
            }
            sum += (double)v;
        }
        int index = -1;
        for (int k = 0; k < s->nevents; k++)
            if (s->events[k] == ids[e])
                index = k;
        if (rc == 0 && index < 0)
            rc = sb_fail("hardware counters on device %d: CUPTI read an event that was not asked "
                         "for",
                         s->device);
        if (rc == 0)
            s->totals[index] += sum * total_instances / read_instances;
    }
    free(values);
    free(ids);
    return rc;
}

static int em_end_pass(void *state, int *done)
{
    em_state *s = state;
    *done = 0;
    if (!s->in_pass)
        return sb_fail("hardware counters: a pass was ended without being begun");
    int previous, rc = sb_counters_enter_device(s->device, &previous);
    if (rc != 0)
        return rc;
    s->in_pass = 0;
    /* the caller synchronized already; this makes sure the window holds all of the pass's work */
    rc = device_idle(s, "of");
    float ms = 0;
    if (rc == 0) {
        cudaError_t err = cudaEventRecord(s->stop, 0);
        if (err == cudaSuccess)
            err = cudaEventSynchronize(s->stop);
        if (err == cudaSuccess)
            err = cudaEventElapsedTime(&ms, s->start, s->stop);
        if (err != cudaSuccess) {
            cudaGetLastError();
            rc = sb_fail("hardware counters on device %d: timing the pass failed: %s", s->device,
                         cudaGetErrorString(err));
        }
    }
    if (s->enabled) {
        CUpti_EventGroupSet *set = &s->sets->sets[s->submitted];
        for (uint32_t g = 0; rc == 0 && g < set->numEventGroups; g++)
            rc = read_group(s, set->eventGroups[g]);
        CUptiResult r = cuptiEventGroupSetDisable(set);
        s->enabled = 0;
        if (r != CUPTI_SUCCESS && rc == 0)
            rc = cupti_failed(r, "cuptiEventGroupSetDisable", s->device);
    }
    sb_counters_leave_device(previous);
    if (rc != 0)
        return rc;
    s->elapsed_ns += 1e6 * ms;
    s->submitted++;
    *done = s->submitted == s->passes;
    return 0;
}

/* ---- values ---- */

static int metric_value(em_state *s, const requested *q, uint64_t time_ns, double *out)
{
    CUpti_EventID ids[MAX_EVENTS];
    uint64_t values[MAX_EVENTS];
    for (int i = 0; i < q->nslots; i++) {
        int slot = s->slots[q->first_slot + i];
        ids[i] = s->events[slot];
        values[i] = (uint64_t)(s->totals[slot] + 0.5);
    }
    CUpti_MetricValue v;
    CUptiResult r = cuptiMetricGetValue(s->cudev, q->metric, (size_t)q->nslots * sizeof ids[0], ids,
                                        (size_t)q->nslots * sizeof values[0], values, time_ns, &v);
    if (r == CUPTI_ERROR_INVALID_METRIC_VALUE) { /* such as a hit rate of no requests */
        *out = NAN;
        return 0;
    }
    if (r != CUPTI_SUCCESS)
        return cupti_failed(r, "cuptiMetricGetValue", s->device);
    switch (q->value_kind) {
    case CUPTI_METRIC_VALUE_KIND_DOUBLE:
        *out = v.metricValueDouble;
        break;
    case CUPTI_METRIC_VALUE_KIND_UINT64:
        *out = (double)v.metricValueUint64;
        break;
    case CUPTI_METRIC_VALUE_KIND_INT64:
        *out = (double)v.metricValueInt64;
        break;
    case CUPTI_METRIC_VALUE_KIND_PERCENT:
        *out = v.metricValuePercent;
        break;
    case CUPTI_METRIC_VALUE_KIND_THROUGHPUT:
        *out = (double)v.metricValueThroughput;
        break;
    case CUPTI_METRIC_VALUE_KIND_UTILIZATION_LEVEL:
        *out = (double)v.metricValueUtilizationLevel;
        break;
    default:
        return sb_fail("hardware counters: metric '%s' has a value kind (%d) this backend does "
                       "not read; ask for another",
                       q->legacy, (int)q->value_kind);
    }
    *out *= q->scale;
    return 0;
}

static int em_values(void *state, double *values)
{
    em_state *s = state;
    if (s->submitted < s->passes)
        return sb_fail("hardware counters: values asked for after %d of the %d passes; end_pass "
                       "has not said done",
                       s->submitted, s->passes);
    double mean_ns = s->elapsed_ns / s->passes;
    for (int i = 0; i < s->n; i++) {
        const requested *q = &s->req[i];
        int rc = 0;
        switch (q->kind) {
        case SOURCE_ELAPSED:
            values[i] = mean_ns;
            break;
        case SOURCE_NONE:
            values[i] = NAN;
            break;
        case SOURCE_EVENT:
            values[i] = q->scale * s->totals[q->event];
            break;
        case SOURCE_METRIC:
            rc = metric_value(s, q, (uint64_t)(mean_ns + 0.5), &values[i]);
            break;
        }
        if (rc != 0)
            return rc;
    }
    return 0;
}

static void em_close(void *state)
{
    if (state != NULL)
        em_release(state);
}

/* ---- listing ---- */

/* The default set's names as this chip reads them (as comments, with the plain name where it
 * has an equivalent), then the chip's legacy metrics and events. */
static int em_list(int device, FILE *f)
{
    em_state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return sb_fail("hardware counters: out of host memory");
    int rc = device_setup(s, device);
    name_list all;
    memset(&all, 0, sizeof all);
    if (rc == 0)
        rc = legacy_names(s, &all);
    int failed_write = 0;
    for (int i = 0; rc == 0 && i < sb_ndefault_metrics; i++) {
        const char *name = sb_default_metrics[i];
        requested q;
        rc = resolve(s, name, &q);
        if (rc != 0)
            break;
        if (q.kind == SOURCE_NONE)
            failed_write |= fprintf(f, "# %s: no equivalent: %s\n", name, q.why_none) < 0;
        else if (q.kind == SOURCE_ELAPSED)
            failed_write |= fprintf(f, "# %s: CUDA events around each pass\n%s\n", name, name) < 0;
        else if (q.scale != 1)
            failed_write |= fprintf(f, "# %s = %s * %g\n%s\n", name, q.legacy, q.scale, name) < 0;
        else
            failed_write |= fprintf(f, "# %s = %s\n%s\n", name, q.legacy, name) < 0;
    }
    for (size_t i = 0; rc == 0 && i < all.n; i++) {
        if (i == 0 || i == all.nmetrics)
            failed_write |=
                fprintf(f, "# legacy %s\n", i < all.nmetrics ? "metrics" : "events") < 0;
        failed_write |= fprintf(f, "%s\n", all.names[i]) < 0;
    }
    if (rc == 0 && failed_write)
        rc = sb_fail("hardware counters: cannot write the metric list");
    free(all.names);
    em_release(s);
    return rc;
}

const sb_counters_backend_ops sb_counters_event_metric = {
    .name = "event-metric",
    .replay = "user",
    .needs = "compute capability < 7.5 and CUDA <= 12",
    .fits = fits,
    .open = em_open,
    .passes = em_passes,
    .begin_pass = em_begin_pass,
    .end_pass = em_end_pass,
    .values = em_values,
    .close = em_close,
    .list = em_list,
};
