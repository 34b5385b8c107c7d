/* Theoretical occupancy of kernel table rows (sb_kernel_occupancy, cuda/activity.c) on an H100
 * described by hand, as cudaGetDeviceProperties describes it: no GPU needed. Each expected
 * figure is worked out in its comment from the H100's limits per SM: 2048 threads (64 warps),
 * 65536 registers, 32 blocks, 228 KiB of shared memory, of which a block may opt in to 227 KiB
 * and the driver reserves 1 KiB per block. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cuda_occupancy.h>
#include <math.h>
#include <string.h>

#include "cuda/activity.h"

static const cudaOccDeviceProp h100 = {
    .computeMajor = 9,
    .computeMinor = 0,
    .maxThreadsPerBlock = 1024,
    .maxThreadsPerMultiprocessor = 2048,
    .regsPerBlock = 65536,
    .regsPerMultiprocessor = 65536,
    .warpSize = 32,
    .sharedMemPerBlock = 48 * 1024,
    .sharedMemPerMultiprocessor = 228 * 1024,
    .numSms = 132,
    .sharedMemPerBlockOptin = 227 * 1024,
    .reservedSharedMemPerBlock = 1024,
};

static sb_kernel launch(int block_threads, int registers, int static_shared, int dynamic_shared,
                        int opt_in)
{
    sb_kernel k;
    memset(&k, 0, sizeof k);
    strcpy(k.name, "kernel");
    k.block_threads = block_threads;
    k.registers = registers;
    k.static_shared_bytes = static_shared;
    k.dynamic_shared_bytes = dynamic_shared;
    k.shared_opt_in = opt_in;
    sb_kernel_occupancy(&k, &h100);
    return k;
}

/* 8 warps a block: 64 / 8 = 8 blocks by warps; 32 registers make 1024 a warp, 65536 / 1024 = 64
 * warps = 8 blocks by registers too: both limit, and the SM is full. */
static void full_sm(void **unused)
{
    (void)unused;
    sb_kernel k = launch(256, 32, 0, 0, 0);
    assert_int_equal(k.blocks_per_sm, 8);
    assert_true(k.occupancy == 1.0);
    assert_string_equal(k.limited_by, "warps+registers");
}

/* 64 registers: 2048 a warp, 32 warps = 4 blocks of 8 warps: half the SM. */
static void registers_limit(void **unused)
{
    (void)unused;
    sb_kernel k = launch(256, 64, 0, 0, 0);
    assert_int_equal(k.blocks_per_sm, 4);
    assert_true(k.occupancy == 0.5);
    assert_string_equal(k.limited_by, "registers");
}

/* 40 KiB + the reserved 1 KiB a block: 228 / 41 = 5 blocks of 4 warps = 20 of 64 warps. */
static void static_shared_memory_limits(void **unused)
{
    (void)unused;
    sb_kernel k = launch(128, 32, 40 * 1024, 0, 0);
    assert_int_equal(k.blocks_per_sm, 5);
    assert_true(k.occupancy == 20.0 / 64);
    assert_string_equal(k.limited_by, "shared");
}

/* One warp a block: 32 blocks at most, 32 of 64 warps. */
static void block_count_limits(void **unused)
{
    (void)unused;
    sb_kernel k = launch(32, 32, 0, 0, 0);
    assert_int_equal(k.blocks_per_sm, 32);
    assert_true(k.occupancy == 0.5);
    assert_string_equal(k.limited_by, "blocks");
}

/* 100 KiB of dynamic shared memory is past the default 48 KiB a block: it fits only when the
 * function opted in (then 228 / 101 = 2 blocks of 4 warps), and the calculator says no block
 * fits otherwise. */
static void dynamic_shared_memory_needs_the_opt_in(void **unused)
{
    (void)unused;
    sb_kernel k = launch(128, 32, 0, 100 * 1024, 1);
    assert_int_equal(k.blocks_per_sm, 2);
    assert_true(k.occupancy == 8.0 / 64);
    assert_string_equal(k.limited_by, "shared");
    k = launch(128, 32, 0, 100 * 1024, 0);
    assert_int_equal(k.blocks_per_sm, 0);
    assert_true(k.occupancy == 0);
}

/* A compute capability the toolkit's calculator does not know: occupancy unknown, not made up. */
static void unknown_device(void **unused)
{
    (void)unused;
    cudaOccDeviceProp future = h100;
    future.computeMajor = 99;
    sb_kernel k = launch(256, 32, 0, 0, 0);
    sb_kernel_occupancy(&k, &future);
    assert_true(isnan(k.occupancy));
    assert_int_equal(k.blocks_per_sm, 0);
    assert_string_equal(k.limited_by, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(full_sm),
        cmocka_unit_test(registers_limit),
        cmocka_unit_test(static_shared_memory_limits),
        cmocka_unit_test(block_count_limits),
        cmocka_unit_test(dynamic_shared_memory_needs_the_opt_in),
        cmocka_unit_test(unknown_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
