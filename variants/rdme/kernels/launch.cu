/* The sweeps without reactions of kernels.h (rd_sweep_planes, rd_sweep_z): which kernel family
 * sweeps a lattice (launch.h); rd_kernels_load, which loads every family's kernels; and two
 * figures both GPU engines take from here. */
#include "../../../harness/stats.h"
#include "launch.h"
#include "common.cuh"

void rd_report_steady(const rd_model *m, double passes, double *loop_seconds, int runs,
                      sb_steady *steady)
{
    steady->runs = sb_steady_median(loop_seconds, runs, &steady->seconds);
    if (steady->runs == 0)
        return;
    steady->items = (double)m->nsites * (double)m->steps;
    steady->bytes = passes * rd_pass_bytes(m) * (double)m->steps;
    steady->simulated_seconds = (double)m->steps * m->tau;
}

/* Room for one particle per site (more than one step overflows in practice: a site gains at
 * most what its two neighbours hold, and overflow makes room), up to 2^24 entries (128 MiB). */
unsigned int rd_overflow_capacity(const rd_model *m)
{
    size_t cap = m->nsites + 4096;
    return cap > (1u << 24) ? 1u << 24 : (unsigned int)cap;
}

/* One sweep along axis, `third` block rows: the warp strips where packed32 rows are whole quads
 * at least STRIP_MIN_NX sites wide, else sweep_quads where those rows are whole quads, else
 * sweep<>. */
static int launch_sweep(rd_site_format f, int axis, const void *in, void *out, const rd_step *a,
                        int second, int third, int plane_lo, cudaStream_t st)
{
    if (third <= 0)
        return 0;
    dim3 grid = axis == 0   ? sweep_grid<0>(a, second, third)
                : axis == 1 ? sweep_grid<1>(a, second, third)
                            : sweep_grid<2>(a, second, third);
    bool quads = (f == RD_PACKED32 ? packed32::QUADS : byte16::QUADS) && rows_of_quads(a, in, out);
    cudaError_t e;
    if (!quads)
        e = rd_launch_window_sweep(f, axis, grid, in, out, a, plane_lo, st);
    else if (a->nx >= STRIP_MIN_NX)
        e = rd_launch_strip_sweep(axis, in, out, a, plane_lo, grid.z, st);
    else
        e = rd_launch_quad_sweep(axis, grid, in, out, a, plane_lo, st);
    SB_LAUNCH_OK(e, axis == 0 ? "sweep<x>" : axis == 1 ? "sweep<y>" : "sweep<z>");
    return 0;
}

int rd_sweep_planes(rd_site_format f, int axis, const void *in, void *out, const rd_step *a,
                    int lo, int hi, cudaStream_t st)
{
    return launch_sweep(f, axis == 0 ? 0 : 1, in, out, a, a->ny, hi - lo, lo, st);
}

int rd_sweep_z(rd_site_format f, const void *in, void *out, const rd_step *a, cudaStream_t st)
{
    return launch_sweep(f, 2, in, out, a, a->slab.planes, a->ny, 0, st);
}

int rd_kernels_load(rd_site_format f)
{
    bool quads = f == RD_PACKED32 ? packed32::QUADS : byte16::QUADS;
    if (rd_load_window_sweeps(f) != 0 || rd_load_react(f) != 0)
        return -1;
    if (quads && (rd_load_quad_sweeps() != 0 || rd_load_strip_sweeps() != 0 ||
                  rd_load_xy_sweep() != 0))
        return -1;
    return rd_load_count_planes(f) != 0 || rd_load_step_graph() != 0 || rd_load_one_pass(f) != 0
               ? -1
               : 0;
}
