/* The species counts of a sample, count_planes: a row of counts a lattice plane. */
#include "launch.h"
#include "common.cuh"

/* Counts per species of the slab's own planes: a block row per plane, added to the rows of their
 * lattice planes. */
template <class F>
__global__ void count_planes(const typename F::site_t *__restrict__ lattice, rd_step a,
                             int nspecies, uint32_t *planes)
{
    __shared__ unsigned int tally[RD_MAX_SPECIES + 1];
    for (int sp = threadIdx.x; sp <= nspecies; sp += blockDim.x)
        tally[sp] = 0;
    __syncthreads();
    size_t plane = (size_t)a.nx * a.ny, first = (a.slab.halo + (size_t)blockIdx.y) * plane;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < plane;
         i += (size_t)gridDim.x * blockDim.x) {
        slots s = F::unpack(lattice[first + i]);
        int n = F::count(s);
        for (int k = 0; k < n; k++)
            atomicAdd(&tally[slot_species<F::BITS>(s, k)], 1u);
        if (n)
            atomicAdd(&tally[0], (unsigned int)n);
    }
    __syncthreads();
    uint32_t *row = planes + (size_t)(a.slab.z0 + blockIdx.y) * (nspecies + 1);
    for (int sp = threadIdx.x; sp <= nspecies; sp += blockDim.x)
        if (tally[sp])
            atomicAdd(&row[sp], tally[sp]);
}

template <class F>
static int launch_count(const void *lattice, const rd_step *a, int nspecies, uint32_t *planes,
                        cudaStream_t st)
{
    size_t plane = (size_t)a->nx * a->ny;
    unsigned blocks = (unsigned)((plane + 255) / 256);
    dim3 grid(blocks > 64 ? 64 : blocks, a->slab.planes);
    count_planes<F><<<grid, 256, 0, st>>>((const typename F::site_t *)lattice, *a, nspecies,
                                          planes);
    SB_LAUNCHED("count_planes");
    return 0;
}

int rd_count_planes(rd_site_format f, const void *lattice, const rd_step *a, int nspecies,
                    uint32_t *planes, cudaStream_t st)
{
    return f == RD_PACKED32 ? launch_count<packed32>(lattice, a, nspecies, planes, st)
                            : launch_count<byte16>(lattice, a, nspecies, planes, st);
}

int rd_load_count_planes(rd_site_format f)
{
    cudaFuncAttributes attr;
    if (f == RD_PACKED32)
        SB_CUDA(cudaFuncGetAttributes(&attr, count_planes<packed32>));
    else
        SB_CUDA(cudaFuncGetAttributes(&attr, count_planes<byte16>));
    return 0;
}
