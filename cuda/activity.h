/* What the CUDA runtime and driver actually did, from CUPTI's Activity API: kernels, copies,
 * sets and device allocations. The harness compares these with its own tracked allocator and
 * transfer counters, so an untracked cudaMalloc or copy in a variant shows up. */
#ifndef SB_ACTIVITY_H
#define SB_ACTIVITY_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_activity {
    long long kernels;                  /* host-launched kernels (device launches are not traced) */
    double kernel_s, memcpy_s, memset_s; /* summed durations of the records */
    long long memcpys, memsets;
    long long h2d, d2h, d2d, peer;       /* bytes copied, by direction */
    long long allocations, frees;        /* device-memory MEMORY2 records */
    long long allocated_bytes;           /* sum of the allocations' sizes */
    /* live bytes count from the window's start; allocations made before it and freed within it
     * do not count */
    long long live_peak_bytes;           /* most bytes allocated and not yet freed at once */
    long long live_end_bytes;            /* bytes allocated and not yet freed at the window's end */
    long long dropped;                   /* records CUPTI reported dropped */
} sb_activity;

/* Starts recording (one recording at a time: starting twice is an error). 0, or -1 with sb_error()
 * saying why (CUPTI missing or refusing: e.g. under some sandboxes). */
int sb_activity_start(void);
/* Synchronizes devices[0..ndevices) (those the recorded work used), flushes CUPTI's buffers and
 * hands over everything recorded since the last start or collect, then keeps recording. */
int sb_activity_collect(const int *devices, int ndevices, sb_activity *out);
/* Stops recording (after a final collect, whose records are dropped). */
void sb_activity_stop(void);

#ifdef __cplusplus
}
#endif

#endif
