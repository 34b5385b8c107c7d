/* GPU test: every GPU variant of the copies workload delivers the payload bit for bit (against
 * cpu-memcpy's copy), at tiny, odd and large sizes, twice in a row on one set-up; before any run
 * its destination does not pass (setup clears it, so validation means something); and every
 * byte a run moves is counted by direction (the received bytes' download in output() included).
 * On one GPU the variants that copy between GPUs are skipped, saying they need 2 GPUs; without
 * a GPU the test is SKIPPED (77). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "cuda/devinfo.h"
#include "cuda/base/error.h"
#include "harness/measure.h"
#include "harness/variant.h"

extern const sb_workload sb_workload_copies;

static int ngpus;
static int devices[SB_MAX_DEVICES];

/* GPUs a variant needs, and what one run moves in units of the payload (besides the download) */
static const struct {
    const char *name;
    int gpus;
    uint64_t h2d, d2h, peer;
} variants[] = {
    {"host-to-gpu", 1, 1, 0, 0},
    {"gpu-host-gpu", 2, 1, 1, 0},
    {"gpu-peer", 2, 0, 0, 1},
    {"nccl", 2, 0, 0, 1},
};
#define NVARIANTS (sizeof variants / sizeof *variants)

static void set(sb_params *p, const char *name, unsigned long long value)
{
    char text[32];
    snprintf(text, sizeof text, "%llu", value);
    if (sb_params_set(p, name, text) != 0)
        fail_msg("%s=%s: %s", name, text, sb_error());
}

/* Two runs of variant i against ref on one set-up; 0 when it was skipped for want of GPUs. */
static int check(size_t i, const void *model, const sb_params *p, const void *ref, void *got,
                 size_t bytes)
{
    const sb_workload *w = &sb_workload_copies;
    const sb_variant *v = sb_find_variant(w, variants[i].name);
    assert_non_null(v);
    sb_session s;
    int rc = sb_session_open(&s, w, v, model, p, devices, variants[i].gpus == 1 ? 1 : ngpus);
    if (rc == SB_REFUSED && ngpus < variants[i].gpus) {
        if (!strstr(sb_error(), "needs 2 GPUs"))
            fail_msg("%s on %d GPU refused, but says: %s", v->name, ngpus, sb_error());
        sb_session_close(&s);
        return 0;
    }
    if (rc != 0)
        fail_msg("%s, %zu bytes: set-up: %s", v->name, bytes, sb_error());
    char why[512] = "";
    w->output_poison(got);
    if (v->ops->output(s.state, got) != 0)
        fail_msg("%s, %zu bytes: output before any run: %s", v->name, bytes, sb_error());
    if (w->output_equal(model, ref, got, why, sizeof why))
        fail_msg("%s, %zu bytes: the destination holds the payload before any run", v->name,
                 bytes);
    sb_transfers before = s.env.xfer;
    for (int run = 1; run <= 2; run++) {
        rc = sb_session_validate(&s, ref, got, why, sizeof why);
        if (rc != 0)
            fail_msg("%s, %zu bytes, run %d: %s", v->name, bytes, run,
                     rc == 1 ? why : sb_error());
    }
    const sb_transfers *after = &s.env.xfer;
    uint64_t b = bytes;
    if (after->h2d - before.h2d != 2 * variants[i].h2d * b ||
        after->d2h - before.d2h != 2 * (variants[i].d2h + 1) * b ||
        after->peer - before.peer != 2 * variants[i].peer * b || after->d2d != before.d2d)
        fail_msg("%s, %zu bytes: two runs and downloads counted h2d %llu, d2h %llu, peer %llu, "
                 "d2d %llu",
                 v->name, bytes, (unsigned long long)(after->h2d - before.h2d),
                 (unsigned long long)(after->d2h - before.d2h),
                 (unsigned long long)(after->peer - before.peer),
                 (unsigned long long)(after->d2d - before.d2d));
    sb_session_close(&s);
    return 1;
}

static void every_variant(void **unused)
{
    (void)unused;
    const sb_workload *w = &sb_workload_copies;
    const size_t sizes[] = {4, 5, 4099, 32768, 1048583, (64u << 20) + 3};
    int checked = 0, skipped = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        sb_params p;
        sb_params_init(&p, w->params, w->nparams);
        set(&p, "bytes", sizes[k]);
        set(&p, "seed", 1 + 7919 * k);
        void *model = NULL;
        if (w->load(&p, &model) != 0)
            fail_msg("%zu bytes: %s", sizes[k], sb_error());
        void *ref = w->output_new(model), *got = w->output_new(model);
        assert_non_null(ref);
        assert_non_null(got);
        if (sb_run_once(w, sb_find_variant(w, "cpu-memcpy"), model, &p, NULL, 0, ref) != 0)
            fail_msg("cpu-memcpy, %zu bytes: %s", sizes[k], sb_error());
        for (size_t i = 0; i < NVARIANTS; i++) {
            int ran = check(i, model, &p, ref, got, sizes[k]);
            checked += ran;
            skipped += !ran;
        }
        w->output_free(ref);
        w->output_free(got);
        w->free_model(model);
    }
    printf("%d variant and size pairs bitwise equal to cpu-memcpy, twice each, transfers "
           "counted; %d skipped (this machine has %d GPU%s)\n",
           checked, skipped, ngpus, ngpus == 1 ? "" : "s");
}

int main(void)
{
    ngpus = sb_device_count();
    if (ngpus == 0) {
        printf("SKIPPED: %s\n", sb_no_device_reason());
        return 77;
    }
    if (ngpus > SB_MAX_DEVICES)
        ngpus = SB_MAX_DEVICES;
    for (int i = 0; i < ngpus; i++)
        devices[i] = i;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_variant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
