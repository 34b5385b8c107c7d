#include "gate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/base/error.h"
#include "stats.h"

const char *sb_gate_verdict_name(sb_gate_verdict v)
{
    static const char *const names[] = {"SAME", "SLOWER", "FASTER", "UNSURE", "NOW-INVALID",
                                        "not-comparable"};
    return (unsigned)v < sizeof names / sizeof names[0] ? names[v] : "?";
}

sb_gate_options sb_gate_defaults(void)
{
    return (sb_gate_options){.threshold = 0.01, .same_within = 0.02, .alpha = 0.05,
                             .power = 0.95, .rounds = 6, .step = 3, .max_rounds = 40};
}

int sb_gate_check_options(const sb_gate_options *o)
{
    if (!(o->threshold >= 0 && o->threshold < 1))
        return sb_fail("--threshold must be in [0, 1), e.g. 0.01; got %g", o->threshold);
    if (!(o->same_within > o->threshold && o->same_within < 1))
        return sb_fail("--same-within must be above --threshold (%g) and below 1; got %g",
                       o->threshold, o->same_within);
    if (!(o->alpha > 0 && o->alpha < 0.5))
        return sb_fail("--alpha must be in (0, 0.5); got %g", o->alpha);
    if (o->family < 0 || o->family > SB_GATE_MAX_BENCHES)
        return sb_fail("--family must be from 0 to %d; got %d", SB_GATE_MAX_BENCHES, o->family);
    if (o->rounds < 3 || o->max_rounds < o->rounds || o->max_rounds > SB_GATE_MAX_ROUNDS ||
        o->step < 1)
        return sb_fail("rounds: --rounds (%d) from 3, --max-rounds (%d) from --rounds to %d, "
                       "--step (%d) from 1", o->rounds, o->max_rounds, SB_GATE_MAX_ROUNDS,
                       o->step);
    return 0;
}

sb_gate_bench *sb_gate_bench_of(sb_gate *g, int line, const char *name)
{
    for (int i = 0; i < g->nbenches; i++)
        if (g->bench[i].line == line && strcmp(g->bench[i].name, name) == 0)
            return &g->bench[i];
    if (g->nbenches == SB_GATE_MAX_BENCHES) {
        sb_fail("more than %d benchmarks in one gate: split the suite", SB_GATE_MAX_BENCHES);
        return NULL;
    }
    sb_gate_bench *b = &g->bench[g->nbenches++];
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", name);
    b->line = line;
    return b;
}

int sb_gate_add_pair(sb_gate_bench *b, double base_seconds, double head_seconds, int flagged)
{
    int base_ok = isfinite(base_seconds) && base_seconds > 0;
    int head_ok = isfinite(head_seconds) && head_seconds > 0;
    b->base_invalid += !base_ok;
    b->head_invalid += !head_ok;
    if (!base_ok || !head_ok)
        return 0;
    if (b->n == SB_GATE_MAX_ROUNDS)
        return sb_fail("%s: more than %d rounds", b->name, SB_GATE_MAX_ROUNDS);
    b->base[b->n] = base_seconds;
    b->head[b->n] = head_seconds;
    b->flagged[b->n] = flagged;
    b->n++;
    return 0;
}

