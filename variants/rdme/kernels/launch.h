/* What the kernel families (the .cu files here, listed in common.cuh) give launch.cu, which
 * picks the family that sweeps a lattice for kernels.h's entry points. A kernel is launched and
 * loaded only in the file that defines or instantiates it: its host stub is that unit's, and
 * without relocatable device code (-DSB_CDP=OFF) no other unit could launch it. Host code
 * only. */
#ifndef RD_KERNELS_LAUNCH_H
#define RD_KERNELS_LAUNCH_H

#include <stdint.h>

#include "../kernels.h"

/* packed32 rows of whole quads at least this wide go by warp strips (sweep-strips.cu) in the
 * sweeps without reactions */
#define STRIP_MIN_NX 128

/* Whether packed32 buffers in and out go by quads: rows of whole quads, 16-byte aligned. */
static inline bool rows_of_quads(const rd_step *a, const void *in, const void *out)
{
    return a->nx % 4 == 0 && ((uintptr_t)in | (uintptr_t)out) % 16 == 0;
}

/* sweep-window.cu: sweep<F, axis> on `grid`, without reactions */
cudaError_t rd_launch_window_sweep(rd_site_format f, int axis, dim3 grid, const void *in,
                                   void *out, const rd_step *a, int plane_lo, cudaStream_t st);
int rd_load_window_sweeps(rd_site_format f);

/* sweep-quads.cu: sweep_quads<axis> on `grid`, without reactions (packed32) */
cudaError_t rd_launch_quad_sweep(int axis, dim3 grid, const void *in, void *out, const rd_step *a,
                                 int plane_lo, cudaStream_t st);
int rd_load_quad_sweeps(void);

/* sweep-strips.cu: the strips along axis, `third` block rows (x, y: planes; z: rows y), without
 * reactions (packed32) */
cudaError_t rd_launch_strip_sweep(int axis, const void *in, void *out, const rd_step *a,
                                  int plane_lo, unsigned third, cudaStream_t st);
int rd_load_strip_sweeps(void);

/* sweep-xy.cu, react.cu (every kernel that fires reactions), count-planes.cu, step-graph.cu:
 * their launches are kernels.h's */
int rd_load_xy_sweep(void);
int rd_load_react(rd_site_format f);
int rd_load_count_planes(rd_site_format f);
int rd_load_step_graph(void);
int rd_load_one_pass(rd_site_format f); /* one-pass.cu */

#endif
