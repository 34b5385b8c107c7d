/* What the CUDA runtime and driver actually did, from CUPTI's Activity API: kernels, copies,
 * sets and device allocations. The harness compares these with its own tracked allocator and
 * transfer counters, so an untracked cudaMalloc or copy in a variant shows up. */
#ifndef SB_ACTIVITY_H
#define SB_ACTIVITY_H

#ifdef __cplusplus
extern "C" {
#endif

#define SB_KERNEL_NAME 128      /* bytes of a kernel's short name (cut beyond) */
#define SB_KERNEL_TABLE_ROWS 48 /* distinct kernels listed per window */

/* The host launches of one kernel in one shape: same short name, device, block size, registers,
 * local and shared memory. */
typedef struct sb_kernel {
    char name[SB_KERNEL_NAME]; /* sb_kernel_short_name of the symbol */
    int device;
    long long launches;
    double seconds;             /* summed durations of the launches */
    int registers;              /* per thread */
    int local_bytes_per_thread; /* local memory: register spills, stack, local arrays */
    int block_threads;
    int static_shared_bytes, dynamic_shared_bytes;
    int shared_opt_in; /* the function opted in to more dynamic shared memory than the default */
    /* Theoretical occupancy of that shape on that device (sb_kernel_occupancy): */
    int blocks_per_sm;   /* blocks resident on an SM at once */
    double occupancy;    /* their warps over the SM's maximum, 0..1; NaN when unknown */
    char limited_by[48]; /* what bounds blocks_per_sm, "+"-joined: warps, registers, shared,
                            blocks, barriers; "" when unknown */
} sb_kernel;

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
    /* One row per kernel and shape, most time first; the launches of kernels past the table's
     * rows are counted, not listed. */
    int nkernel_table;
    sb_kernel kernel_table[SB_KERNEL_TABLE_ROWS];
    long long kernel_table_omitted_launches;
} sb_activity;

/* Starts recording (one recording at a time: starting twice is an error). 0, or -1 with sb_error()
 * saying why (CUPTI missing or refusing: e.g. under some sandboxes). */
int sb_activity_start(void);
/* Synchronizes devices[0..ndevices) (those the recorded work used), flushes CUPTI's buffers and
 * hands over everything recorded since the last start or collect, then keeps recording. */
int sb_activity_collect(const int *devices, int ndevices, sb_activity *out);
/* Stops recording (after a final collect, whose records are dropped). */
void sb_activity_stop(void);

struct cudaOccDeviceProp; /* <cuda_occupancy.h> */
/* Sets k's blocks_per_sm, occupancy and limited_by from its block size, registers and shared
 * memory, with the toolkit's occupancy calculator at the default L1/shared split. Needs no GPU.
 * Where the calculator does not know the device (a chip newer than the toolkit), occupancy is
 * NaN, blocks_per_sm 0 and limited_by "". */
void sb_kernel_occupancy(sb_kernel *k, const struct cudaOccDeviceProp *device);

#ifdef __cplusplus
}
#endif

#endif
