/* The sampling rules of harness/sampling.h on a CPU, with made-up run times and a made-up clock:
 * how many runs make a sample, when sampling stops and which reason the record gives, the
 * warm-up, and the noise measures on samples with a burst of slow runs. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "harness/measure.h"
#include "harness/sampling.h"

/* A variant whose runs take `base` seconds, times (1 + spread x a uniform draw in [-1, 1]); runs
 * burst_from..burst_to (counted from the first, warm-up included) are `burst` times slower; the
 * run numbered fail_at fails. The clock advances by each run's time plus 10 us of host time. */
typedef struct fake {
    double base, spread, burst;
    long burst_from, burst_to, fail_at;
    double clock;
    long runs;           /* runs so far */
    int calls, warmup_calls, runs_of_call[4096];
    unsigned long long lcg;
} fake;

static double uniform(fake *f) /* in [-1, 1] */
{
    f->lcg = f->lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(f->lcg >> 11) / (double)(1ull << 53) * 2 - 1;
}

static int fake_sample(void *ctx, int runs, int warmup, double *time_s, double *wall_s)
{
    fake *f = ctx;
    double sum = 0;
    f->warmup_calls += warmup;
    if (f->calls < 4096)
        f->runs_of_call[f->calls] = runs;
    f->calls++;
    for (int i = 0; i < runs; i++, f->runs++) {
        if (f->runs == f->fail_at)
            return -1;
        double t = f->base * (1 + f->spread * uniform(f));
        if (f->runs >= f->burst_from && f->runs <= f->burst_to)
            t *= f->burst;
        sum += t;
        f->clock += t + 1e-5;
    }
    *time_s = *wall_s = sum / runs;
    return 0;
}

static double fake_now(void *ctx) { return ((fake *)ctx)->clock; }

static fake steady(double base, double spread)
{
    fake f = {.base = base, .spread = spread, .burst = 1, .burst_from = -1, .burst_to = -1,
              .fail_at = -1, .lcg = 12345};
    return f;
}

static sb_measure_options defaults(void)
{
    sb_measure_options o;
    sb_measure_defaults(&o);
    return o;
}

static int agree_calls;
static int agree_identity(int decision)
{
    agree_calls++;
    return decision;
}

static sb_result sample(const sb_measure_options *o, fake *f, int expect_rc)
{
    sb_result res;
    memset(&res, 0, sizeof res);
    sb_sampler s = {f, fake_sample, fake_now, NULL};
    assert_int_equal(sb_sample(o, &s, &res), expect_rc);
    return res;
}

static void free_result(sb_result *r)
{
    free(r->time_samples);
    free(r->wall_samples);
}

/* Runs per sample: enough for sample_time, one when a run is that long, capped. */
static void batching_decision(void **unused)
{
    (void)unused;
    assert_int_equal(sb_runs_per_sample(1e-3, 0.05), 50);
    assert_int_equal(sb_runs_per_sample(0.03, 0.05), 2);      /* 60 ms: at least 50 */
    assert_int_equal(sb_runs_per_sample(0.0499, 0.05), 2);
    assert_int_equal(sb_runs_per_sample(0.05, 0.05), 1);      /* long enough alone */
    assert_int_equal(sb_runs_per_sample(2.0, 0.05), 1);
    assert_int_equal(sb_runs_per_sample(1e-3, 0), 1);         /* --sample-time 0: one run */
    assert_int_equal(sb_runs_per_sample(1e-9, 0.05), SB_MAX_RUNS_PER_SAMPLE);
    assert_int_equal(sb_runs_per_sample(0, 0.05), SB_MAX_RUNS_PER_SAMPLE); /* below the timer */
    assert_int_equal(sb_runs_per_sample(NAN, 0.05), 1);
}

/* The rule: noise under the target, else the median pinned down within it, else the timeout;
 * neither of the first two before min-samples and min-time. */
