/* Keyed counter-based random numbers: Philox4x32-10 (Random123), same code on host and device.
 *
 * A draw is a pure function of (key, counter): an entity's draws do not depend on which thread,
 * block, GPU or variant computes them. Workloads choose what goes into the key (seed, entity) and
 * the counter (step, purpose, attempt...). */
#ifndef SB_RNG_H
#define SB_RNG_H

#include <stdint.h>
#include <Random123/philox.h>
#include "hd.h"

typedef struct sb_rng_block {
    uint32_t v[4];
} sb_rng_block;

SB_HD sb_rng_block sb_philox(uint32_t key0, uint32_t key1, uint32_t c0, uint32_t c1, uint32_t c2,
                             uint32_t c3)
{
    philox4x32_key_t k = {{key0, key1}};
    philox4x32_ctr_t c = {{c0, c1, c2, c3}};
    philox4x32_ctr_t r = philox4x32(c, k);
    sb_rng_block out = {{r.v[0], r.v[1], r.v[2], r.v[3]}};
    return out;
}

/* 53 random bits from two words: exact integer scaling, no rounding. */
SB_HD uint64_t sb_bits53(uint32_t hi, uint32_t lo)
{
    return ((((uint64_t)hi) << 32) | lo) >> 11;
}

/* Uniform in [0, 1) on the grid k * 2^-53. */
SB_HD double sb_uniform(uint32_t hi, uint32_t lo)
{
    return (double)sb_bits53(hi, lo) * 0x1p-53;
}

/* Uniform in (0, 1] on the grid k * 2^-53: safe for log. */
SB_HD double sb_uniform_open0(uint32_t hi, uint32_t lo)
{
    return (double)(sb_bits53(hi, lo) + 1) * 0x1p-53;
}

#endif
