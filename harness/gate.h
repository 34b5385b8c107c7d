/* The regression gate's decision: a base build against a head build measured in one session,
 * their processes interleaved round by round (docs/regression-gate.md).
 *
 * Round k of a suite line runs the line once with each build, each a process of its own, in the
 * order A B on even rounds and B A on odd ones (a drift or an order effect then falls on both
 * sides alike). Each benchmark of the line gets one pair of values a round: the two processes'
 * medians. On the pairs' log ratios the gate forms the ratio head / base (their geometric mean)
 * and its interval, at the level 1 - alpha / m for m benchmarks (Bonferroni: every interval
 * holds at once with probability 1 - alpha), and decides:
 *
 *   SLOWER  the whole interval lies above 1 + threshold: slower by more than the threshold
 *   FASTER  the whole interval lies below 1 - threshold
 *   SAME    the whole interval lies within 1 +- same_within, and the shape did not change
 *   UNSURE  none of these yet: the interval straddles a margin, or the KS test sees another
 *           shape; the line then gets `step` more rounds, up to max_rounds (the cap)
 *
 * The shape test: the smaller Holm-adjusted p of the paired t test (the level) and of a
 * two-sample Kolmogorov-Smirnov test on the two sides' values each about its own median (the
 * shape), Holm-adjusted again over the benchmarks; a significant KS part with an interval inside
 * the SAME margins is a change of shape (a new mode, a longer tail) that the ratio alone would
 * call SAME. */
#ifndef SB_GATE_H
#define SB_GATE_H

#ifdef __cplusplus
extern "C" {
#endif

#define SB_GATE_MAX_ROUNDS 64
#define SB_GATE_MAX_BENCHES 64
#define SB_GATE_MAX_LINES 64

typedef enum sb_gate_verdict {
    SB_GATE_SAME,
    SB_GATE_SLOWER,
    SB_GATE_FASTER,
    SB_GATE_UNSURE,
    SB_GATE_NOW_INVALID,    /* valid in base, not in head: fails the gate */
    SB_GATE_NOT_COMPARABLE, /* not valid in base, or measured in no round */
} sb_gate_verdict;

/* "SAME", "SLOWER", ... */
const char *sb_gate_verdict_name(sb_gate_verdict v);

typedef struct sb_gate_options {
    double threshold;   /* SLOWER: the interval wholly above 1 + threshold (default 0.01) */
    double same_within; /* SAME: the interval within 1 +- same_within (default 0.02) */
    double alpha;       /* family-wise error over the benchmarks (default 0.05) */
    double power;       /* the power the minimum detectable effect is stated at (0.95) */
    int rounds;         /* rounds before the first decision (default 6) */
    int step;           /* rounds added to a line with an UNSURE benchmark (default 3) */
    int max_rounds;     /* the cap (default 40) */
    int family;         /* benchmarks alpha is spread over (0: those decided); a replay of part
                           of a suite gives the whole suite's count, as the live gate had it */
} sb_gate_options;

/* The defaults above. */
sb_gate_options sb_gate_defaults(void);
/* Checks the options; -1 with a message naming the bad one. */
int sb_gate_check_options(const sb_gate_options *o);

/* One benchmark of the gate: its pairs, and what the decision made of them. */
typedef struct sb_gate_bench {
    char name[512];
    int line; /* the suite line that measures it */
    int n;    /* pairs */
    double base[SB_GATE_MAX_ROUNDS], head[SB_GATE_MAX_ROUNDS]; /* seconds, a process each */
    int flagged[SB_GATE_MAX_ROUNDS]; /* the pair ran throttled or off the session's clock */
    int base_invalid, head_invalid;  /* processes whose record said not valid */

    sb_gate_verdict verdict;
    const char *why;        /* one phrase: why UNSURE, NOW-INVALID, ... ("" for the rest) */
    double ratio, lo, hi;   /* head / base: geometric mean of the pairs and its interval */
    double sd;              /* standard deviation of the pairs' log ratios */
    double p_t, p_ks;       /* paired t test; KS test about each side's median (two-sided) */
    double p_shape;         /* Holm over both and over the benchmarks */
    double mde;             /* smallest slow-down called SLOWER with `power` by the cap */
    int shape_changed;
} sb_gate_bench;

/* The state of one gate: its benchmarks and the rounds each line has had. */
typedef struct sb_gate {
    sb_gate_options opt;
    int nlines;
    int rounds[SB_GATE_MAX_LINES]; /* rounds run per line */
    int nbenches;
    sb_gate_bench bench[SB_GATE_MAX_BENCHES];
} sb_gate;

/* The benchmark `name` of `line`, added on first sight; NULL (message) when full. */
sb_gate_bench *sb_gate_bench_of(sb_gate *g, int line, const char *name);
/* One round's pair of a benchmark (seconds; a side <= 0 or not finite is a process whose record
 * was not valid). -1 with a message when the benchmark has SB_GATE_MAX_ROUNDS pairs. */
int sb_gate_add_pair(sb_gate_bench *b, double base_seconds, double head_seconds, int flagged);

/* Decides every benchmark from the pairs it has (verdicts, intervals, the shape test, mde). */
void sb_gate_decide(sb_gate *g);

/* Whether line `line` needs more rounds: one of its benchmarks is UNSURE and the line is below
 * the cap. */
int sb_gate_line_wants_more(const sb_gate *g, int line);

/* Runs the gate: `round(ctx, g, line, k)` measures round k of line (it adds the pairs with
 * sb_gate_add_pair and returns 0, or -1 with a message to stop); first opt.rounds rounds of every
 * line, then opt.step more of each line that wants more, until none does. Returns 0, or -1 as
 * `round` did. */
typedef int (*sb_gate_round_fn)(void *ctx, sb_gate *g, int line, int k);
int sb_gate_run(sb_gate *g, sb_gate_round_fn round, void *ctx);

/* 1 when the gate fails: a benchmark SLOWER or NOW-INVALID. */
int sb_gate_failed(const sb_gate *g);

/* Two-sample Kolmogorov-Smirnov test: the statistic D and its exact two-sided p (no ties;
 * lattice paths, for samples of up to SB_GATE_MAX_ROUNDS each, else asymptotic). */
double sb_ks_test(const double *a, int na, const double *b, int nb, double *d);

/* The smallest slow-down (a fraction) that the gate calls SLOWER with probability `power` by
 * the cap, for pairs whose log ratio has standard deviation sd. */
double sb_gate_detectable(const sb_gate_options *o, int m, double sd);

#ifdef __cplusplus
}
#endif

#endif
