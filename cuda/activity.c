/* CUPTI Activity API: what the CUDA runtime and driver actually did, per collection window.
 *
 * CUPTI hands records over in buffers, on its own thread (or on the thread that flushes): the
 * completion callback adds them to the window's totals under `data_lock`. Device allocations and
 * frees are kept as events and replayed in timestamp order at collect time (CUPTI does not
 * promise records in time order across buffers), matching each free to its allocation by address.
 * Kernels are also tabled by short name and launch shape; their theoretical occupancy is worked
 * out at collect time, from the toolkit's occupancy calculator and the device's properties.
 *
 * Only runtime API (cuda*) and CUPTI (cupti*) symbols are used: no driver API symbol, so the
 * binaries start on machines without libcuda.so. */
#include "activity.h"

#include <cupti.h>
#include <cuda_occupancy.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "kernelname.h"

/* The record versions this CUPTI writes: CUDA 13's, or CUDA 11.8's (Debian's legacy toolkit,
 * docs/harness.md "Old GPUs and toolkits"), which has no batched copies and no device-launched
 * graphs. */
#if CUDA_VERSION < 12000
typedef CUpti_ActivityKernel8 sb_kernel_record;
typedef CUpti_ActivityMemcpy5 sb_memcpy_record;
typedef CUpti_ActivityMemory3 sb_memory_record;
#define SB_DEVICE_LAUNCHED(k) 0
#define SB_COPY_COUNT(c) 1
#else
typedef CUpti_ActivityKernel10 sb_kernel_record;
typedef CUpti_ActivityMemcpy6 sb_memcpy_record;
typedef CUpti_ActivityMemory4 sb_memory_record;
#define SB_DEVICE_LAUNCHED(k) ((k)->isDeviceLaunched)
#define SB_COPY_COUNT(c) ((c)->copyCount)
#endif

/* CUPTI wants 8-byte aligned buffers; 8 MiB holds tens of thousands of records. */
#define BUFFER_BYTES ((size_t)8 << 20)
#define BUFFER_ALIGN 8

static const struct {
    CUpti_ActivityKind kind;
    const char *name;
} kinds[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL"},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "CUPTI_ACTIVITY_KIND_MEMCPY"},
    {CUPTI_ACTIVITY_KIND_MEMCPY2, "CUPTI_ACTIVITY_KIND_MEMCPY2"},
    {CUPTI_ACTIVITY_KIND_MEMSET, "CUPTI_ACTIVITY_KIND_MEMSET"},
    {CUPTI_ACTIVITY_KIND_MEMORY2, "CUPTI_ACTIVITY_KIND_MEMORY2"},
};
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))

/* One device-memory allocation or release, as CUPTI reported it. */
typedef struct mem_event {
    uint64_t timestamp, address, bytes;
    uint64_t seq; /* arrival order: breaks timestamp ties */
    int release;
} mem_event;

/* A kernel table row while the window is open: its time summed in integer nanoseconds. */
typedef struct kernel_row {
    sb_kernel kernel;
    uint64_t ns;
} kernel_row;

typedef struct totals {
    long long kernels, memcpys, memsets;
    uint64_t kernel_ns, memcpy_ns, memset_ns;
    long long h2d, d2h, d2d, peer;
    long long dropped;
    int nkernel_rows;
    kernel_row kernel_rows[SB_KERNEL_TABLE_ROWS];
    long long omitted_launches; /* of kernels that found the table full */
} totals;

/* Serializes start / collect / stop. Never held by the buffer callback, so it may be held
 * across cuptiActivityFlushAll (which can run the callback on the calling thread). */
static pthread_mutex_t control_lock = PTHREAD_MUTEX_INITIALIZER;
static int registered; /* callbacks registered with CUPTI (once per process) */
static int active;     /* between a successful start and stop */
/* The occupancy calculator's view of the first devices, read on first use (also guarded by
 * control_lock: only collect reads them). */
#define CACHED_DEVICES 64
static cudaOccDeviceProp device_props[CACHED_DEVICES];
static unsigned char device_props_read[CACHED_DEVICES];

