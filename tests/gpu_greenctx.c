/* GPU test: an SM limit (cuda/greenctx.h) really slows a compute-bound kernel down, gives the same
 * results, writes memory that cudaMalloc gave in the primary context, explains a request the
 * device cannot split, and leaves the caller's current context and device as they were. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <cuda.h> /* types only: CUcontext, CUresult */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/devinfo.h"
#include "cuda/greenctx.h"
#include "cuda/base/error.h"
#include "harness/variant.h"

int burn_threads_per_block(void);
int burn_blocks_per_sm(int *blocks);
int burn_launch(cudaStream_t stream, float *out, int blocks, int iters);
int pattern_launch(cudaStream_t stream, unsigned *buf, size_t n);

/* Long enough that the whole device takes milliseconds, so launch costs do not blur the ratio. */
#define BURN_ITERS (1 << 16)

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t ck_ = (call);                                                                  \
        if (ck_ != cudaSuccess)                                                                    \
            fail_msg("%s:%d: %s failed: %s", __FILE__, __LINE__, #call, cudaGetErrorString(ck_)); \
    } while (0)
#define OK(call)                                                                                   \
    do {                                                                                           \
        if ((call) != 0)                                                                           \
            fail_msg("%s:%d: %s", __FILE__, __LINE__, sb_error());                                 \
    } while (0)

static const int device = 0;
static int total_sms;
static CUresult(CUDAAPI *ctx_get_current)(CUcontext *ctx);

static CUcontext current_context(void)
{
    CUcontext ctx = NULL;
    if (ctx_get_current(&ctx) != CUDA_SUCCESS)
        return (CUcontext)(intptr_t)-1; /* never a context: fails the comparisons */
    return ctx;
}

/* Best of three, after one launch that loads the kernel into the stream's context. */
static double burn_ms(cudaStream_t stream, float *out, int blocks)
{
    cudaEvent_t start, stop;
    CK(cudaEventCreate(&start));
    CK(cudaEventCreate(&stop));
    OK(burn_launch(stream, out, blocks, BURN_ITERS));
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        float ms = 0;
        CK(cudaEventRecord(start, stream));
        OK(burn_launch(stream, out, blocks, BURN_ITERS));
        CK(cudaEventRecord(stop, stream));
        CK(cudaEventSynchronize(stop));
        CK(cudaEventElapsedTime(&ms, start, stop));
        if (ms < best)
            best = ms;
    }
    CK(cudaEventDestroy(start));
    CK(cudaEventDestroy(stop));
    return best;
}

static void limited_stream_is_slower_and_equal(void **unused)
{
    (void)unused;
    int want = total_sms / 4, before_device = -1, after_device = -1;
    CK(cudaGetDevice(&before_device));
    CUcontext before = current_context();
    sb_sm_limit lim;
    cudaStream_t slow, fast;
    OK(sb_sm_limit_open(&lim, device, want, &slow));
    CK(cudaGetDevice(&after_device));
    assert_int_equal(after_device, before_device);
    assert_ptr_equal(current_context(), before);
    int granted = sb_sm_limit_sms(&lim);
    assert_true(granted >= want && granted < total_sms);
    CK(cudaStreamCreateWithFlags(&fast, cudaStreamNonBlocking));

    /* Four full waves on the whole device: the limited stream runs them in about
     * total/granted times as many waves. */
    int per_sm = 0;
    OK(burn_blocks_per_sm(&per_sm));
    assert_true(per_sm > 0);
    int blocks = total_sms * per_sm * 4;
    size_t n = (size_t)blocks * (size_t)burn_threads_per_block();
    float *d_slow, *d_fast;
    float *h_slow = malloc(n * sizeof *h_slow), *h_fast = malloc(n * sizeof *h_fast);
    assert_non_null(h_slow);
    assert_non_null(h_fast);
    CK(cudaMalloc((void **)&d_slow, n * sizeof *d_slow));
    CK(cudaMalloc((void **)&d_fast, n * sizeof *d_fast));
    CK(cudaMemset(d_slow, 0xff, n * sizeof *d_slow));
    CK(cudaMemset(d_fast, 0, n * sizeof *d_fast));
    CK(cudaDeviceSynchronize()); /* the non-blocking streams do not wait for the legacy stream */

    double fast_ms = burn_ms(fast, d_fast, blocks);
    double slow_ms = burn_ms(slow, d_slow, blocks);
    CK(cudaMemcpy(h_slow, d_slow, n * sizeof *h_slow, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h_fast, d_fast, n * sizeof *h_fast, cudaMemcpyDeviceToHost));
    printf("device %d: %d of %d SMs granted (%d asked); %d blocks of %d threads, %d FMA x 4 each: "
           "whole device %.3f ms, limited %.3f ms (%.2fx slower)\n",
           device, granted, total_sms, want, blocks, burn_threads_per_block(), BURN_ITERS,
           fast_ms, slow_ms, slow_ms / fast_ms);
    assert_memory_equal(h_slow, h_fast, n * sizeof *h_slow);
    if (2 * granted <= total_sms)
        assert_true(slow_ms >= 2.0 * fast_ms);
    else
        printf("(ratio not checked: %d granted is more than half the device)\n", granted);

    CK(cudaStreamDestroy(fast));
    sb_sm_limit_close(&lim);
    CK(cudaFree(d_slow));
    CK(cudaFree(d_fast));
    free(h_slow);
    free(h_fast);
}

