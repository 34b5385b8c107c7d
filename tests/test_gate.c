/* The regression gate's decision (harness/gate.h) on simulated sessions: its false alarms over
 * 10,000 A-vs-A gate runs, its power against 2 % and 3 % slow-downs, the shape test, the order
 * of the rounds, and the KS test against exact values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/gate.h"

/* splitmix64 and Box-Muller: the same noise on every machine. */
static uint64_t rng_state;
static double uniform01(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
    return sqrt(-2 * log(uniform01())) * cos(6.283185307179586 * uniform01());
}

/* A simulated session: one benchmark a line, each process's median log-normal around its level
 * with the spread `sd` between processes; `tail` of the processes (either build) run 5 % slow,
 * as a process that lands on a bad placement does; the head's level is `effect` higher, and
 * with `bimodal` the head's processes land at +-bimodal at random. */
typedef struct sim {
    int lines;
    double sd[8], effect[8], tail, bimodal[8];
} sim;

/* The H100's spread between processes of one session for the six gated benchmarks
 * (results/baselines/h100-80gb-hbm3/ci-gate/calibration.txt, "within"). */
static const double h100_within[6] = {0.0035, 0.0103, 0.0153, 0.0073, 0.0074, 0.0074};

static int sim_round(void *ctx, sb_gate *g, int line, int k)
{
    sim *s = ctx;
    (void)k;
    double base = 1e-3 * exp(s->sd[line] * gauss());
    double head = 1e-3 * exp(s->effect[line] + s->sd[line] * gauss());
    if (uniform01() < s->tail)
        base *= 1.05;
    if (uniform01() < s->tail)
        head *= 1.05;
    if (s->bimodal[line] > 0)
        head *= uniform01() < 0.5 ? 1 + s->bimodal[line] : 1 - s->bimodal[line];
    char name[32];
    snprintf(name, sizeof name, "w/b%d/n:1", line);
    sb_gate_bench *b = sb_gate_bench_of(g, line, name);
    assert_non_null(b);
    return sb_gate_add_pair(b, base, head, 0);
}

static sb_gate *simulate(sim *s)
{
    sb_gate *g = calloc(1, sizeof *g);
    assert_non_null(g);
    g->opt = sb_gate_defaults();
    g->nlines = s->lines;
    assert_int_equal(sb_gate_run(g, sim_round, s), 0);
    return g;
}

static sim h100_session(double tail)
{
    sim s = {.lines = 6, .tail = tail};
    memcpy(s.sd, h100_within, sizeof h100_within);
    return s;
}

/* 10,000 A-vs-A gate runs of the six benchmarks, 2 % of processes 5 % slow: at most 1 % of the
 * runs fail (the goal), and most end SAME. */
static void test_false_alarms(void **state)
{
    (void)state;
    rng_state = 1;
    int runs = 10000, failed = 0, unsure = 0;
    long rounds = 0;
    for (int r = 0; r < runs; r++) {
        sim s = h100_session(0.02);
        sb_gate *g = simulate(&s);
        failed += sb_gate_failed(g);
        for (int i = 0; i < g->nbenches; i++) {
            unsure += g->bench[i].verdict == SB_GATE_UNSURE;
            rounds += g->bench[i].n;
        }
        free(g);
    }
    printf("A-vs-A: %d of %d simulated gate runs failed (%.2f %%), %.2f %% of verdicts UNSURE, "
           "%.1f rounds a benchmark\n", failed, runs, 100.0 * failed / runs,
           100.0 * unsure / (6.0 * runs), rounds / (6.0 * runs));
    assert_true(failed <= runs / 100);
    assert_true(unsure <= 6 * runs / 20);
}

/* Slow-downs of the benchmark with the H100's 1.03 % spread (rdme gpu): 3 % caught in >= 95 %
 * of gate runs, 2 % in >= 80 % (the goals), each on its own. */
static void test_power(void **state)
{
    (void)state;
    static const double effect[] = {0.03, 0.02};
    static const double goal[] = {0.95, 0.80};
    for (int e = 0; e < 2; e++) {
        rng_state = 7 + e;
        int runs = 2000, caught = 0;
        for (int r = 0; r < runs; r++) {
            sim s = h100_session(0.02);
            s.effect[1] = log1p(effect[e]);
            sb_gate *g = simulate(&s);
            caught += g->bench[1].verdict == SB_GATE_SLOWER;
            free(g);
        }
        printf("%.0f %% slower at a 1.03 %% spread: caught in %d of %d gate runs\n",
               100 * effect[e], caught, runs);
        assert_true(caught >= goal[e] * runs);
    }
}

