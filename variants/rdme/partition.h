/* The z-slab decomposition of an RDME lattice over GPUs (the multi-GPU paper's spatial
 * decomposition): slab i holds the planes z[i] <= z < z[i+1]. Boundaries fall on multiples of
 * the z block (the height of the z-sweep's tile), since a slab that ends inside a block costs a
 * partial block on both GPUs; the lattice's end is the one exception. Each slab stays within
 * its GPU's cap in planes (its free memory) and holds at least one block. */
#ifndef RD_PARTITION_H
#define RD_PARTITION_H

#ifdef __cplusplus
extern "C" {
#endif

#define RD_MAX_SLABS 16

typedef struct rd_partition {
    int n;                    /* slabs, one per GPU */
    int block;                /* boundaries are multiples of this */
    int z[RD_MAX_SLABS + 1];  /* z[0] = 0, z[n] = nz */
} rd_partition;

/* planes of slab i */
static inline int rd_slab_planes(const rd_partition *p, int i)
{
    return p->z[i + 1] - p->z[i];
}

/* Planes in proportion to weight[i] (NULL: equal), in whole blocks, within cap[i] planes (NULL:
 * none). When nz has fewer blocks than there are GPUs, the block shrinks to nz / n planes. -1
 * (sb_fail says why) when n is out of 1..RD_MAX_SLABS or above nz, or the caps hold fewer than nz
 * planes. */
int rd_partition_split(int nz, int n, int block, const double *weight, const int *cap,
                       rd_partition *p);

/* The paper's balancer: seconds[i] is GPU i's step time averaged over a batch. When some GPU is
 * further than `threshold` (a fraction) from the mean, the planes are split again in proportion
 * to each GPU's speed (planes per second), within the caps. 1 when the split moved, 0 when not,
 * -1 on errors. */
int rd_partition_rebalance(const rd_partition *cur, const double *seconds, double threshold,
                           const int *cap, rd_partition *next);

#ifdef __cplusplus
}
#endif

#endif