/* Everything below is written by the buffer callback: guarded by data_lock. */
static pthread_mutex_t data_lock = PTHREAD_MUTEX_INITIALIZER;
static int recording;
static totals acc;
static mem_event *events;
static size_t nevents, events_cap;
static uint64_t next_seq;
static char record_error[512]; /* first problem reading records in this window */

static const char *cupti_text(CUptiResult r, char *buf, size_t size)
{
    const char *name = NULL, *message = NULL;
    if (cuptiGetResultString(r, &name) != CUPTI_SUCCESS || !name)
        name = "unknown CUPTI result";
#if CUDA_VERSION < 12000 /* CUPTI 11.8 has no cuptiGetErrorMessage */
    if (1)
#else
    if (cuptiGetErrorMessage(r, &message) != CUPTI_SUCCESS || !message || !message[0] ||
        strcmp(message, name) == 0)
#endif
        snprintf(buf, size, "%s (%d)", name, (int)r);
    else
        snprintf(buf, size, "%s (%d): %s", name, (int)r, message);
    /* one line: CUPTI's messages sometimes end in a newline */
    for (char *p = buf; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return buf;
}

static int cupti_fail(const char *call, CUptiResult r)
{
    char text[400];
    return sb_fail("%s failed: %s", call, cupti_text(r, text, sizeof text));
}

/* As cupti_fail, adding what CUDA says when it sees no device: CUPTI's own code for that is often
 * just CUPTI_ERROR_UNKNOWN. */
static int cupti_fail_device(const char *call, CUptiResult r)
{
    char text[400];
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return sb_fail("%s failed: %s; CUDA: %s", call, cupti_text(r, text, sizeof text),
                       cudaGetErrorString(e));
    }
    if (n == 0)
        return sb_fail("%s failed: %s; CUDA sees no device", call,
                       cupti_text(r, text, sizeof text));
    return cupti_fail(call, r);
}

/* ---- the buffer callbacks (CUPTI's thread) ---- */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    /* NULL makes CUPTI drop records, which cuptiActivityGetNumDroppedRecords then counts */
    *buffer = aligned_alloc(BUFFER_ALIGN, BUFFER_BYTES);
    *size = *buffer ? BUFFER_BYTES : 0;
    *max_records = 0;
}

static uint64_t duration_ns(uint64_t start, uint64_t end)
{
    /* 0 and 0: CUPTI could not time it */
    return end > start ? end - start : 0;
}

static void add_copy(uint8_t copy_kind, uint64_t bytes, int cross_device)
{
    switch (copy_kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
        acc.h2d += (long long)bytes;
        break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
        acc.d2h += (long long)bytes;
        break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
        if (cross_device)
            acc.peer += (long long)bytes;
        else
            acc.d2d += (long long)bytes;
        break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
        acc.peer += (long long)bytes;
        break;
    default: /* host to host, unknown: counted as copies, in no direction */
        break;
    }
}

static void add_mem_event(const sb_memory_record *m)
{
    if (m->memoryKind != CUPTI_ACTIVITY_MEMORY_KIND_DEVICE)
        return;
    int release;
    if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION)
        release = 0;
    else if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
        release = 1;
    else
        return;
    if (nevents == events_cap) {
        size_t cap = events_cap ? 2 * events_cap : 256;
        mem_event *grown = realloc(events, cap * sizeof *grown);
        if (!grown) {
            if (!record_error[0])
                snprintf(record_error, sizeof record_error,
                         "CUPTI activity: out of host memory for device-allocation records");
            return;
        }
        events = grown;
        events_cap = cap;
    }
    mem_event *e = &events[nevents++];
    e->timestamp = m->timestamp;
    e->address = m->address;
    e->bytes = m->bytes;
    e->seq = next_seq++;
    e->release = release;
}

static int same_shape(const sb_kernel *a, const sb_kernel *b)
{
    return a->device == b->device && a->block_threads == b->block_threads &&
           a->registers == b->registers && a->local_bytes_per_thread == b->local_bytes_per_thread &&
           a->static_shared_bytes == b->static_shared_bytes &&
           a->dynamic_shared_bytes == b->dynamic_shared_bytes &&
           a->shared_opt_in == b->shared_opt_in && strcmp(a->name, b->name) == 0;
}

/* One host launch into the window's kernel table: a new row for a kernel or shape not seen in
 * the window, or a launch counted as omitted once the table is full. The name is copied: the
 * record goes with its buffer. */
