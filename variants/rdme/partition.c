/* Splitting the lattice's z planes over GPUs, and moving the split when GPUs are unequal. The
 * ideal split gives each GPU planes in proportion to its weight, a GPU that reaches its cap
 * passing the rest to the others (water filling); each boundary then goes to the block
 * multiple nearest the ideal one that leaves every slab at least a block, within its cap. */
#include "partition.h"

#include <math.h>
#include <string.h>

#include "../../cuda/base/error.h"

/* Ideal (real) planes per GPU: proportional to weight, capped, summing to nz. */
static void water_fill(int nz, int n, const double *weight, const int *cap, double *planes)
{
    int capped[RD_MAX_SLABS] = {0};
    for (;;) {
        double left = nz, total = 0;
        for (int i = 0; i < n; i++)
            if (capped[i])
                left -= cap[i];
            else
                total += weight[i];
        int again = 0;
        for (int i = 0; i < n; i++) {
            planes[i] = capped[i] ? cap[i] : left * weight[i] / total;
            if (!capped[i] && cap && planes[i] > cap[i])
                capped[i] = again = 1;
        }
        if (!again)
            return;
    }
}

static int floor_to(int x, int block)
{
    return x / block * block;
}

int rd_partition_split(int nz, int n, int block, const double *weight, const int *cap,
                       rd_partition *p)
{
    if (n < 1 || n > RD_MAX_SLABS)
        return sb_fail("%d GPUs: a lattice splits over 1 to %d", n, RD_MAX_SLABS);
    if (nz < n)
        return sb_fail("%d z-planes cannot be split over %d GPUs: use at most %d", nz, n, nz);
    if (block < 1)
        block = 1;
    if (n > 1 && nz / block < n)
        block = nz / n; /* too few whole blocks: smaller ones, still one per GPU */
    double w[RD_MAX_SLABS], ideal[RD_MAX_SLABS], capacity = 0;
    for (int i = 0; i < n; i++) {
        w[i] = weight ? weight[i] : 1.0;
        if (!(w[i] > 0) || !isfinite(w[i]))
            return sb_fail("GPU %d: weight %g: expected a positive speed", i, w[i]);
        if (cap && cap[i] < block && cap[i] < nz)
            return sb_fail("GPU %d holds %d z-planes, less than one block of %d", i, cap[i],
                           block);
        capacity += cap ? cap[i] : nz;
    }
    if (capacity < nz)
        return sb_fail("the GPUs hold %.0f z-planes between them and the lattice has %d: it does "
                       "not fit",
                       capacity, nz);
    water_fill(nz, n, w, cap, ideal);
    memset(p, 0, sizeof *p);
    p->n = n;
    p->block = block;
    double boundary = 0;
    for (int k = 1; k < n; k++) {
        boundary += ideal[k - 1];
        /* room: a block each for the slab below and for the ones above but the last, which
         * needs a plane; caps on both sides */
        int rest_cap = 0;
        for (int i = k; i < n; i++)
            rest_cap += cap ? cap[i] : nz;
        int lo = p->z[k - 1] + block, hi = floor_to(nz - 1 - (n - k - 1) * block, block);
        if (nz - rest_cap > lo)
            lo = (nz - rest_cap + block - 1) / block * block;
        if (cap && p->z[k - 1] + floor_to(cap[k - 1], block) < hi)
            hi = p->z[k - 1] + floor_to(cap[k - 1], block);
        int z = (int)floor(boundary / block + 0.5) * block;
        z = z < lo ? lo : z > hi ? hi : z;
        if (lo > hi)
            return sb_fail("the GPUs' memory caps leave no split of %d z-planes in blocks of %d",
                           nz, block);
        p->z[k] = z;
    }
    p->z[n] = nz;
    if (cap && nz - p->z[n - 1] > cap[n - 1])
        return sb_fail("the GPUs' memory caps leave no split of %d z-planes in blocks of %d", nz,
                       block);
    return 0;
}

int rd_partition_rebalance(const rd_partition *cur, const double *seconds, double threshold,
                           const int *cap, rd_partition *next)
{
    int n = cur->n;
    double mean = 0, worst = 0, speed[RD_MAX_SLABS];
    for (int i = 0; i < n; i++) {
        if (!(seconds[i] > 0) || !isfinite(seconds[i]))
            return sb_fail("GPU %d: step time %g s: expected a positive time", i, seconds[i]);
        mean += seconds[i] / n;
    }
    for (int i = 0; i < n; i++) {
        double off = fabs(seconds[i] - mean) / mean;
        worst = off > worst ? off : worst;
        speed[i] = rd_slab_planes(cur, i) / seconds[i];
    }
    *next = *cur;
    if (worst <= threshold)
        return 0;
    if (rd_partition_split(cur->z[n], n, cur->block, speed, cap, next) != 0)
        return -1;
    return memcmp(next->z, cur->z, sizeof cur->z) != 0;
}