static int compare_doubles(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

double sb_ks_test(const double *a, int na, const double *b, int nb, double *d)
{
    *d = 0;
    if (na < 1 || nb < 1 || na > SB_GATE_MAX_ROUNDS || nb > SB_GATE_MAX_ROUNDS)
        return 1;
    double x[SB_GATE_MAX_ROUNDS], y[SB_GATE_MAX_ROUNDS];
    memcpy(x, a, (size_t)na * sizeof *x);
    memcpy(y, b, (size_t)nb * sizeof *y);
    qsort(x, (size_t)na, sizeof *x, compare_doubles);
    qsort(y, (size_t)nb, sizeof *y, compare_doubles);
    /* D on the integer scale: |i nb - j na| after i of a and j of b, checked after each group
     * of equal values. */
    long worst = 0;
    for (int i = 0, j = 0; i < na || j < nb;) {
        double v = j >= nb || (i < na && x[i] <= y[j]) ? x[i] : y[j];
        while (i < na && x[i] == v)
            i++;
        while (j < nb && y[j] == v)
            j++;
        long gap = labs((long)i * nb - (long)j * na);
        worst = gap > worst ? gap : worst;
    }
    *d = (double)worst / ((double)na * nb);
    /* Exact p: under the null every order of the na + nb values is equally likely. stay[j] is
     * the chance that the order's first i + j values are i of a and j of b with the path
     * strictly inside |i nb - j na| < worst so far (probabilities, not counts: no overflow). */
    if (worst == 0)
        return 1;
    double stay[SB_GATE_MAX_ROUNDS + 1];
    for (int i = 0; i <= na; i++) {
        for (int j = 0; j <= nb; j++) {
            double p = i == 0 && j == 0 ? 1 : 0;
            if (i > 0) /* from (i - 1, j) by a value of a */
                p += stay[j] * (na - i + 1) / (double)(na + nb - i - j + 1);
            if (j > 0) /* from (i, j - 1) by a value of b */
                p += stay[j - 1] * (nb - j + 1) / (double)(na + nb - i - j + 1);
            stay[j] = labs((long)i * nb - (long)j * na) < worst ? p : 0;
        }
    }
    double p = 1 - stay[nb];
    return p < 0 ? 0 : p > 1 ? 1 : p;
}

/* Student's t quantiles, remembered: the gate asks for the same few (level, degrees of freedom)
 * at every look, and each takes a bisection over the incomplete beta function. */
static double t_quantile(double upper_tail, int df)
{
    static struct {
        double tail;
        int df;
        double t;
    } memo[256];
    static int n;
    for (int i = 0; i < n; i++)
        if (memo[i].tail == upper_tail && memo[i].df == df)
            return memo[i].t;
    double t = sb_t_quantile(upper_tail, df);
    if (n < (int)(sizeof memo / sizeof memo[0]))
        memo[n++].tail = upper_tail, memo[n - 1].df = df, memo[n - 1].t = t;
    return t;
}

double sb_gate_detectable(const sb_gate_options *o, int m, double sd)
{
    int n = o->max_rounds;
    if (!(sd > 0) || n < 2)
        return sd == 0 && n >= 2 ? o->threshold : INFINITY;
    double q = t_quantile(o->alpha / (2.0 * (m > 0 ? m : 1)), n - 1);
    double z = t_quantile(1 - o->power, n - 1);
    return expm1(log1p(o->threshold) + (q + z) * sd / sqrt(n));
}

static double median_of(const double *x, int n)
{
    sb_stats s;
    sb_stats_compute(x, n, &s);
    return s.median;
}

/* The interval, the tests and the verdict of one benchmark's pairs; m: the benchmarks decided
 * together (the Bonferroni divisor). p_shape is this benchmark's alone until Holm's step. */
static void decide_one(sb_gate_bench *b, const sb_gate_options *o, int m)
{
    double d[SB_GATE_MAX_ROUNDS], la[SB_GATE_MAX_ROUNDS], lb[SB_GATE_MAX_ROUNDS];
    for (int k = 0; k < b->n; k++) {
        la[k] = log(b->base[k]);
        lb[k] = log(b->head[k]);
        d[k] = lb[k] - la[k];
    }
    sb_stats s;
    sb_stats_compute(d, b->n, &s);
    b->sd = s.stdev;
    b->ratio = exp(s.mean);
    double se = s.stdev / sqrt(b->n);
    double q = t_quantile(o->alpha / (2.0 * m), b->n - 1);
    b->lo = exp(s.mean - q * se);
    b->hi = exp(s.mean + q * se);
    if (se > 0)
        b->p_t = sb_t_two_sided_p(s.mean / se, b->n - 1);
    else
        b->p_t = s.mean == 0 ? 1 : 0;
    /* the shape apart from the level: each side about its own median */
    double ma = median_of(la, b->n), mb = median_of(lb, b->n), dks;
    for (int k = 0; k < b->n; k++) {
        la[k] -= ma;
        lb[k] -= mb;
    }
    b->p_ks = sb_ks_test(la, b->n, lb, b->n, &dks);
    double smaller = b->p_t < b->p_ks ? b->p_t : b->p_ks;
    b->p_shape = 2 * smaller < 1 ? 2 * smaller : 1; /* Holm over the two tests: the first step */
    b->mde = sb_gate_detectable(o, m, s.stdev);
}

void sb_gate_decide(sb_gate *g)
{
    const sb_gate_options *o = &g->opt;
    int m = 0;
    for (int i = 0; i < g->nbenches; i++) {
        sb_gate_bench *b = &g->bench[i];
        if (b->base_invalid > 0) {
            b->verdict = SB_GATE_NOT_COMPARABLE;
            b->why = "not valid in base";
        } else if (b->head_invalid > 0) {
            b->verdict = SB_GATE_NOW_INVALID;
            b->why = "valid in base, not in head";
        } else if (b->n < 2) {
            b->verdict = SB_GATE_NOT_COMPARABLE;
            b->why = "fewer than 2 rounds";
        } else {
            b->verdict = SB_GATE_UNSURE; /* decided below */
            m++;
        }
    }
    if (o->family > m)
        m = o->family;
    double p[SB_GATE_MAX_BENCHES], adjusted[SB_GATE_MAX_BENCHES];
    int k = 0;
    for (int i = 0; i < g->nbenches; i++) {
        sb_gate_bench *b = &g->bench[i];
        if (b->verdict != SB_GATE_UNSURE)
            continue;
        decide_one(b, o, m);
        p[k++] = b->p_shape;
    }
    sb_holm(p, k, adjusted);
    k = 0;
    for (int i = 0; i < g->nbenches; i++) {
        sb_gate_bench *b = &g->bench[i];
        if (b->verdict != SB_GATE_UNSURE)
            continue;
        b->p_shape = adjusted[k++];
        /* the KS part found it: the shape about the level, which the interval does not judge */
        b->shape_changed = b->p_shape < o->alpha && b->p_ks <= b->p_t;
        b->why = "";
        if (b->lo > 1 + o->threshold)
            b->verdict = SB_GATE_SLOWER;
        else if (b->hi < 1 - o->threshold)
            b->verdict = SB_GATE_FASTER;
        else if (b->lo >= 1 - o->same_within && b->hi <= 1 + o->same_within)
            b->verdict = b->shape_changed ? SB_GATE_UNSURE : SB_GATE_SAME;
        if (b->verdict != SB_GATE_UNSURE)
            continue;
        if (b->shape_changed && b->lo >= 1 - o->same_within && b->hi <= 1 + o->same_within)
            b->why = "the ratio is within the margins, but the shape changed (KS)";
        else if (b->hi > 1 + o->threshold && b->lo <= 1 + o->threshold)
            b->why = "the interval straddles 1 + threshold";
        else
            b->why = "the interval reaches past 1 - same-within";
    }
}

int sb_gate_line_wants_more(const sb_gate *g, int line)
{
    if (g->rounds[line] >= g->opt.max_rounds)
        return 0;
    for (int i = 0; i < g->nbenches; i++)
        if (g->bench[i].line == line && g->bench[i].verdict == SB_GATE_UNSURE)
            return 1;
    return 0;
}

static int one_round(sb_gate *g, sb_gate_round_fn round, void *ctx, int line)
{
    if (round(ctx, g, line, g->rounds[line]) != 0)
        return -1;
    g->rounds[line]++;
    return 0;
}

int sb_gate_run(sb_gate *g, sb_gate_round_fn round, void *ctx)
{
    /* Round k of every line before round k + 1 of any: the lines' rounds spread over the
     * session alike. */
    for (int k = 0; k < g->opt.rounds; k++)
        for (int line = 0; line < g->nlines; line++)
            if (one_round(g, round, ctx, line) != 0)
                return -1;
    for (;;) {
        sb_gate_decide(g);
        int more[SB_GATE_MAX_LINES], any = 0;
        for (int line = 0; line < g->nlines; line++)
            any |= more[line] = sb_gate_line_wants_more(g, line);
        if (!any)
            return 0;
        for (int k = 0; k < g->opt.step; k++)
            for (int line = 0; line < g->nlines; line++)
                if (more[line] && g->rounds[line] < g->opt.max_rounds &&
                    one_round(g, round, ctx, line) != 0)
                    return -1;
    }
}

int sb_gate_failed(const sb_gate *g)
{
    for (int i = 0; i < g->nbenches; i++)
        if (g->bench[i].verdict == SB_GATE_SLOWER || g->bench[i].verdict == SB_GATE_NOW_INVALID)
            return 1;
    return 0;
}
