/* The z-slab partitioner of the multi-GPU RDME stages: even and weighted splits in whole blocks
 * for any GPU count and plane count, memory caps, refusals, and the load balancer's moves. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cuda/base/error.h"
#include "variants/rdme/partition.h"

/* Every split: slabs in order, none empty, covering 0..nz, inner boundaries on blocks. */
static void assert_well_formed(const rd_partition *p, int nz, int n)
{
    assert_int_equal(p->n, n);
    assert_int_equal(p->z[0], 0);
    assert_int_equal(p->z[n], nz);
    for (int i = 0; i < n; i++) {
        assert_true(rd_slab_planes(p, i) >= 1);
        if (i > 0)
            assert_int_equal(p->z[i] % p->block, 0);
    }
}

static void even_splits_any_count(void **unused)
{
    (void)unused;
    const int sizes[] = {1, 7, 31, 32, 33, 125, 250, 256, 257, 500, 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int n = 1; n <= RD_MAX_SLABS && n <= sizes[s]; n++) {
            rd_partition p;
            int nz = sizes[s];
            assert_int_equal(rd_partition_split(nz, n, 32, NULL, NULL, &p), 0);
            assert_well_formed(&p, nz, n);
            /* as even as whole blocks allow: each slab within a block of its share */
            for (int i = 0; i < n; i++) {
                double off = rd_slab_planes(&p, i) - (double)nz / n;
                if (off > p.block || off < -p.block)
                    fail_msg("nz %d over %d GPUs: slab %d has %d planes, share %.1f, block %d",
                             nz, n, i, rd_slab_planes(&p, i), (double)nz / n, p.block);
            }
            if (nz / 32 >= n || n == 1)
                assert_int_equal(p.block, 32); /* enough whole blocks: the block is kept */
        }
}

