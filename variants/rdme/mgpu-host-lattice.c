/* Planes between a GPU's buffer and the team's whole lattice in pinned host memory (mgpu.c):
 * the initial slabs, the round trip that places overflowing particles, the rebalancer's hand-over
 * of planes, the output. */
#include "mgpu-internal.h"

/* Buffer planes p0 .. p1 - 1 of slab s: the lattice planes they hold (wrapped), in runs. kind:
 * cudaMemcpyHostToDevice fills the buffer from the host lattice, DeviceToHost the reverse. */
int mgpu_copy_planes(worker *w, void *buffer, void *host, size_t plane_bytes, rd_slab s, int p0,
                     int p1, enum cudaMemcpyKind kind)
{
    const rd_model *m = w->team->m;
    for (int p = p0; p < p1; p++) {
        int z = s.z0 - s.halo + p;
        if (z < 0 || z >= m->nz) {
            if (!m->periodic)
                continue; /* a halo beyond a reflecting edge: never read */
            z = (z + m->nz) % m->nz;
        }
        /* as many planes as follow on in both */
        int run = 1;
        while (p + run < p1 && z + run < m->nz && s.z0 - s.halo + p + run == z + run)
            run++;
        char *b = (char *)buffer + (size_t)p * plane_bytes, *h = (char *)host + (size_t)z * plane_bytes;
        if (sb_copy(&w->xfer, kind == cudaMemcpyHostToDevice ? (void *)b : (void *)h,
                    kind == cudaMemcpyHostToDevice ? (void *)h : (void *)b,
                    (size_t)run * plane_bytes, kind, w->st[0]) != 0)
            return -1;
        p += run - 1;
    }
    return 0;
}

/* The whole buffer of the current slab, halos included, from the team's host lattice. */
int mgpu_upload_slab(worker *w, void *buffer)
{
    rd_mgpu *t = w->team;
    if (mgpu_copy_planes(w, buffer, t->h_lattice, t->plane_bytes, w->slab, 0,
                         w->slab.planes + 2 * w->slab.halo, cudaMemcpyHostToDevice) != 0)
        return -1;
    if (t->m->format == RD_BYTE16 && memcmp(&w->types_slab, &w->slab, sizeof w->slab) != 0) {
        if (mgpu_copy_planes(w, w->d_types, t->m->types, t->plane_sites, w->slab, 0,
                             w->slab.planes + 2 * w->slab.halo, cudaMemcpyHostToDevice) != 0)
            return -1;
        w->types_slab = w->slab;
    }
    w->halos_fresh = 1;
    return 0;
}

/* The own planes of a buffer into the team's host lattice. */
int mgpu_download_own(worker *w, void *buffer)
{
    rd_mgpu *t = w->team;
    return mgpu_copy_planes(w, buffer, t->h_lattice, t->plane_bytes, w->slab, w->slab.halo,
                            w->slab.halo + w->slab.planes, cudaMemcpyDeviceToHost);
}

/* Every GPU's overflow entries placed on the host lattice; every buffer refreshed from it. */
int mgpu_resolve_overflow(worker *w, int cur)
{
    rd_mgpu *t = w->team;
    unsigned int n = *w->h_count;
    if (n > w->sink.capacity)
        return sb_fail("%u particles overflowed in one step on GPU %d, more than its list's %u: "
                       "lower the particle density",
                       n, w->index, w->sink.capacity);
    if ((n && sb_copy(&w->xfer, w->h_entries, w->sink.entries, (size_t)n * sizeof(uint64_t),
                      cudaMemcpyDeviceToHost, w->st[0]) != 0) ||
        mgpu_download_own(w, w->d_lat[cur]) != 0)
        return -1;
    SB_CUDA(cudaMemsetAsync(w->sink.count, 0, sizeof(unsigned int), w->st[0]));
    SB_CUDA(cudaStreamSynchronize(w->st[0]));
    if (t->mpi) {
        /* every process gets the whole lattice and every entry, and places them the same way */
        size_t total;
        if (mgpu_mpi_gather_lattice(t) != 0 || mgpu_mpi_gather_entries(w, &total) != 0 ||
            rd_overflow_resolve(t->m, t->h_lattice, t->entries, total) != 0)
            return -1;
        t->overflow_particles += total;
        return mgpu_upload_slab(w, w->d_lat[cur]);
    }
    if (mgpu_team_barrier_wait(t) != 0)
        return -1;
    if (w->index == 0) {
        size_t total = 0;
        for (int i = 0; i < t->nslabs; i++) {
            memcpy(t->entries + total, t->w[i].h_entries, *t->w[i].h_count * sizeof(uint64_t));
            total += *t->w[i].h_count;
        }
        if (rd_overflow_resolve(t->m, t->h_lattice, t->entries, total) != 0)
            return -1;
        t->overflow_particles += total;
    }
    if (mgpu_team_barrier_wait(t) != 0)
        return -1;
    return mgpu_upload_slab(w, w->d_lat[cur]);
}