static void add_kernel_launch(const sb_kernel_record *k)
{
    sb_kernel shape;
    memset(&shape, 0, sizeof shape);
    sb_kernel_short_name(k->name ? k->name : "(no name)", shape.name, sizeof shape.name);
    shape.device = (int)k->deviceId;
    shape.block_threads = k->blockX * k->blockY * k->blockZ;
    shape.registers = k->registersPerThread;
    shape.local_bytes_per_thread = (int)k->localMemoryPerThread;
    shape.static_shared_bytes = k->staticSharedMemory;
    shape.dynamic_shared_bytes = k->dynamicSharedMemory;
    shape.shared_opt_in = k->shmemLimitConfig == CUPTI_FUNC_SHMEM_LIMIT_OPTIN;
    kernel_row *row = NULL;
    for (int i = 0; i < acc.nkernel_rows && !row; i++)
        if (same_shape(&acc.kernel_rows[i].kernel, &shape))
            row = &acc.kernel_rows[i];
    if (!row && acc.nkernel_rows == SB_KERNEL_TABLE_ROWS) {
        acc.omitted_launches++;
        return;
    }
    if (!row) {
        row = &acc.kernel_rows[acc.nkernel_rows++];
        row->kernel = shape;
        row->ns = 0;
    }
    row->kernel.launches++;
    row->ns += duration_ns(k->start, k->end);
}

static void add_record(const CUpti_Activity *r)
{
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const sb_kernel_record *k = (const sb_kernel_record *)r;
        if (SB_DEVICE_LAUNCHED(k)) /* device graph launches: not host-launched */
            break;
        acc.kernels++;
        acc.kernel_ns += duration_ns(k->start, k->end);
        add_kernel_launch(k);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const sb_memcpy_record *c = (const sb_memcpy_record *)r;
        /* a cudaMemcpyBatchAsync record stands for copyCount copies */
        acc.memcpys += SB_COPY_COUNT(c) > 1 ? (long long)SB_COPY_COUNT(c) : 1;
        acc.memcpy_ns += duration_ns(c->start, c->end);
        add_copy(c->copyKind, c->bytes, 0);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        const CUpti_ActivityMemcpyPtoP4 *c = (const CUpti_ActivityMemcpyPtoP4 *)r;
        acc.memcpys++;
        acc.memcpy_ns += duration_ns(c->start, c->end);
        add_copy(c->copyKind, c->bytes, c->srcDeviceId != c->dstDeviceId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *s = (const CUpti_ActivityMemset4 *)r;
        acc.memsets++;
        acc.memset_ns += duration_ns(s->start, s->end);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2:
        add_mem_event((const sb_memory_record *)r);
        break;
    default:
        break;
    }
}

static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer,
                                      size_t size, size_t valid)
{
    (void)size;
    size_t dropped = 0;
    int dropped_ok = cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS;
    pthread_mutex_lock(&data_lock);
    if (recording) {
        if (dropped_ok)
            acc.dropped += (long long)dropped;
        CUpti_Activity *r = NULL;
        for (;;) {
            CUptiResult st = cuptiActivityGetNextRecord(buffer, valid, &r);
            if (st == CUPTI_ERROR_MAX_LIMIT_REACHED)
                break;
            if (st != CUPTI_SUCCESS) {
                if (!record_error[0]) {
                    char text[400];
                    snprintf(record_error, sizeof record_error,
                             "cuptiActivityGetNextRecord failed: %s (the rest of a buffer of "
                             "activity records was lost)",
                             cupti_text(st, text, sizeof text));
                }
                break;
            }
            add_record(r);
        }
    }
    pthread_mutex_unlock(&data_lock);
    free(buffer);
}

/* ---- device allocations: replayed in time order at collect ---- */

static int event_order(const void *a, const void *b)
{
    const mem_event *x = a, *y = b;
    if (x->timestamp != y->timestamp)
        return x->timestamp < y->timestamp ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

typedef struct slot {
    uint64_t address, bytes;
    unsigned char state; /* 0 empty, 1 live, 2 freed (tombstone) */
} slot;

static size_t slot_of(const slot *table, size_t mask, uint64_t address, int for_insert)
{
    uint64_t h = address * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 17) & mask;
    size_t tomb = SIZE_MAX;
    for (;;) {
        if (table[i].state == 0)
            return for_insert && tomb != SIZE_MAX ? tomb : i;
        if (table[i].state == 1 && table[i].address == address)
            return i;
        if (table[i].state == 2 && tomb == SIZE_MAX)
            tomb = i;
        i = (i + 1) & mask;
    }
}

