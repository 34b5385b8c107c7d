/* Tracked device memory and transfer accounting.
 *
 * Every device allocation a variant makes goes through sb_dev_alloc, which refuses (before any
 * launch) an allocation that cannot fit, saying how much it needs and how much the device has,
 * and keeps current and peak bytes. Every copy goes through sb_copy*, which counts bytes by
 * direction. */
#ifndef SB_DEVMEM_H
#define SB_DEVMEM_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_alloc_entry {
    void *ptr;
    size_t bytes;
    int device;
} sb_alloc_entry;

typedef struct sb_devmem {
    size_t current, peak; /* bytes, all devices together */
    int n, cap;
    sb_alloc_entry *list;
} sb_devmem;

typedef struct sb_transfers {
    uint64_t h2d, d2h, d2d, peer; /* bytes */
} sb_transfers;

/* SB_REFUSED (2) with a message when `bytes` cannot fit in what `device` has free now. */
int sb_dev_check_fits(int device, size_t bytes, const char *what);
/* Allocates on `device` (made current); refuses like sb_dev_check_fits; -1 on CUDA errors. */
int sb_dev_alloc(sb_devmem *m, int device, void **ptr, size_t bytes, const char *what);
int sb_dev_free(sb_devmem *m, void *ptr);
void sb_dev_free_all(sb_devmem *m);

/* Asynchronous copies on `stream`, counted by direction (kind: cudaMemcpyHostToDevice,
 * DeviceToHost or DeviceToDevice). */
int sb_copy(sb_transfers *x, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
            cudaStream_t stream);
int sb_copy_peer(sb_transfers *x, void *dst, int dst_device, const void *src, int src_device,
                 size_t bytes, cudaStream_t stream);

/* "1.50 GiB" (harness/hostmem.c) */
const char *sb_format_bytes(double bytes, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
