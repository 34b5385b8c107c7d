/* The quantities gpu_detmath compares, computed by the same code on host and device: for input
 * i, the deterministic log and cosine, a Box-Muller normal, a ProCell division time and an
 * asynchronous start time (two types: a sum of every kind of step the model takes). */
#ifndef DETMATH_CASES_H
#define DETMATH_CASES_H

#include "variants/procell/fate.h"

#define DETMATH_QUANTITIES 5

SB_HD void detmath_case(const double *u1, const double *u2, int i, double *out)
{
    pc_rules r;
    memset(&r, 0, sizeof r);
    r.seed = 2024;
    r.ntypes = 2;
    r.cum[0] = 0.3;
    r.cum[1] = 1.0;
    r.mean[0] = 44.2;
    r.sd[0] = 19.5;
    r.mean[1] = 83.9;
    r.sd[1] = 26.6;
    out[0] = det_log(u1[i]);
    out[1] = det_cos_2pi(u2[i]);
    out[2] = det_box_muller(u1[i], u2[i]);
    out[3] = pc_division_time(&r, (uint32_t)i, i & 1, PC_DRAW_TIMER, i % 11, (uint64_t)i * 3);
    r.async_start = 1;
    out[4] = pc_start_time(&r, (uint32_t)i, pc_root_type(&r, (uint32_t)i));
}

#endif
