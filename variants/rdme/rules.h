/* The rules of one MPD-RDME step that every variant applies the same way, host and device:
 * which draw a particle or a site gets, where a particle moves, which reaction a site fires.
 *
 * Draws: Philox keyed by (seed, step), counter (site index low, high, purpose, slot / 4); slot k
 * uses word k % 4. The site index is the global one, so no decomposition changes a draw.
 * Moves compare the draw with integer thresholds: r < T- moves to the - neighbour,
 * 2^31 <= r < 2^31 + T+ to the + neighbour (each q <= 1/2, so the two ranges never meet and each
 * decision needs only the types on its own side). Reactions go through the shared
 * deterministic math, so host and device pick the same reaction bit for bit. */
#ifndef RD_RULES_H
#define RD_RULES_H

#include <stdint.h>

#include "../../cuda/detmath.h"
#include "../../cuda/hd.h"
#include "../../cuda/rng.h"
#include "model.h"

/* The "to" index past the last type: a neighbour outside a reflecting lattice. */
#define RD_OUTSIDE RD_MAX_TYPES
#define RD_TO_TYPES (RD_MAX_TYPES + 1)
#define RD_THRESHOLD_INDEX(sp, from, to) (((sp) * RD_MAX_TYPES + (from)) * RD_TO_TYPES + (to))
#define RD_THRESHOLDS ((RD_MAX_SPECIES + 1) * RD_MAX_TYPES * RD_TO_TYPES)

SB_HD sb_rng_block rd_draw(uint32_t seed, long long step, uint64_t site, uint32_t purpose,
                           uint32_t group)
{
    return sb_philox(seed, (uint32_t)step, (uint32_t)site, (uint32_t)(site >> 32), purpose,
                     group);
}

/* -1, 0 or +1 for a particle whose draw is r, given its two thresholds. */
SB_HD int rd_move(uint32_t r, uint32_t t_minus, uint32_t t_plus)
{
    if (r < t_minus)
        return -1;
    if (r >= 0x80000000u && r - 0x80000000u < t_plus)
        return 1;
    return 0;
}

/* The reactions as a kernel argument: small, by value. */
typedef struct rd_reaction_table {
    int n;
    int has_order0;
    double tau;
    double rate[RD_MAX_REACTIONS];
    uint16_t where[RD_MAX_REACTIONS];
    uint8_t order[RD_MAX_REACTIONS], a[RD_MAX_REACTIONS], b[RD_MAX_REACTIONS];
    uint8_t nproducts[RD_MAX_REACTIONS];
    uint8_t product[RD_MAX_REACTIONS][RD_MAX_PRODUCTS];
    /* no_fire[type][n]: a site of that type holding n particles, of any species, whose draw u
     * has 1 - u at least this fires nothing (rd_choose_reaction's first test, for an upper bound
     * of its a0): almost every site, then without its counts and propensities */
    double no_fire[RD_MAX_TYPES][RD_MAX_CAPACITY + 1];
} rd_reaction_table;

#ifdef __cplusplus
extern "C"
#endif
void rd_reaction_table_of(const rd_model *m, rd_reaction_table *t);

/* A site's particles per species, a byte each (species sp: byte sp % 8 of word sp / 8): kept in
 * registers on the device, where an array indexed by species lives in local memory. */
typedef struct rd_counts {
    uint64_t w[2];
} rd_counts;

SB_HD void rd_count_add(rd_counts *c, int sp)
{
    uint64_t one = 1ull << 8 * (sp & 7);
    if (sp < 8)
        c->w[0] += one;
    else
        c->w[1] += one;
}

SB_HD int rd_count_of(const rd_counts *c, int sp)
{
    return (int)((sp < 8 ? c->w[0] : c->w[1]) >> 8 * (sp & 7) & 0xff);
}

/* Propensity of reaction i in a site holding the counts c: rate times the number of reactant
 * combinations (n(n-1)/2 for two identical reactants). */
SB_HD double rd_propensity(const rd_reaction_table *t, int i, const rd_counts *c)
{
    int na = rd_count_of(c, t->a[i]), nb = rd_count_of(c, t->b[i]);
    double h = t->order[i] == 0   ? 1.0
               : t->order[i] == 1 ? (double)na
               : t->a[i] == t->b[i] ? (double)(na * (na - 1) / 2)
                                    : (double)(na * nb);
    return det_mul(t->rate[i], h);
}

/* The reaction a site of type `type` holding the counts c fires this step, or -1. The
 * propensities are computed twice (for a0, then to choose) rather than kept: on the device an
 * array of them would live in local memory. */
SB_HD int rd_choose_reaction(const rd_reaction_table *t, const rd_counts *c, int type,
                             sb_rng_block r)
{
    double a0 = 0.0;
    for (int i = 0; i < t->n; i++)
        if (t->where[i] >> type & 1)
            a0 = det_add(a0, rd_propensity(t, i, c));
    if (a0 <= 0.0)
        return -1;
    /* Fires with probability 1 - exp(-a0 tau): an Exp(1) draw e = -log(u) below a0 tau. Since
     * -log(u) >= 1 - u, a u with 1 - u at least twice a0 tau cannot fire, and det_log (a few ulp)
     * agrees: the log is skipped there, which is almost every site, a0 tau being small. */
    double u = sb_uniform_open0(r.v[0], r.v[1]), a0tau = det_mul(a0, t->tau);
    if (det_sub(1.0, u) >= det_mul(2.0, a0tau))
        return -1;
    if (!(a0tau > -det_log(u)))
        return -1;
    double x = det_mul(sb_uniform(r.v[2], r.v[3]), a0), cum = 0.0;
    int last = -1;
    for (int i = 0; i < t->n; i++) {
        if (!(t->where[i] >> type & 1))
            continue;
        double a = rd_propensity(t, i, c);
        if (a <= 0.0)
            continue;
        cum = det_add(cum, a);
        last = i;
        if (x < cum)
            return i;
    }
    return last; /* x rounded onto a0 itself */
}

#endif
