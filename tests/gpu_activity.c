/* GPU test: CUPTI's activity records (cuda/activity.c) count exactly the copies, sets,
 * allocations and frees this test makes, window by window; an idle window is all zero; frees of
 * memory allocated in an earlier window lower nothing; the live peak follows the frees. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "cuda/activity.h"
#include "cuda/devinfo.h"
#include "cuda/base/error.h"

#define MIB (1024LL * 1024)

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            fail_msg("%s failed: %s", #call, cudaGetErrorString(e_));                              \
    } while (0)

static void *a, *b, *c; /* 1, 3 and 5 MiB of device memory, made in the first window */

static sb_activity collect(void)
{
    sb_activity got;
    int device = 0;
    if (sb_activity_collect(&device, 1, &got) != 0)
        fail_msg("sb_activity_collect: %s", sb_error());
    return got;
}

static void copies_sets_and_allocations(void **unused)
{
    (void)unused;
    void *host = NULL;
    /* pinned host memory: its (host) allocation record must not count as a device one */
    CUDA_OK(cudaMallocHost(&host, 3 * MIB));
    memset(host, 7, 3 * MIB);
    collect(); /* the window starts here, without cudaMallocHost's records */

    CUDA_OK(cudaMalloc(&a, 1 * MIB));
    CUDA_OK(cudaMalloc(&b, 3 * MIB));
    CUDA_OK(cudaMalloc(&c, 5 * MIB));
    CUDA_OK(cudaMemcpy(a, host, 1 * MIB, cudaMemcpyHostToDevice)); /* 1 MiB in */
    CUDA_OK(cudaMemcpy(host, b, 3 * MIB, cudaMemcpyDeviceToHost)); /* 3 MiB out */
    CUDA_OK(cudaMemcpy(c, b, 2 * MIB, cudaMemcpyDeviceToDevice));  /* 2 MiB on the device */
    CUDA_OK(cudaMemset(c, 0, 5 * MIB));
    CUDA_OK(cudaFree(a));
    a = NULL;
    sb_activity got = collect();

    assert_int_equal(got.h2d, 1 * MIB);
    assert_int_equal(got.d2h, 3 * MIB);
    assert_int_equal(got.d2d, 2 * MIB);
    assert_int_equal(got.peer, 0);
    assert_int_equal(got.memcpys, 3);
    assert_int_equal(got.memsets, 1);
    assert_int_equal(got.kernels, 0); /* cudaMemset is reported as a memset, not a kernel */
    assert_int_equal(got.allocations, 3);
    assert_int_equal(got.frees, 1);
    assert_int_equal(got.allocated_bytes, 9 * MIB);
    assert_int_equal(got.live_peak_bytes, 9 * MIB);
    assert_int_equal(got.dropped, 0);
    assert_true(got.memcpy_s > 0);
    assert_true(got.memset_s > 0);
    assert_true(got.kernel_s == 0);
    CUDA_OK(cudaFreeHost(host));
}

static void idle_window_is_zero(void **unused)
{
    (void)unused;
    collect(); /* cudaFreeHost's record, if any, goes here */
    sb_activity got = collect(), zero;
    memset(&zero, 0, sizeof zero);
    if (memcmp(&got, &zero, sizeof got) != 0)
        fail_msg("idle window not zero: kernels %lld memcpys %lld memsets %lld h2d %lld d2h %lld "
                 "d2d %lld peer %lld allocations %lld frees %lld allocated %lld peak %lld "
                 "dropped %lld kernel_s %g memcpy_s %g memset_s %g",
                 got.kernels, got.memcpys, got.memsets, got.h2d, got.d2h, got.d2d, got.peer,
                 got.allocations, got.frees, got.allocated_bytes, got.live_peak_bytes,
                 got.dropped, got.kernel_s, got.memcpy_s, got.memset_s);
}

static void frees_of_earlier_allocations_lower_nothing(void **unused)
{
    (void)unused;
    void *d = NULL;
    CUDA_OK(cudaFree(b));
    CUDA_OK(cudaFree(c));
    b = c = NULL;
    CUDA_OK(cudaMalloc(&d, 2 * MIB));
    sb_activity got = collect();
    assert_int_equal(got.allocations, 1);
    assert_int_equal(got.frees, 2);
    assert_int_equal(got.allocated_bytes, 2 * MIB);
    assert_int_equal(got.live_peak_bytes, 2 * MIB); /* not 2 - 3 - 5 MiB */
    CUDA_OK(cudaFree(d));
    got = collect();
    assert_int_equal(got.allocations, 0);
    assert_int_equal(got.frees, 1);
    assert_int_equal(got.live_peak_bytes, 0);
}

static void live_peak_follows_frees(void **unused)
{
    (void)unused;
    void *p = NULL, *q = NULL, *r = NULL;
    CUDA_OK(cudaMalloc(&p, 2 * MIB));
    CUDA_OK(cudaMalloc(&q, 4 * MIB));
    CUDA_OK(cudaFree(p));             /* 4 MiB live after 6 */
    CUDA_OK(cudaMalloc(&r, 1 * MIB)); /* 5 MiB live */
    CUDA_OK(cudaFree(q));
    CUDA_OK(cudaFree(r));
    sb_activity got = collect();
    assert_int_equal(got.allocations, 3);
    assert_int_equal(got.frees, 3);
    assert_int_equal(got.allocated_bytes, 7 * MIB);
    assert_int_equal(got.live_peak_bytes, 6 * MIB);
    assert_int_equal(got.dropped, 0);
}

static void start_twice_is_an_error(void **unused)
{
    (void)unused;
    assert_int_equal(sb_activity_start(), -1);
    assert_non_null(strstr(sb_error(), "already"));
    collect(); /* still recording */
}

int main(void)
{
    if (sb_device_count() == 0) {
        printf("SKIPPED: %s\n", sb_no_device_reason());
        return 77;
    }
    /* the context exists before recording starts: its own set-up is not in any window */
    if (cudaFree(NULL) != cudaSuccess) {
        printf("SKIPPED: CUDA context: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 77;
    }
    if (sb_activity_start() != 0) {
        printf("SKIPPED: CUPTI activity recording unavailable here: %s\n", sb_error());
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copies_sets_and_allocations),
        cmocka_unit_test(idle_window_is_zero),
        cmocka_unit_test(frees_of_earlier_allocations_lower_nothing),
        cmocka_unit_test(live_peak_follows_frees),
        cmocka_unit_test(start_twice_is_an_error),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    sb_activity_stop();
    sb_activity got;
    int device = 0;
    if (sb_activity_collect(&device, 1, &got) == 0) {
        printf("sb_activity_collect after sb_activity_stop succeeded\n");
        failed++;
    }
    return failed;
}
