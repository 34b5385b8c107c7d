/* Deterministic double-precision math: the same bits on host and device.
 *
 * Every operation whose result decides a stochastic outcome goes through here. On the device each
 * step is an explicit round-to-nearest intrinsic, so nvcc can neither fuse a multiply into an add
 * nor reorder; on the host the build passes -ffp-contract=off and x86-64 uses SSE2 doubles, so the
 * plain operators round exactly once each. fma, sqrt and division are correctly rounded on both.
 * log and cos are our own polynomials built from those operations (libm and CUDA's libdevice do
 * not agree to the last bit). Accuracy is a few ulp; determinism is exact. */
#ifndef SB_DETMATH_H
#define SB_DETMATH_H

#include <stdint.h>
#include <string.h>
#ifndef __CUDA_ARCH__
#include <math.h>
#endif
#include "hd.h"

SB_HD double det_add(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}

SB_HD double det_sub(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dsub_rn(a, b);
#else
    return a - b;
#endif
}

SB_HD double det_mul(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

SB_HD double det_div(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __ddiv_rn(a, b);
#else
    return a / b;
#endif
}

/* a*b + c with one rounding */
SB_HD double det_fma(double a, double b, double c)
{
#ifdef __CUDA_ARCH__
    return __fma_rn(a, b, c);
#else
    return fma(a, b, c);
#endif
}

SB_HD double det_sqrt(double a)
{
#ifdef __CUDA_ARCH__
    return __dsqrt_rn(a);
#else
    return sqrt(a);
#endif
}

SB_HD uint64_t det_bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

SB_HD double det_from_bits(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* Natural log for positive, finite, normal x. x = m * 2^e with m in [sqrt(1/2), sqrt(2)];
 * log m = 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.1716, series to s^23 (truncation < 1e-18). */
SB_HD double det_log(double x)
{
    const double ln2_hi = 6.93147180369123816490e-01; /* 0x3fe62e42fee00000, exact in e*ln2_hi */
    const double ln2_lo = 1.90821492927058770002e-10;
    uint64_t b = det_bits(x);
    int e = (int)((b >> 52) & 0x7ff) - 1023;
    double m = det_from_bits((b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
    if (m > 1.41421356237309504880) {
        m = det_mul(m, 0.5); /* exact */
        e += 1;
    }
    double f = det_sub(m, 1.0);                     /* exact (Sterbenz) */
    double s = det_div(f, det_add(2.0, f));
    double z = det_mul(s, s);
    double p = 2.0 / 23.0;
    p = det_fma(p, z, 2.0 / 21.0);
    p = det_fma(p, z, 2.0 / 19.0);
    p = det_fma(p, z, 2.0 / 17.0);
    p = det_fma(p, z, 2.0 / 15.0);
    p = det_fma(p, z, 2.0 / 13.0);
    p = det_fma(p, z, 2.0 / 11.0);
    p = det_fma(p, z, 2.0 / 9.0);
    p = det_fma(p, z, 2.0 / 7.0);
    p = det_fma(p, z, 2.0 / 5.0);
    p = det_fma(p, z, 2.0 / 3.0);
    double log_m = det_fma(det_mul(s, z), p, det_add(s, s));
    double de = (double)e;
    return det_fma(de, ln2_hi, det_fma(de, ln2_lo, log_m));
}

/* sin and cos of x in [0, pi/4] by Taylor series (truncation < 1e-18 there). */
SB_HD double det_sin_small(double x)
{
    double z = det_mul(x, x);
    double p = 1.0 / 1307674368000.0;       /* 1/15! */
    p = det_fma(p, -z, 1.0 / 6227020800.0); /* 1/13! */
    p = det_fma(p, -z, 1.0 / 39916800.0);
    p = det_fma(p, -z, 1.0 / 362880.0);
    p = det_fma(p, -z, 1.0 / 5040.0);
    p = det_fma(p, -z, 1.0 / 120.0);
    p = det_fma(p, -z, 1.0 / 6.0);
    return det_fma(det_mul(x, -z), p, x);
}

SB_HD double det_cos_small(double x)
{
    double z = det_mul(x, x);
    double p = 1.0 / 20922789888000.0;       /* 1/16! */
    p = det_fma(p, -z, 1.0 / 87178291200.0); /* 1/14! */
    p = det_fma(p, -z, 1.0 / 479001600.0);
    p = det_fma(p, -z, 1.0 / 3628800.0);
    p = det_fma(p, -z, 1.0 / 40320.0);
    p = det_fma(p, -z, 1.0 / 720.0);
    p = det_fma(p, -z, 1.0 / 24.0);
    p = det_fma(p, -z, 0.5);
    return det_fma(-z, p, 1.0);
}

/* cos(2*pi*u) for u in [0, 1). The reduction is exact: 8u splits into an octant and a fraction
 * without rounding, and the octant picks sin or cos of an angle in [0, pi/4]. */
SB_HD double det_cos_2pi(double u)
{
    const double pi_4 = 0.78539816339744830962;
    double v = det_mul(u, 8.0);                /* exact */
    int octant = (int)v;
    double r = det_sub(v, (double)octant);     /* exact, in [0,1) */
    if (octant & 1)
        r = det_sub(1.0, r);                   /* exact: angle measured from the next multiple */
    double x = det_mul(r, pi_4);
    /* cos over the octants 0..7: cos, sin, -sin, -cos, -cos, -sin, sin, cos */
    double c = (octant == 0 || octant == 3 || octant == 4 || octant == 7) ? det_cos_small(x)
                                                                           : det_sin_small(x);
    return (octant >= 2 && octant <= 5) ? -c : c;
}

/* A standard normal from two uniforms, u1 in (0,1], u2 in [0,1) (Box-Muller, cosine branch). */
SB_HD double det_box_muller(double u1, double u2)
{
    return det_mul(det_sqrt(det_mul(-2.0, det_log(u1))), det_cos_2pi(u2));
}

#endif