static void stop_rule(void **unused)
{
    (void)unused;
    sb_measure_options o = defaults(); /* 1 %, 10 samples, 0.5 s, 20 s */
    sb_stats t = {.n = 10, .noise = 0.05, .noise_robust = 0.004, .median_ci = INFINITY};
    assert_int_equal(sb_stop_rule(&o, &t, 0.6), SB_STOP_NOISE);
    assert_int_equal(sb_stop_rule(&o, &t, 0.4), SB_STOP_NONE);   /* before min-time */
    t.n = 9;
    assert_int_equal(sb_stop_rule(&o, &t, 0.6), SB_STOP_NONE);   /* before min-samples */
    assert_int_equal(sb_stop_rule(&o, &t, 20.0), SB_STOP_TIMEOUT);
    t.n = 40;
    t.noise_robust = 0.03;
    assert_int_equal(sb_stop_rule(&o, &t, 1.0), SB_STOP_NONE);   /* wide, median not pinned */
    t.median_ci = 0.009;
    assert_int_equal(sb_stop_rule(&o, &t, 1.0), SB_STOP_CONVERGED);
    t.median_ci = 0.02;
    assert_int_equal(sb_stop_rule(&o, &t, 25.0), SB_STOP_TIMEOUT);
    /* --noise-measure stdev reads stdev/mean */
    o.noise_measure = SB_NOISE_STDEV;
    t.noise_robust = 0.001;
    t.noise = 0.05;
    assert_int_equal(sb_stop_rule(&o, &t, 1.0), SB_STOP_NONE);
    t.noise = 0.005;
    assert_int_equal(sb_stop_rule(&o, &t, 1.0), SB_STOP_NOISE);
    /* max-noise 0: never low enough, always the timeout */
    o.max_noise = 0;
    t.noise = t.noise_robust = t.median_ci = 0;
    assert_int_equal(sb_stop_rule(&o, &t, 1.0), SB_STOP_NONE);
    assert_int_equal(sb_stop_rule(&o, &t, 20.0), SB_STOP_TIMEOUT);
    assert_string_equal(sb_stop_name(SB_STOP_NOISE), "noise");
    assert_string_equal(sb_stop_name(SB_STOP_CONVERGED), "converged");
    assert_string_equal(sb_stop_name(SB_STOP_TIMEOUT), "timeout");
    assert_null(sb_stop_name(SB_STOP_NONE));
}

/* 1 ms runs, 0.1 % spread: warm-up for 50 ms, samples of 50 runs, stop on the noise at 0.5 s. */
static void steady_runs_stop_on_noise(void **unused)
{
    (void)unused;
    sb_measure_options o = defaults();
    fake f = steady(1e-3, 0.001);
    sb_result r = sample(&o, &f, 0);
    assert_string_equal(r.stop_reason, "noise");
    assert_non_null(strstr(r.stop_detail, "robust noise"));
    /* 50 ms over the warm-up's median run, 1 ms +- 0.1 %: 50 or 51 */
    assert_true(r.runs_per_sample == 50 || r.runs_per_sample == 51);
    assert_true(r.warmup_runs >= 45 && r.warmup_runs <= 55); /* 50 ms of 1 ms runs */
    assert_int_equal(f.warmup_calls, r.warmup_runs);
    for (int i = 0; i < f.warmup_calls; i++)
        assert_int_equal(f.runs_of_call[i], 1);
    for (int i = f.warmup_calls; i < f.calls; i++)
        assert_int_equal(f.runs_of_call[i], r.runs_per_sample);
    assert_int_equal(r.nsamples, 10); /* 10 x 50 ms reach min-time 0.5 s */
    assert_true(fabs(r.time.median - 1e-3) < 1e-5);
    assert_true(r.time.noise_robust < 0.01);
    free_result(&r);

    /* --sample-time 0: every sample one run, as before batching */
    o.sample_time = 0;
    f = steady(1e-3, 0.001);
    r = sample(&o, &f, 0);
    assert_int_equal(r.runs_per_sample, 1);
    assert_true(r.nsamples >= 490); /* 0.5 s of 1 ms samples */
    free_result(&r);
}

/* A burst of slow runs (3 x, 25 runs): stdev/mean stays far above the target however many
 * samples follow (sampling ends only because the median is pinned down: converged); the robust
 * measure reads the bulk of the samples and stops on the noise. */
static void a_burst_times_out_stdev_not_robust(void **unused)
{
    (void)unused;
    sb_measure_options o = defaults();
    o.sample_time = 0; /* samples of one run, as the committed records were taken */
    o.timeout = 2;
    fake f = steady(1e-3, 0.002);
    f.burst = 3;
    f.burst_from = 100;
    f.burst_to = 124;
    o.noise_measure = SB_NOISE_STDEV;
    sb_result r = sample(&o, &f, 0);
    assert_string_equal(r.stop_reason, "converged");
    assert_true(r.time.noise > 0.05);
    assert_non_null(strstr(r.stop_detail, "stdev/mean"));
    free_result(&r);

    o.noise_measure = SB_NOISE_ROBUST;
    f = steady(1e-3, 0.002);
    f.burst = 3;
    f.burst_from = 100;
    f.burst_to = 124;
    r = sample(&o, &f, 0);
    assert_string_equal(r.stop_reason, "noise");
    assert_true(r.time.noise > 0.05);          /* recorded as it is */
    assert_true(r.time.noise_robust < 0.005);  /* the bulk of the samples */
    assert_true(fabs(r.time.median / 1e-3 - 1) < 0.002);
    free_result(&r);
}

/* Runs spread +-5 %: the noise never gets under 1 %, but the median is pinned down within 1 %
 * after some hundred samples: "converged", long before the timeout. */
