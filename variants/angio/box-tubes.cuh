/* Tube-cell by search, shared by the co-processor (texture and before) and resident kernels: a
 * cell against the tubes of its box (static box lists). Device code only: the tubes' TAF is
 * gained by atomics, since cells share tubes. */
#ifndef AG_BOX_TUBES_CUH
#define AG_BOX_TUBES_CUH

#include "physics.h"

/* The tubes tube_boxes[first], [first + step], ... before `end` against the cell at x (radius r,
 * oxygen c, TAF a): each one met adds its effect to *sum, and its TAF to the float `taf_stride`
 * bytes per tube from `taf`. Returns the tubes met. */
static __device__ unsigned ag_box_tubes(const ag_laws *l, const ag_tube *tubes,
                                        const int *tube_boxes, int first, int end, int step,
                                        const float *x, float r, float c, float a, ag_cell *sum,
                                        float *taf, size_t taf_stride)
{
    unsigned met = 0;
    for (int i = first; i < end; i += step) {
        int t = tube_boxes[i];
        ag_effect e;
        float gained;
        if (ag_tube_cell(l, &tubes[t], x, r, c, a, &e, &gained)) {
            ag_effect_add(sum, &e);
            atomicAdd((float *)((char *)taf + t * taf_stride), gained);
            met++;
        }
    }
    return met;
}

#endif