static void primary_context_buffer_written_on_limited_stream(void **unused)
{
    (void)unused;
    const size_t n = (size_t)1 << 22;
    unsigned *d_buf, *h_buf = malloc(n * sizeof *h_buf);
    assert_non_null(h_buf);
    CK(cudaMalloc((void **)&d_buf, n * sizeof *d_buf));
    sb_sm_limit lim;
    cudaStream_t slow;
    OK(sb_sm_limit_open(&lim, device, total_sms / 4, &slow));
    /* memset, kernel and copy back all on the limited stream, on primary-context memory */
    CK(cudaMemsetAsync(d_buf, 0xff, n * sizeof *d_buf, slow));
    OK(pattern_launch(slow, d_buf, n));
    CK(cudaMemcpyAsync(h_buf, d_buf, n * sizeof *h_buf, cudaMemcpyDeviceToHost, slow));
    CK(cudaStreamSynchronize(slow));
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        if (h_buf[i] != ((unsigned)i * 2654435761u ^ 0x5bd1e995u) && wrong++ < 5)
            printf("element %zu: %#x\n", i, h_buf[i]);
    assert_int_equal(wrong, 0);
    sb_sm_limit_close(&lim);
    CK(cudaFree(d_buf));
    free(h_buf);
}

static void impossible_request_is_explained(void **unused)
{
    (void)unused;
    sb_sm_limit lim;
    cudaStream_t s = (cudaStream_t)(intptr_t)1;
    char asked[32];
    snprintf(asked, sizeof asked, "%d SMs asked", total_sms + 1);
    assert_int_equal(sb_sm_limit_open(&lim, device, total_sms + 1, &s), -1);
    printf("message: %s\n", sb_error());
    assert_non_null(strstr(sb_error(), "device 0"));
    assert_non_null(strstr(sb_error(), asked));
    assert_null(s);
    assert_int_equal(sb_sm_limit_sms(&lim), 0);
    sb_sm_limit_close(&lim); /* harmless on a failed open */
}

/* A thread that has no current context keeps none. */
typedef struct bare_thread {
    int rc;
    CUcontext before, after;
    char error[512];
} bare_thread;

static void *open_on_bare_thread(void *arg)
{
    bare_thread *t = arg;
    sb_sm_limit lim;
    cudaStream_t s;
    t->before = current_context();
    t->rc = sb_sm_limit_open(&lim, device, total_sms / 4, &s);
    t->after = current_context();
    snprintf(t->error, sizeof t->error, "%s", sb_error());
    sb_sm_limit_close(&lim);
    return NULL;
}

static void caller_context_unchanged(void **unused)
{
    (void)unused;
    bare_thread t;
    pthread_t th;
    memset(&t, 0, sizeof t);
    assert_int_equal(pthread_create(&th, NULL, open_on_bare_thread, &t), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    if (t.rc != 0)
        fail_msg("%s", t.error);
    assert_null(t.before);
    assert_null(t.after);

    /* Another device current: it stays current. */
    int count = 0, current = -1;
    CK(cudaGetDeviceCount(&count));
    if (count < 2)
        return;
    CK(cudaSetDevice(1));
    CK(cudaFree(0));
    CUcontext other = current_context();
    sb_sm_limit lim;
    cudaStream_t s;
    OK(sb_sm_limit_open(&lim, device, total_sms / 4, &s));
    CK(cudaGetDevice(&current));
    assert_int_equal(current, 1);
    assert_ptr_equal(current_context(), other);
    sb_sm_limit_close(&lim);
    CK(cudaSetDevice(device));
}

int main(void)
{
    if (sb_device_count() == 0) {
        printf("SKIPPED: %s\n", sb_no_device_reason());
        return 77;
    }
    enum cudaDriverEntryPointQueryResult status;
    void *fn = NULL;
    if (cudaSetDevice(device) != cudaSuccess || cudaFree(0) != cudaSuccess ||
        cudaDeviceGetAttribute(&total_sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault,
                                         &status) != cudaSuccess ||
        fn == NULL) {
        printf("device %d unusable: %s\n", device, cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    memcpy(&ctx_get_current, &fn, sizeof fn);

    /* No green contexts here (driver, build or device): a skip, not a failure. */
    sb_sm_limit probe;
    cudaStream_t s;
    int rc = sb_sm_limit_open(&probe, device, total_sms / 4, &s);
    if (rc == SB_REFUSED) {
        printf("SKIPPED: %s\n", sb_error());
        return 77;
    }
    sb_sm_limit_close(&probe);

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(limited_stream_is_slower_and_equal),
        cmocka_unit_test(primary_context_buffer_written_on_limited_stream),
        cmocka_unit_test(impossible_request_is_explained),
        cmocka_unit_test(caller_context_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