static void wide_runs_converge(void **unused)
{
    (void)unused;
    sb_measure_options o = defaults();
    o.sample_time = 0;
    fake f = steady(1e-3, 0.05);
    sb_result r = sample(&o, &f, 0);
    assert_string_equal(r.stop_reason, "converged");
    assert_true(r.time.noise_robust > 0.01);
    assert_true(r.time.median_ci < 0.01);
    assert_non_null(strstr(r.stop_detail, "median known to"));
    assert_true(f.clock < 2); /* far from the 20 s timeout */
    free_result(&r);
}

/* --warmup 0: no warm-up, the first sample is one run and decides the rest; --warmup 3 with
 * --warmup-time 0: three runs; a run longer than --sample-time: one run a sample. */
static void warm_up_and_first_sample(void **unused)
{
    (void)unused;
    sb_measure_options o = defaults();
    o.warmup_runs = 0;
    fake f = steady(2e-3, 0.001);
    sb_result r = sample(&o, &f, 0);
    assert_int_equal(r.warmup_runs, 0);
    assert_int_equal(f.warmup_calls, 0);
    assert_int_equal(f.runs_of_call[0], 1);
    assert_true(r.runs_per_sample == 25 || r.runs_per_sample == 26); /* 50 ms of 2 ms runs */
    for (int i = 1; i < f.calls; i++)
        assert_int_equal(f.runs_of_call[i], r.runs_per_sample);
    free_result(&r);

    o = defaults();
    o.warmup_runs = 3;
    o.warmup_time = 0;
    f = steady(0.2, 0.001);
    r = sample(&o, &f, 0);
    assert_int_equal(r.warmup_runs, 3);
    assert_int_equal(r.runs_per_sample, 1);
    assert_int_equal(r.nsamples, 10);
    assert_string_equal(r.stop_reason, "noise");
    free_result(&r);
}

/* A failing run: in the warm-up 1, while sampling -1. */
static void failures(void **unused)
{
    (void)unused;
    sb_measure_options o = defaults();
    fake f = steady(1e-3, 0.001);
    f.fail_at = 0;
    sb_result r = sample(&o, &f, 1);
    free_result(&r);
    f = steady(1e-3, 0.001);
    f.fail_at = 200;
    r = sample(&o, &f, -1);
    free_result(&r);
}

/* Processes in lockstep take every decision through agree: each warm-up step, the batch size and
 * each stop. */
static void lockstep_decisions_are_agreed(void **unused)
{
    (void)unused;
    sb_measure_options o = defaults();
    fake f = steady(1e-3, 0.001);
    sb_result res;
    memset(&res, 0, sizeof res);
    sb_sampler s = {&f, fake_sample, fake_now, agree_identity};
    agree_calls = 0;
    assert_int_equal(sb_sample(&o, &s, &res), 0);
    assert_int_equal(agree_calls, (res.warmup_runs + 1) + 1 + res.nsamples);
    free_result(&res);
}

/* Many short samples (statistics every 2 % past 100 samples) still end on the timeout with the
 * statistics of every sample. */
static void many_samples(void **unused)
{
    (void)unused;
    sb_measure_options o = defaults();
    o.sample_time = 0;
    o.max_noise = 0;
    o.timeout = 1;
    fake f = steady(1e-4, 0.01);
    sb_result r = sample(&o, &f, 0);
    assert_string_equal(r.stop_reason, "timeout");
    assert_true(r.nsamples > 5000);
    assert_int_equal(r.time.n, r.nsamples);
    assert_int_equal(r.wall.n, r.nsamples);
    free_result(&r);
}

/* The statistics the rule reads: the robust noise of normal-ish samples is close to stdev/mean;
 * the median's interval needs 8 samples. */
static void robust_statistics(void **unused)
{
    (void)unused;
    double x[2001];
    fake f = steady(1, 0);
    for (int i = 0; i < 2001; i++) { /* a sum of 12 uniforms: nearly normal, sd 0.02 */
        double s = 0;
        for (int k = 0; k < 12; k++)
            s += (uniform(&f) + 1) / 2;
        x[i] = 1 + 0.02 * (s - 6);
    }
    sb_stats st;
    sb_stats_compute(x, 2001, &st);
    assert_true(fabs(st.noise - 0.02) < 0.002);
    assert_true(fabs(st.noise_robust - 0.02) < 0.002);
    assert_true(st.median_ci > 0 && st.median_ci < 0.002);
    double few[7] = {1, 2, 3, 4, 5, 6, 7};
    sb_stats_compute(few, 7, &st);
    assert_true(isinf(st.median_ci));
    sb_stats_compute(few, 1, &st);
    assert_true(st.noise_robust == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(batching_decision),
        cmocka_unit_test(stop_rule),
        cmocka_unit_test(steady_runs_stop_on_noise),
        cmocka_unit_test(a_burst_times_out_stdev_not_robust),
        cmocka_unit_test(wide_runs_converge),
        cmocka_unit_test(warm_up_and_first_sample),
        cmocka_unit_test(failures),
        cmocka_unit_test(lockstep_decisions_are_agreed),
        cmocka_unit_test(many_samples),
        cmocka_unit_test(robust_statistics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