/* Allocations, frees, bytes allocated and the peak of the bytes allocated in this window and
 * not yet freed. A free of memory allocated before the window counts as a free but lowers
 * nothing. */
static int replay_memory(mem_event *ev, size_t n, sb_activity *out)
{
    size_t nalloc = 0;
    for (size_t i = 0; i < n; i++)
        nalloc += !ev[i].release;
    size_t cap = 16;
    while (cap < 2 * nalloc + 1)
        cap *= 2;
    slot *table = calloc(cap, sizeof *table);
    if (!table)
        return sb_fail("CUPTI activity: out of host memory replaying %zu device allocations",
                       nalloc);
    qsort(ev, n, sizeof *ev, event_order);
    long long live = 0, peak = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ev[i].release) {
            size_t s = slot_of(table, cap - 1, ev[i].address, 1);
            if (table[s].state == 1) /* the same address twice: its free was not reported */
                live -= (long long)table[s].bytes;
            table[s].address = ev[i].address;
            table[s].bytes = ev[i].bytes;
            table[s].state = 1;
            out->allocations++;
            out->allocated_bytes += (long long)ev[i].bytes;
            live += (long long)ev[i].bytes;
            if (live > peak)
                peak = live;
        } else {
            out->frees++;
            size_t s = slot_of(table, cap - 1, ev[i].address, 0);
            if (table[s].state == 1) {
                live -= (long long)table[s].bytes;
                table[s].state = 2;
            }
        }
    }
    out->live_peak_bytes = peak;
    out->live_end_bytes = live;
    free(table);
    return 0;
}

/* ---- the kernel table: theoretical occupancy, worked out at collect ---- */

void sb_kernel_occupancy(sb_kernel *k, const cudaOccDeviceProp *device)
{
    static const struct {
        unsigned bit;
        const char *word;
    } limits[] = {{OCC_LIMIT_WARPS, "warps"},
                  {OCC_LIMIT_REGISTERS, "registers"},
                  {OCC_LIMIT_SHARED_MEMORY, "shared"},
                  {OCC_LIMIT_BLOCKS, "blocks"},
                  {OCC_LIMIT_BARRIERS, "barriers"}};
    /* A record does not give the function's own limits: the launch's block stands for its
     * largest block, the launch's dynamic shared memory for its opt-in limit, and it uses one
     * block barrier, as the toolkit assumes when it converts a function's attributes. */
    cudaOccFuncAttributes function = {
        .maxThreadsPerBlock = k->block_threads,
        .numRegs = k->registers,
        .sharedSizeBytes = (size_t)k->static_shared_bytes,
        .partitionedGCConfig = PARTITIONED_GC_OFF,
        .shmemLimitConfig = k->shared_opt_in ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT,
        .maxDynamicSharedSizeBytes = (size_t)k->dynamic_shared_bytes,
        .numBlockBarriers = 1,
    };
    cudaOccDeviceState state = {.cacheConfig = CACHE_PREFER_NONE,
                                .carveoutConfig = SHAREDMEM_CARVEOUT_DEFAULT};
    cudaOccResult result;
    cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(
        &result, device, &function, &state, k->block_threads, (size_t)k->dynamic_shared_bytes);
    k->blocks_per_sm = 0;
    k->occupancy = NAN;
    k->limited_by[0] = '\0';
    if (status != CUDA_OCC_SUCCESS)
        return;
    int warps_per_block = (k->block_threads + device->warpSize - 1) / device->warpSize;
    int warps_per_sm = device->maxThreadsPerMultiprocessor / device->warpSize;
    k->blocks_per_sm = result.activeBlocksPerMultiprocessor;
    k->occupancy = (double)(k->blocks_per_sm * warps_per_block) / warps_per_sm;
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        size_t len = strlen(k->limited_by);
        if (result.limitingFactors & limits[i].bit)
            snprintf(k->limited_by + len, sizeof k->limited_by - len, "%s%s", len ? "+" : "",
                     limits[i].word);
    }
}

