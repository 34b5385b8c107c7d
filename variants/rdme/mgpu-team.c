/* The multi-GPU engine's team (mgpu.c): one host thread per slab, each on the CPUs next to its
 * GPU, host buffers placed there too, and the spin barrier where the threads meet after every
 * step (with MPI, one process per slab, the processes' allreduce instead). */
#define _GNU_SOURCE /* CPU affinity */
#include "mgpu-internal.h"

/* The CPUs next to a GPU (its PCI device's local_cpulist); 0 when the system does not say. */
static int gpu_cpus(int dev, cpu_set_t *set)
{
    char bus[32], path[96], list[1024];
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    for (char *c = bus; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/local_cpulist", bus);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int ok = fgets(list, sizeof list, f) != NULL;
    fclose(f);
    CPU_ZERO(set);
    for (char *s = list; ok && *s && *s != '\n';) { /* "0-15,32-47" */
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s)
            break;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long cpu = a; cpu <= b && cpu < CPU_SETSIZE; cpu++)
            CPU_SET((int)cpu, set);
        s = *end == ',' ? end + 1 : end;
    }
    return ok && CPU_COUNT(set) > 0;
}

/* Pinned host memory on the NUMA node of GPU `dev`: allocated (and so first touched) by this
 * thread while it runs on that GPU's CPUs. */
int mgpu_host_alloc_near(int dev, void **ptr, size_t bytes)
{
    cpu_set_t near, saved;
    int moved = gpu_cpus(dev, &near) && sched_getaffinity(0, sizeof saved, &saved) == 0 &&
                sched_setaffinity(0, sizeof near, &near) == 0;
    cudaError_t e = cudaMallocHost(ptr, bytes);
    if (moved)
        sched_setaffinity(0, sizeof saved, &saved);
    if (e != cudaSuccess)
        return sb_fail("cudaMallocHost of %zu bytes near GPU %d: %s", bytes, dev,
                       cudaGetErrorString(e));
    return 0;
}

static int barrier_sum(team_barrier *b, unsigned long long value, unsigned long long *total)
{
    int phase = atomic_load(&b->phase);
    atomic_fetch_add(&b->sum[phase & 1], value);
    if (atomic_fetch_add(&b->arrived, 1) == b->n - 1) {
        atomic_store(&b->sum[(phase + 1) & 1], 0);
        atomic_store(&b->arrived, 0);
        atomic_store(&b->phase, phase + 1);
    } else
        for (unsigned spins = 1; atomic_load(&b->phase) == phase; spins++) {
            if (atomic_load(&b->failed))
                return sb_fail("stopped: another GPU failed");
            if (spins % 4096 == 0)
                sched_yield();
        }
    if (total)
        *total = atomic_load(&b->sum[phase & 1]);
    return atomic_load(&b->failed) ? sb_fail("stopped: another GPU failed") : 0;
}

/* The team's per-step meeting: the threads' barrier, or the processes' allreduce. */
int mgpu_team_sum(rd_mgpu *t, unsigned long long value, unsigned long long *total)
{
    if (!t->mpi)
        return barrier_sum(&t->bar, value, total);
    unsigned long long sum = 0;
    SB_MPI(MPI_Allreduce(&value, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (total)
        *total = sum;
    return 0;
}

int mgpu_team_barrier_wait(rd_mgpu *t)
{
    return mgpu_team_sum(t, 0, NULL);
}

static void *worker_main(void *arg)
{
    worker *w = (worker *)arg;
    cpu_set_t near;
    if (gpu_cpus(w->dev, &near)) /* a GPU's thread on its own socket (no effect if refused) */
        pthread_setaffinity_np(pthread_self(), sizeof near, &near);
    w->rc = mgpu_simulate(w);
    if (w->rc != 0) {
        snprintf(w->err, sizeof w->err, "GPU %d (slab %d): %s", w->dev, w->index, sb_error());
        atomic_store(&w->team->bar.failed, 1);
    }
    return NULL;
}

/* One thread per slab; the first failure reported, not those it caused in the others. */
int mgpu_run_threads(rd_mgpu *t)
{
    pthread_t th[RD_MAX_SLABS];
    int started = 0;
    for (; started < t->nslabs; started++)
        if (pthread_create(&th[started], NULL, worker_main, &t->w[started]) != 0) {
            atomic_store(&t->bar.failed, 1);
            break;
        }
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (started < t->nslabs)
        return sb_fail("could not start a host thread for each of %d GPUs", t->nslabs);
    for (int i = 0; i < t->nslabs; i++) {
        worker *w = &t->w[i];
        if (w->rc != 0 && strstr(w->err, "another GPU failed") == NULL)
            return sb_fail("%s", w->err);
    }
    for (int i = 0; i < t->nslabs; i++) {
        worker *w = &t->w[i];
        if (w->rc != 0)
            return sb_fail("%s", w->err);
    }
    return 0;
}