/* The head's processes split into two modes 3 % either side of the base's level: the mean
 * ratio stays 1 and its interval lies within the SAME margins, yet the KS part of the shape
 * test sees the change and keeps the benchmark from SAME. Decided once at 30 rounds: the KS
 * test needs about 20 to see this, and a gate that reaches SAME at an earlier look stops
 * before (docs/regression-gate.md). */
static void test_shape(void **state)
{
    (void)state;
    rng_state = 3;
    int runs = 200, same = 0, shape = 0, interval_same = 0;
    for (int r = 0; r < runs; r++) {
        sim s = {.lines = 1, .sd = {0.001}, .bimodal = {0.03}};
        sb_gate *g = calloc(1, sizeof *g);
        assert_non_null(g);
        g->opt = sb_gate_defaults();
        g->opt.rounds = g->opt.max_rounds = 30;
        g->nlines = 1;
        assert_int_equal(sb_gate_run(g, sim_round, &s), 0);
        const sb_gate_bench *b = &g->bench[0];
        same += b->verdict == SB_GATE_SAME;
        shape += b->shape_changed;
        interval_same += b->lo >= 0.98 && b->hi <= 1.02;
        free(g);
    }
    printf("two modes at +-3 %%, 30 rounds: the interval alone says SAME in %d of %d runs, the "
           "gate in %d (shape changed in %d)\n", interval_same, runs, same, shape);
    assert_true(interval_same >= runs * 85 / 100);
    assert_true(same <= runs / 10);
    assert_true(shape >= runs * 8 / 10);
}

/* Pairs made to order: the verdicts at their margins. */
static void add_pairs(sb_gate *g, const char *name, double ratio, double jitter, int n)
{
    sb_gate_bench *b = sb_gate_bench_of(g, 0, name);
    assert_non_null(b);
    for (int k = 0; k < n; k++) {
        double base = 1e-3 * (1 + jitter * ((k * 7) % 5 - 2));
        assert_int_equal(sb_gate_add_pair(b, base, base * ratio * (1 + jitter * ((k * 3) % 5 - 2)),
                                          0),
                         0);
    }
}

static void test_verdicts(void **state)
{
    (void)state;
    sb_gate g = {.opt = sb_gate_defaults(), .nlines = 1};
    add_pairs(&g, "slower", 1.05, 0.001, 10);
    add_pairs(&g, "faster", 0.95, 0.001, 10);
    add_pairs(&g, "same", 1.002, 0.001, 10);
    add_pairs(&g, "unsure", 1.015, 0.01, 10);
    sb_gate_bench *invalid = sb_gate_bench_of(&g, 0, "now-invalid");
    assert_int_equal(sb_gate_add_pair(invalid, 1e-3, 1e-3, 0), 0);
    assert_int_equal(sb_gate_add_pair(invalid, 1e-3, 0, 0), 0); /* the head's record: invalid */
    sb_gate_bench *new_one = sb_gate_bench_of(&g, 0, "only-in-head");
    assert_int_equal(sb_gate_add_pair(new_one, 0, 1e-3, 0), 0);
    sb_gate_decide(&g);
    assert_int_equal(g.bench[0].verdict, SB_GATE_SLOWER);
    assert_true(g.bench[0].lo > 1.01 && fabs(g.bench[0].ratio - 1.05) < 0.002);
    assert_int_equal(g.bench[1].verdict, SB_GATE_FASTER);
    assert_int_equal(g.bench[2].verdict, SB_GATE_SAME);
    assert_int_equal(g.bench[3].verdict, SB_GATE_UNSURE);
    assert_true(g.bench[3].lo < 1.01 && g.bench[3].hi > 1.01);
    assert_int_equal(g.bench[4].verdict, SB_GATE_NOW_INVALID);
    assert_int_equal(g.bench[5].verdict, SB_GATE_NOT_COMPARABLE);
    assert_int_equal(sb_gate_failed(&g), 1);
    assert_true(strcmp(sb_gate_verdict_name(SB_GATE_UNSURE), "UNSURE") == 0);
}