/* The calculator's view of a device, from the runtime's properties (no driver API here); the
 * first CACHED_DEVICES ordinals are read once. Caller holds control_lock. */
static int occupancy_device(int device, cudaOccDeviceProp *out)
{
    int cached = device >= 0 && device < CACHED_DEVICES;
    if (cached && device_props_read[device]) {
        *out = device_props[device];
        return 0;
    }
    struct cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, device);
    if (e != cudaSuccess)
        return sb_fail("sb_activity_collect: cudaGetDeviceProperties for device %d (the kernel "
                       "table's occupancy) failed: %s",
                       device, cudaGetErrorString(e));
    *out = (cudaOccDeviceProp){
        .computeMajor = p.major,
        .computeMinor = p.minor,
        .maxThreadsPerBlock = p.maxThreadsPerBlock,
        .maxThreadsPerMultiprocessor = p.maxThreadsPerMultiProcessor,
        .regsPerBlock = p.regsPerBlock,
        .regsPerMultiprocessor = p.regsPerMultiprocessor,
        .warpSize = p.warpSize,
        .sharedMemPerBlock = p.sharedMemPerBlock,
        .sharedMemPerMultiprocessor = p.sharedMemPerMultiprocessor,
        .numSms = p.multiProcessorCount,
        .sharedMemPerBlockOptin = p.sharedMemPerBlockOptin,
        .reservedSharedMemPerBlock = p.reservedSharedMemPerBlock,
    };
    if (cached) {
        device_props[device] = *out;
        device_props_read[device] = 1;
    }
    return 0;
}

/* Most time first; ties (kernels CUPTI could not time) in a fixed order. */
static int most_time_first(const void *a, const void *b)
{
    const kernel_row *x = a, *y = b;
    if (x->ns != y->ns)
        return x->ns > y->ns ? -1 : 1;
    int by_name = strcmp(x->kernel.name, y->kernel.name);
    if (by_name != 0)
        return by_name;
    return (x->kernel.device > y->kernel.device) - (x->kernel.device < y->kernel.device);
}

/* The window's kernel rows into out, most time first, each with its theoretical occupancy.
 * Caller holds control_lock (the device cache). */
static int kernel_table(totals *t, sb_activity *out)
{
    qsort(t->kernel_rows, (size_t)t->nkernel_rows, sizeof *t->kernel_rows, most_time_first);
    for (int i = 0; i < t->nkernel_rows; i++) {
        cudaOccDeviceProp device;
        if (occupancy_device(t->kernel_rows[i].kernel.device, &device) != 0)
            return -1;
        sb_kernel *k = &out->kernel_table[i];
        *k = t->kernel_rows[i].kernel;
        k->seconds = (double)t->kernel_rows[i].ns * 1e-9;
        sb_kernel_occupancy(k, &device);
    }
    out->nkernel_table = t->nkernel_rows;
    out->kernel_table_omitted_launches = t->omitted_launches;
    return 0;
}

/* Empties the window: returns its totals and allocation events, and the first record error. */
static void take_window(totals *t, mem_event **ev, size_t *n, char *err, size_t err_size)
{
    pthread_mutex_lock(&data_lock);
    *t = acc;
    memset(&acc, 0, sizeof acc);
    *ev = events;
    *n = nevents;
    events = NULL;
    nevents = events_cap = 0;
    snprintf(err, err_size, "%s", record_error);
    record_error[0] = '\0';
    pthread_mutex_unlock(&data_lock);
}

static void disable_kinds(int n)
{
    for (int i = 0; i < n; i++)
        cuptiActivityDisable(kinds[i].kind);
}

/* ---- the interface ---- */