static void paper_lattices(void **unused)
{
    (void)unused;
    rd_partition p;
    /* 64 x 64 x 256 over 4 GPUs: 64 planes each */
    assert_int_equal(rd_partition_split(256, 4, 32, NULL, NULL, &p), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(rd_slab_planes(&p, i), 64);
    /* the dividing E. coli at 8 nm, 500 planes over 3 GPUs: 160 + 160 + 180 (blocks of 32) */
    assert_int_equal(rd_partition_split(500, 3, 32, NULL, NULL, &p), 0);
    assert_well_formed(&p, 500, 3);
    printf("500 planes over 3 GPUs: %d %d %d\n", rd_slab_planes(&p, 0), rd_slab_planes(&p, 1),
           rd_slab_planes(&p, 2));
}

static void refusals(void **unused)
{
    (void)unused;
    rd_partition p;
    assert_int_equal(rd_partition_split(3, 4, 32, NULL, NULL, &p), -1);
    assert_non_null(strstr(sb_error(), "use at most 3"));
    assert_int_equal(rd_partition_split(64, 0, 32, NULL, NULL, &p), -1);
    assert_int_equal(rd_partition_split(64, RD_MAX_SLABS + 1, 1, NULL, NULL, &p), -1);
    int small[] = {64, 64};
    assert_int_equal(rd_partition_split(256, 2, 32, NULL, small, &p), -1);
    assert_non_null(strstr(sb_error(), "does not fit"));
    double bad[] = {1.0, 0.0};
    assert_int_equal(rd_partition_split(256, 2, 32, bad, NULL, &p), -1);
    assert_non_null(strstr(sb_error(), "GPU 1"));
}

static void memory_caps(void **unused)
{
    (void)unused;
    rd_partition p;
    /* GPU 0 holds 64 planes only: the others take the rest */
    int cap[] = {64, 1000, 1000};
    assert_int_equal(rd_partition_split(512, 3, 32, NULL, cap, &p), 0);
    assert_well_formed(&p, 512, 3);
    assert_true(rd_slab_planes(&p, 0) <= 64);
    /* a faster GPU with little memory gets no more than its cap (the paper's sub-optimal split) */
    double w[] = {10.0, 1.0, 1.0};
    assert_int_equal(rd_partition_split(512, 3, 32, w, cap, &p), 0);
    assert_int_equal(rd_slab_planes(&p, 0), 64);
    /* the last GPU's partial block fits a cap that is not a block multiple */
    int tight[] = {256, 244};
    assert_int_equal(rd_partition_split(500, 2, 32, NULL, tight, &p), 0);
    assert_well_formed(&p, 500, 2);
    assert_true(rd_slab_planes(&p, 1) <= 244);
}

static void weighted_splits(void **unused)
{
    (void)unused;
    rd_partition p;
    double w[] = {2.0, 1.0};
    assert_int_equal(rd_partition_split(768, 2, 32, w, NULL, &p), 0);
    assert_int_equal(rd_slab_planes(&p, 0), 512);
    assert_int_equal(rd_slab_planes(&p, 1), 256);
}

/* Skewed weights on any GPU count: every slab but the last keeps a whole block, even where the
 * blocks are just enough for one each (256 planes over 8 GPUs in blocks of 32). */
static void weighted_splits_any_count(void **unused)
{
    (void)unused;
    const int sizes[] = {19, 64, 100, 250, 256, 257, 500, 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int n = 2; n <= RD_MAX_SLABS && n <= sizes[s]; n++)
            for (int heavy = 0; heavy < n; heavy += n - 1) {
                double w[RD_MAX_SLABS];
                for (int i = 0; i < n; i++)
                    w[i] = i == heavy ? 10.0 : 1.0;
                rd_partition p;
                int nz = sizes[s];
                if (rd_partition_split(nz, n, 32, w, NULL, &p) != 0)
                    fail_msg("nz %d over %d GPUs, GPU %d ten times faster: %s", nz, n, heavy,
                             sb_error());
                assert_well_formed(&p, nz, n);
                for (int i = 0; i + 1 < n; i++)
                    assert_true(rd_slab_planes(&p, i) >= p.block);
                assert_true(rd_slab_planes(&p, heavy) >= rd_slab_planes(&p, heavy ? 0 : 1));
            }
}

static void balancer(void **unused)
{
    (void)unused;
    rd_partition cur, next;
    assert_int_equal(rd_partition_split(512, 2, 32, NULL, NULL, &cur), 0);
    /* equal times: nothing moves */
    double equal[] = {0.010, 0.010};
    assert_int_equal(rd_partition_rebalance(&cur, equal, 0.05, NULL, &next), 0);
    assert_memory_equal(next.z, cur.z, sizeof cur.z);
    /* within the threshold: nothing moves */
    double close[] = {0.0102, 0.0098};
    assert_int_equal(rd_partition_rebalance(&cur, close, 0.05, NULL, &next), 0);
    /* GPU 0 twice as slow: it keeps a third of the planes, in whole blocks */
    double slow0[] = {0.020, 0.010};
    assert_int_equal(rd_partition_rebalance(&cur, slow0, 0.05, NULL, &next), 1);
    assert_well_formed(&next, 512, 2);
    assert_true(rd_slab_planes(&next, 0) < rd_slab_planes(&cur, 0));
    assert_int_equal(rd_slab_planes(&next, 0) % 32, 0);
    printf("GPU 0 twice as slow: %d + %d planes -> %d + %d\n", rd_slab_planes(&cur, 0),
           rd_slab_planes(&cur, 1), rd_slab_planes(&next, 0), rd_slab_planes(&next, 1));
    /* a second batch with the GPUs now balanced leaves the split where it is */
    double balanced[] = {0.0134, 0.0136};
    rd_partition again;
    assert_int_equal(rd_partition_rebalance(&next, balanced, 0.05, NULL, &again), 0);
    /* a cap stops the fast GPU from taking more than it holds */
    int cap[] = {512, 288};
    assert_int_equal(rd_partition_rebalance(&cur, slow0, 0.05, cap, &next), 1);
    assert_true(rd_slab_planes(&next, 1) <= 288);
    /* a bad time is refused */
    double zero[] = {0.0, 0.01};
    assert_int_equal(rd_partition_rebalance(&cur, zero, 0.05, NULL, &next), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(even_splits_any_count), cmocka_unit_test(paper_lattices),
        cmocka_unit_test(refusals),              cmocka_unit_test(memory_caps),
        cmocka_unit_test(weighted_splits),       cmocka_unit_test(weighted_splits_any_count),
        cmocka_unit_test(balancer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
