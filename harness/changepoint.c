#include "changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/base/error.h"

sb_cp_options sb_cp_defaults(void)
{
    return (sb_cp_options){.min_segment = 3, .permutations = 199, .alpha = 0.05,
                           .seed = SB_CP_SEED};
}

/* splitmix64 (Steele, Lea & Flood 2014): small, fast, and the same numbers on every machine. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, bound): draws past the largest multiple of bound are redrawn, so that no value
 * is favoured. */
static int random_below(uint64_t *state, int bound)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % (uint64_t)bound, r;
    do
        r = next_random(state);
    while (r >= limit);
    return (int)(r % (uint64_t)bound);
}

/* Scratch for a scan, n + 1 values each. */
typedef struct scan_space {
    double *left;  /* left[t]: sum of |v_i - v_j| over pairs i < j < t */
    double *right; /* right[t]: the same over pairs t <= i < j */
} scan_space;

/* The best split of the segment v_i = x[order[i]], start <= i < end: the tau (start + min_segment
 * <= tau <= end - min_segment) that maximizes the energy statistic
 *   Q = m k / (m + k) * (2 / (m k) * cross - within_X / C(m, 2) - within_Y / C(k, 2)),
 * X = v[start..tau) (m values), Y = v[tau..end) (k values). The pair sums come from prefix sums
 * over the segment, so a scan is O(L^2) for L values, not O(L^3). Returns Q (-INFINITY when the
 * segment is too short to split), the first tau of the largest Q in *tau. */
static double best_split(const double *x, const int *order, int start, int end, int min_segment,
                         const scan_space *s, int *tau)
{
    int length = end - start;
    if (length < 2 * min_segment)
        return -INFINITY;
    const int *o = order + start;
    s->left[0] = 0;
    for (int t = 0; t < length; t++) {
        double sum = 0;
        for (int i = 0; i < t; i++)
            sum += fabs(x[o[i]] - x[o[t]]);
        s->left[t + 1] = s->left[t] + sum;
    }
    s->right[length] = 0;
    for (int t = length - 1; t >= 0; t--) {
        double sum = 0;
        for (int j = t + 1; j < length; j++)
            sum += fabs(x[o[t]] - x[o[j]]);
        s->right[t] = s->right[t + 1] + sum;
    }
    double total = s->left[length], best = -INFINITY;
    for (int t = min_segment; t <= length - min_segment; t++) {
        double m = t, k = length - t;
        double cross = total - s->left[t] - s->right[t];
        double energy = 2 * cross / (m * k) - 2 * s->left[t] / (m * (m - 1)) -
                        2 * s->right[t] / (k * (k - 1));
        double q = m * k / (m + k) * energy;
        if (q > best) {
            best = q;
            *tau = start + t;
        }
    }
    return best;
}

/* The largest best_split over the segments [bounds[i], bounds[i + 1]); its segment in *segment
 * and split in *tau. */
static double best_over_segments(const double *x, const int *order, const int *bounds,
                                 int nsegments, int min_segment, const scan_space *s,
                                 int *segment, int *tau)
{
    double best = -INFINITY;
    for (int i = 0; i < nsegments; i++) {
        int t;
        double q = best_split(x, order, bounds[i], bounds[i + 1], min_segment, s, &t);
        if (q > best) {
            best = q;
            *segment = i;
            *tau = t;
        }
    }
    return best;
}

int sb_changepoints(const double *x, int n, const sb_cp_options *opt, int *points,
                    double *p_values, int max_points)
{
    sb_cp_options o = opt ? *opt : sb_cp_defaults();
    if (o.min_segment < 2 || o.permutations < 1 || !(o.alpha > 0 && o.alpha <= 1) || n < 0 ||
        max_points < 0)
        return sb_fail("change points: bad options (min_segment %d >= 2, permutations %d >= 1, "
                       "alpha %g in (0, 1], n %d and max_points %d >= 0)", o.min_segment,
                       o.permutations, o.alpha, n, max_points);
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return sb_fail("change points: value %d of %d is %g, not a finite number", i, n,
                           x[i]);

    int *order = malloc((size_t)(n + 1) * sizeof *order);
    int *bounds = malloc((size_t)(max_points + 2) * sizeof *bounds);
    double *pv = malloc((size_t)(max_points + 1) * sizeof *pv);
    scan_space space = {malloc((size_t)(n + 1) * sizeof(double)),
                        malloc((size_t)(n + 1) * sizeof(double))};
    int found = -1;
    if (!order || !bounds || !pv || !space.left || !space.right) {
        sb_fail("change points: out of memory for %d values", n);
        goto done;
    }

    /* bounds[0..nsegments] are the segments' starts and n, ascending; pv[i] is the p-value of
     * the point bounds[i] (1 <= i < nsegments). */
    int nsegments = 1;
    bounds[0] = 0;
    bounds[1] = n;
    uint64_t state = o.seed;
    while (nsegments - 1 < max_points) {
        for (int i = 0; i < n; i++)
            order[i] = i;
        int segment = 0, tau = 0, ignored_segment, ignored_tau;
        double observed = best_over_segments(x, order, bounds, nsegments, o.min_segment, &space,
                                             &segment, &tau);
        if (observed == -INFINITY)
            break;
        /* Under "no further change" every order of the values inside each current segment is
         * as likely as the one observed: the p-value is the share of such orders (the observed
         * one counted too) whose best split is at least as strong. */
        int as_strong = 0;
        for (int r = 0; r < o.permutations; r++) {
            for (int i = 0; i < nsegments; i++)
                for (int j = bounds[i + 1] - 1; j > bounds[i]; j--) {
                    int k = bounds[i] + random_below(&state, j - bounds[i] + 1);
                    int swap = order[j];
                    order[j] = order[k];
                    order[k] = swap;
                }
            if (best_over_segments(x, order, bounds, nsegments, o.min_segment, &space,
                                   &ignored_segment, &ignored_tau) >= observed)
                as_strong++;
        }
        double p = (as_strong + 1.0) / (o.permutations + 1.0);
        if (p >= o.alpha)
            break;
        memmove(bounds + segment + 2, bounds + segment + 1,
                (size_t)(nsegments - segment) * sizeof *bounds);
        memmove(pv + segment + 2, pv + segment + 1,
                (size_t)(nsegments - 1 - segment) * sizeof *pv);
        bounds[segment + 1] = tau;
        pv[segment + 1] = p;
        nsegments++;
    }
    found = nsegments - 1;
    for (int i = 0; i < found; i++) {
        points[i] = bounds[i + 1];
        if (p_values)
            p_values[i] = pv[i + 1];
    }

done:
    free(space.right);
    free(space.left);
    free(pv);
    free(bounds);
    free(order);
    return found;
}
