#include "devmem.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/error.h"
#include "check.h"

int sb_dev_check_fits(int device, size_t bytes, const char *what)
{
    size_t free_bytes = 0, total_bytes = 0;
    SB_CUDA(cudaSetDevice(device));
    SB_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes > free_bytes) {
        char need[32], have[32], total[32];
        sb_fail("needs %s of device memory for %s, device %d has %s free of %s", 
                sb_format_bytes((double)bytes, need, sizeof need), what, device,
                sb_format_bytes((double)free_bytes, have, sizeof have),
                sb_format_bytes((double)total_bytes, total, sizeof total));
        return SB_REFUSED;
    }
    return 0;
}

int sb_dev_alloc(sb_devmem *m, int device, void **ptr, size_t bytes, const char *what)
{
    *ptr = NULL;
    int rc = sb_dev_check_fits(device, bytes, what);
    if (rc != 0)
        return rc;
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 16;
        sb_alloc_entry *list = realloc(m->list, (size_t)cap * sizeof *list);
        if (!list)
            return sb_fail("out of host memory tracking device allocations");
        m->list = list;
        m->cap = cap;
    }
    cudaError_t err = cudaMalloc(ptr, bytes ? bytes : 1);
    if (err == cudaErrorMemoryAllocation) {
        char need[32];
        cudaGetLastError();
        sb_fail("needs %s of device memory for %s, and device %d could not provide it",
                sb_format_bytes((double)bytes, need, sizeof need), what, device);
        return SB_REFUSED;
    }
    if (err != cudaSuccess)
        return sb_fail("cudaMalloc of %zu bytes for %s on device %d failed: %s", bytes, what,
                       device, cudaGetErrorString(err));
    m->list[m->n++] = (sb_alloc_entry){*ptr, bytes, device};
    m->current += bytes;
    if (m->current > m->peak)
        m->peak = m->current;
    return 0;
}

int sb_dev_free(sb_devmem *m, void *ptr)
{
    if (!ptr)
        return 0;
    for (int i = 0; i < m->n; i++) {
        if (m->list[i].ptr != ptr)
            continue;
        SB_CUDA(cudaSetDevice(m->list[i].device));
        SB_CUDA(cudaFree(ptr));
        m->current -= m->list[i].bytes;
        m->list[i] = m->list[--m->n];
        return 0;
    }
    return sb_fail("sb_dev_free: %p was not allocated through sb_dev_alloc", ptr);
}

void sb_dev_free_all(sb_devmem *m)
{
    for (int i = 0; i < m->n; i++) {
        cudaSetDevice(m->list[i].device);
        cudaFree(m->list[i].ptr);
    }
    m->n = 0;
    m->current = 0;
    free(m->list);
    m->list = NULL;
    m->cap = 0;
}

int sb_copy(sb_transfers *x, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
            cudaStream_t stream)
{
    if (bytes == 0)
        return 0;
    SB_CUDA(cudaMemcpyAsync(dst, src, bytes, kind, stream));
    switch (kind) {
    case cudaMemcpyHostToDevice: x->h2d += bytes; break;
    case cudaMemcpyDeviceToHost: x->d2h += bytes; break;
    case cudaMemcpyDeviceToDevice: x->d2d += bytes; break;
    default: return sb_fail("sb_copy: copy kind %d is not counted; use an explicit direction", kind);
    }
    return 0;
}

int sb_copy_peer(sb_transfers *x, void *dst, int dst_device, const void *src, int src_device,
                 size_t bytes, cudaStream_t stream)
{
    if (bytes == 0)
        return 0;
    SB_CUDA(cudaMemcpyPeerAsync(dst, dst_device, src, src_device, bytes, stream));
    x->peer += bytes;
    return 0;
}