int sb_activity_start(void)
{
    pthread_mutex_lock(&control_lock);
    if (active) {
        pthread_mutex_unlock(&control_lock);
        return sb_fail("sb_activity_start: CUPTI activity recording is already running (call "
                       "sb_activity_stop before starting again)");
    }
    CUptiResult r;
    if (!registered) {
        r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
        if (r != CUPTI_SUCCESS) {
            pthread_mutex_unlock(&control_lock);
            return cupti_fail("cuptiActivityRegisterCallbacks", r);
        }
        registered = 1;
    }
    totals zero;
    mem_event *old;
    size_t nold;
    char ignored[sizeof record_error];
    take_window(&zero, &old, &nold, ignored, sizeof ignored);
    free(old);
    pthread_mutex_lock(&data_lock);
    recording = 1;
    pthread_mutex_unlock(&data_lock);
    for (int i = 0; i < NKINDS; i++) {
        r = cuptiActivityEnable(kinds[i].kind);
        if (r != CUPTI_SUCCESS) {
            disable_kinds(i);
            pthread_mutex_lock(&data_lock);
            recording = 0;
            pthread_mutex_unlock(&data_lock);
            pthread_mutex_unlock(&control_lock);
            char call[96];
            snprintf(call, sizeof call, "cuptiActivityEnable(%s)", kinds[i].name);
            return cupti_fail_device(call, r);
        }
    }
    active = 1;
    pthread_mutex_unlock(&control_lock);
    return 0;
}

/* cudaDeviceSynchronize on the devices the caller used, so that every record of the window is
 * complete; the calling thread's current device is restored. Only those: touching every visible
 * device would create a context on each. */
static int synchronize_devices(const int *devices, int n)
{
    int current = 0, rc = 0;
    int have_current = cudaGetDevice(&current) == cudaSuccess;
    for (int i = 0; i < n && rc == 0; i++) {
        cudaError_t e = cudaSetDevice(devices[i]);
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
        if (e != cudaSuccess)
            rc = sb_fail("sb_activity_collect: cudaDeviceSynchronize on device %d failed: %s",
                         devices[i], cudaGetErrorString(e));
    }
    if (have_current)
        cudaSetDevice(current);
    return rc;
}

int sb_activity_collect(const int *devices, int ndevices, sb_activity *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&control_lock);
    if (!active) {
        pthread_mutex_unlock(&control_lock);
        return sb_fail("sb_activity_collect: CUPTI activity recording is not running (call "
                       "sb_activity_start first)");
    }
    int rc = synchronize_devices(devices, ndevices);
    CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (r != CUPTI_SUCCESS && rc == 0)
        rc = cupti_fail("cuptiActivityFlushAll", r);
    size_t dropped = 0;
    r = cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped);
    if (r != CUPTI_SUCCESS && rc == 0)
        rc = cupti_fail("cuptiActivityGetNumDroppedRecords", r);

    /* the window ends here, whatever happened: a failed window is discarded */
    totals t;
    mem_event *ev;
    size_t n;
    char err[sizeof record_error];
    take_window(&t, &ev, &n, err, sizeof err);
    if (rc == 0)
        rc = kernel_table(&t, out);
    pthread_mutex_unlock(&control_lock);
    if (rc == 0 && err[0])
        rc = sb_fail("%s", err);
    if (rc == 0)
        rc = replay_memory(ev, n, out);
    free(ev);
    if (rc != 0) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    out->kernels = t.kernels;
    out->kernel_s = (double)t.kernel_ns * 1e-9;
    out->memcpy_s = (double)t.memcpy_ns * 1e-9;
    out->memset_s = (double)t.memset_ns * 1e-9;
    out->memcpys = t.memcpys;
    out->memsets = t.memsets;
    out->h2d = t.h2d;
    out->d2h = t.d2h;
    out->d2d = t.d2d;
    out->peer = t.peer;
    out->dropped = t.dropped + (long long)dropped;
    return 0;
}

void sb_activity_stop(void)
{
    pthread_mutex_lock(&control_lock);
    if (!active) {
        pthread_mutex_unlock(&control_lock);
        return;
    }
    disable_kinds(NKINDS);
    /* hand back every buffer CUPTI holds; with recording still on their records are added to
     * the window, which is then thrown away */
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    size_t dropped = 0;
    cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped);
    pthread_mutex_lock(&data_lock);
    recording = 0;
    pthread_mutex_unlock(&data_lock);
    totals t;
    mem_event *ev;
    size_t n;
    char err[sizeof record_error];
    take_window(&t, &ev, &n, err, sizeof err);
    free(ev);
    active = 0;
    pthread_mutex_unlock(&control_lock);
}