/* The order of the rounds: round k of every line before round k + 1 of any; afterwards only
 * the lines with an UNSURE benchmark, `step` at a time, never past the cap. */
typedef struct order_log {
    int n, line[256], k[256];
    double effect[4], sd[4];
} order_log;

static int logged_round(void *ctx, sb_gate *g, int line, int k)
{
    order_log *o = ctx;
    o->line[o->n] = line;
    o->k[o->n++] = k;
    char name[16];
    snprintf(name, sizeof name, "b%d", line);
    double noise = o->sd[line] * (k % 2 ? 1 : -1);
    return sb_gate_add_pair(sb_gate_bench_of(g, line, name), 1e-3,
                            1e-3 * (1 + o->effect[line] + noise), 0);
}

static void test_round_order(void **state)
{
    (void)state;
    static order_log o; /* line 0 is plainly SAME, line 1 sits on the threshold for good */
    memset(&o, 0, sizeof o);
    o.effect[1] = 0.01;
    o.sd[0] = 0.0005;
    o.sd[1] = 0.03;
    sb_gate g = {.opt = sb_gate_defaults(), .nlines = 2};
    g.opt.max_rounds = 12;
    assert_int_equal(sb_gate_run(&g, logged_round, &o), 0);
    for (int i = 0; i < 2 * g.opt.rounds; i++) {
        assert_int_equal(o.line[i], i % 2);
        assert_int_equal(o.k[i], i / 2);
    }
    for (int i = 2 * g.opt.rounds; i < o.n; i++)
        assert_int_equal(o.line[i], 1);
    assert_int_equal(g.rounds[0], g.opt.rounds);
    assert_int_equal(g.rounds[1], 12);
    assert_int_equal(g.bench[1].verdict, SB_GATE_UNSURE);
    assert_int_equal(g.bench[0].verdict, SB_GATE_SAME);
}

/* Exact p-values (scipy.stats.ks_2samp's method='exact', and counting all 11,440 orders for the
 * unequal sizes). */
static void test_ks(void **state)
{
    (void)state;
    double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10}, c[] = {2, 4, 6, 8, 10};
    double odd[] = {1, 3, 5, 7, 9}, d;
    assert_true(fabs(sb_ks_test(a, 5, b, 5, &d) - 2.0 / 252) < 1e-12);
    assert_true(d == 1);
    assert_true(fabs(sb_ks_test(odd, 5, c, 5, &d) - 1) < 1e-12);
    assert_true(fabs(d - 0.2) < 1e-12);
    double x[] = {0.1, 0.5, 0.9, 1.3, 2.0, 2.2, 3.1};
    double y[] = {0.3, 1.1, 1.2, 2.5, 2.6, 2.7, 3.3, 4.0, 4.1};
    assert_true(fabs(sb_ks_test(x, 7, y, 9, &d) - 0.1687062937062937) < 1e-9);
    assert_true(fabs(d - 0.5238095238095238) < 1e-12);
}

static void test_options_and_mde(void **state)
{
    (void)state;
    sb_gate_options o = sb_gate_defaults();
    assert_int_equal(sb_gate_check_options(&o), 0);
    /* every gated benchmark can catch 3 %: the H100's spreads all give an mde under it */
    for (int i = 0; i < 6; i++)
        assert_true(sb_gate_detectable(&o, 6, h100_within[i] * sqrt(2)) < 0.03);
    /* procell gpu-histogram's 3.75 % cannot (ci.suite leaves it out) */
    assert_true(sb_gate_detectable(&o, 6, 0.0375 * sqrt(2)) > 0.03);
    o.same_within = o.threshold;
    assert_int_equal(sb_gate_check_options(&o), -1);
    o = sb_gate_defaults();
    o.max_rounds = SB_GATE_MAX_ROUNDS + 1;
    assert_int_equal(sb_gate_check_options(&o), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ks),
        cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_round_order),
        cmocka_unit_test(test_options_and_mde),
        cmocka_unit_test(test_shape),
        cmocka_unit_test(test_power),
        cmocka_unit_test(test_false_alarms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
