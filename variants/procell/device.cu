#include "device.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <stdlib.h>

#include "../../cuda/check.h"
#include "../../cuda/base/error.h"

int pc_tables_upload(sb_env *env, int device_index, const pc_model *m, pc_device_tables *t)
{
    int dev = env->devices[device_index];
    cudaStream_t s = env->streams[device_index];
    size_t phi_b = (size_t)m->nrows * sizeof(double);
    size_t start_b = (size_t)(m->nrows + 1) * sizeof(uint64_t);
    size_t index_b = (size_t)m->nrows * m->gen_stride * sizeof(uint32_t);
    size_t omega_b = (size_t)m->nomega * sizeof(double);
    int rc;
    t->device = dev;
    if ((rc = sb_dev_alloc(&env->mem, dev, (void **)&t->phi, phi_b, "histogram rows")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&t->root_start, start_b, "root offsets")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&t->omega_index, index_b, "Omega index")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&t->omega, omega_b, "Omega")))
        return rc;
    if (sb_copy(&env->xfer, t->phi, m->phi, phi_b, cudaMemcpyHostToDevice, s) ||
        sb_copy(&env->xfer, t->root_start, m->root_start, start_b, cudaMemcpyHostToDevice, s) ||
        sb_copy(&env->xfer, t->omega_index, m->omega_index, index_b, cudaMemcpyHostToDevice, s) ||
        sb_copy(&env->xfer, t->omega, m->omega, omega_b, cudaMemcpyHostToDevice, s))
        return -1;
    SB_CUDA(cudaStreamSynchronize(s));
    t->view.phi = t->phi;
    t->view.root_start = t->root_start;
    t->view.omega_index = t->omega_index;
    t->view.nrows = m->nrows;
    t->view.gen_stride = m->gen_stride;
    return 0;
}

int pc_check_tally(const pc_device_tally *t)
{
    if (t->too_deep)
        return sb_fail("%llu cells divide past generation %d: lower t_max or raise phi_min",
                       t->too_deep, PC_MAX_GEN);
    if (t->not_in_omega)
        return sb_fail("%llu terminal cells have a fluorescence missing from Omega (a bug)",
                       t->not_in_omega);
    if (t->gave_up)
        return sb_fail("%llu split-trees threads waited a second for work that never came (a "
                       "bug in its queue's accounting)", t->gave_up);
    return 0;
}

/* Thesis 3.2.1: one thread per initial cell. */
__global__ void init_roots_kernel(pc_rules rules, const double *phi, const uint64_t *root_start,
                                  int nrows, uint64_t first_root, uint64_t n, pc_cell *cells,
                                  uint8_t *states)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint64_t root = first_root + i;
    int row = pc_row_of_root(root_start, nrows, root);
    cells[i] = pc_root_cell(&rules, (uint32_t)root, phi[row]);
    states[i] = PC_ALIVE;
}

int pc_launch_init_roots(const pc_model *m, const pc_device_tables *t, uint64_t first_root,
                         uint64_t n, pc_cell *cells, uint8_t *states, cudaStream_t stream)
{
    if (n == 0)
        return 0;
    unsigned blocks = (unsigned)((n + PC_BLOCK - 1) / PC_BLOCK);
    init_roots_kernel<<<blocks, PC_BLOCK, 0, stream>>>(m->rules, t->phi, t->root_start, m->nrows,
                                                       first_root, n, cells, states);
    SB_LAUNCHED("init_roots_kernel");
    return 0;
}

int pc_histogram_of_values(sb_env *env, const pc_model *m, const double *values, size_t n,
                           pc_output *out)
{
    if (n == 0)
        return 0;
    if (n > (size_t)INT32_MAX)
        return sb_fail("%zu terminal cells exceed the 2^31 items CUB sorts in one call", n);
    int dev = env->devices[0];
    cudaStream_t s = env->streams[0];
    double *keys = NULL, *sorted = NULL, *unique = NULL;
    int *counts = NULL, *nruns = NULL;
    void *scratch = NULL;
    size_t sort_b = 0, rle_b = 0;
    int rc = 0, items = (int)n;
    SB_CUDA(cub::DeviceRadixSort::SortKeys(NULL, sort_b, keys, sorted, items, 0, 64, s));
    SB_CUDA(cub::DeviceRunLengthEncode::Encode(NULL, rle_b, sorted, unique, counts, nruns, items,
                                               s));
    size_t scratch_b = sort_b > rle_b ? sort_b : rle_b;
    if ((rc = sb_dev_alloc(&env->mem, dev, (void **)&keys, n * sizeof(double), "terminal list")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&sorted, n * sizeof(double),
                           "sorted terminal list")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&unique, n * sizeof(double),
                           "histogram values")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&counts, n * sizeof(int), "histogram counts")) ||
        (rc = sb_dev_alloc(&env->mem, dev, (void **)&nruns, sizeof(int), "histogram size")) ||
        (rc = sb_dev_alloc(&env->mem, dev, &scratch, scratch_b, "CUB scratch")))
        goto done;
    rc = -1;
    if (sb_copy(&env->xfer, keys, values, n * sizeof(double), cudaMemcpyHostToDevice, s) != 0 ||
        cub::DeviceRadixSort::SortKeys(scratch, sort_b, keys, sorted, items, 0, 64, s) !=
            cudaSuccess ||
        cub::DeviceRunLengthEncode::Encode(scratch, rle_b, sorted, unique, counts, nruns, items,
                                           s) != cudaSuccess) {
        sb_fail("final histogram on the device failed: %s", cudaGetErrorString(cudaGetLastError()));
        goto done;
    }
    {
        int runs = 0;
        if (sb_copy(&env->xfer, &runs, nruns, sizeof runs, cudaMemcpyDeviceToHost, s) != 0 ||
            cudaStreamSynchronize(s) != cudaSuccess)
            goto done;
        double *host_values = (double *)malloc((size_t)runs * sizeof(double));
        int *host_counts = (int *)malloc((size_t)runs * sizeof(int));
        if (!host_values || !host_counts ||
            sb_copy(&env->xfer, host_values, unique, (size_t)runs * sizeof(double),
                    cudaMemcpyDeviceToHost, s) != 0 ||
            sb_copy(&env->xfer, host_counts, counts, (size_t)runs * sizeof(int),
                    cudaMemcpyDeviceToHost, s) != 0 ||
            cudaStreamSynchronize(s) != cudaSuccess) {
            free(host_values);
            free(host_counts);
            if (!host_values || !host_counts)
                sb_fail("out of host memory for %d histogram bins", runs);
            goto done;
        }
        rc = 0;
        for (int i = 0; i < runs && rc == 0; i++) {
            int bin = pc_omega_search(m->omega, m->nomega, host_values[i]);
            if (bin < 0)
                rc = sb_fail("fluorescence %.17g is not in Omega", host_values[i]);
            else
                out->counts[bin] += (unsigned long long)host_counts[i];
        }
        free(host_values);
        free(host_counts);
    }
done:
    sb_dev_free(&env->mem, keys);
    sb_dev_free(&env->mem, sorted);
    sb_dev_free(&env->mem, unique);
    sb_dev_free(&env->mem, counts);
    sb_dev_free(&env->mem, nruns);
    sb_dev_free(&env->mem, scratch);
    return rc;
}
