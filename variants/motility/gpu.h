/* The motility GPU stages' one engine (gpu.c) and its kernels (kernels.cuh).
 *
 * Each stage is this engine with a few switches (mm_stage_config): the micro kernel's build
 * (mm_kernel_config: precision and the six optimizations table 3 removes one at a time), where
 * M_b lives (resident on the GPU, or on the host and moved through the GPU in pieces every outer
 * step: the original algorithm), how many GPUs share the tails (rows of tails per GPU, in one
 * process or one MPI process each) and whether the macroscale runs on the GPU too.
 *
 * An outer step (algorithm 1, the paper's fig. 3):
 *   psi        the host's macro: bound fraction, outer dt, Psi to t + dt (host.c; all cores)
 *   transfers  Psi and dt to every GPU (and, original: M_b's piece to the GPU and back)
 *   micro      one block per tail: its motors to t + dt in local (or global) inner steps,
 *              the coarse density, the scaling rule, M_f (alg. 2)
 *   force      one block per tail: eq. 10 spread into a patch in shared memory, then added to F
 *   transfers  coarse and M_f rows and every GPU's F back; the host sums the F of the GPUs
 *   fluid      the host's extra stress and fluid layers (FFTW)
 * gpu-macro keeps Psi, dt, coarse, F and u on the GPU (macro.cu) and skips both transfers. */
#ifndef MM_GPU_H
#define MM_GPU_H

#include <cuda_runtime_api.h>

#include "../../harness/variant.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One build of the micro kernel: the paper's 3.2 optimizations, each a switch. */
typedef struct mm_kernel_config {
    int fp32;          /* M_b, M_f and the coarse sum in fp32 (mixed precision); else fp64 */
    int fast_math;     /* built with --use_fast_math (approximate division, flush to zero) */
    int launch_bounds; /* __launch_bounds__(threads, 1024 / threads): 64 registers a thread */
    int map_s_to_x;    /* consecutive threads take consecutive s (a line's cells); else theta */
    int s_inner;       /* M_b stored s innermost (model.h's order); else theta innermost */
    int unroll;        /* the block sum's last 32 lanes by warp shuffles; else __syncthreads */
    int block_x, block_y;
} mm_kernel_config;

/* What the micro kernel of one GPU reads and writes: tails [first, end) of the grid, their M_b
 * (and AB2's previous rates) from tail `first` on. Per-tail arrays (m_f, coarse, dt_prev) are
 * indexed by the tail's grid index. */
typedef struct mm_micro_args {
    void *m_b, *rate_prev;  /* Real; rate_prev: AB2 only */
    double *dt_prev;        /* AB2 only: each tail's last inner step (0: none yet) */
    const double *psi;      /* n_outer^2 x n_inner */
    const double *m_tot;    /* n_outer^2 */
    double *m_f, *coarse;   /* n_outer^2 */
    const double *dt;       /* the outer step, on the device */
    double global_limit;    /* > 0: every tail's inner-step limit (the global rule) */
    unsigned long long *inner_steps;
    const int *line_first, *line_end; /* window x n_inner */
    /* the cells an inner step touches, centre w's in cells[cell_start[w] .. cell_start[w + 1]),
     * each k << 8 | m, in the dimension mapping's order */
    const unsigned short *cells;
    const int *cell_start;
    int first, end;
    int n_outer, n_inner, half, side, window, ab2;
    double ds, dtheta;
    mm_laws laws;
} mm_micro_args;

/* The motor force of tails [first, end) added to force (2 planes; zeroed by the caller). */
typedef struct mm_force_args {
    const void *m_b;
    const double *psi;
    double *force;
    const int *line_first;
    const int *active_lines; /* the lines (w n_inner + k) that meet the capture disc */
    int nactive;
    const double *cos_theta, *sin_theta, *s_mid;
    int first, end;
    int n_outer, n_inner, half, side, window;
    int reach; /* a tail's force lands within `reach` cells of it (host.c's band_reach) */
    double per_motor; /* F0 dtheta ds */
} mm_force_args;

/* Launches on `stream`; -1 (sb_fail says why) on a launch error or a build that no stage uses. */
int mm_launch_micro(const mm_kernel_config *k, const mm_micro_args *a, cudaStream_t stream);
int mm_launch_force(const mm_kernel_config *k, const mm_force_args *a, cudaStream_t stream);
/* The same two for the fast-math builds (kernels-fast.cu). */
int mm_launch_micro_fast(const mm_kernel_config *k, const mm_micro_args *a, cudaStream_t stream);
int mm_launch_force_fast(const mm_kernel_config *k, const mm_force_args *a, cudaStream_t stream);

/* M_b between a kernel's storage (Real, its order) and the model's (fp64, s innermost), for
 * `tails` tails from `from` into `to`. */
void mm_bound_to_model(const mm_model *m, const mm_kernel_config *k, const void *from,
                       double *to, size_t tails);
void mm_bound_from_model(const mm_model *m, const mm_kernel_config *k, const double *from,
                         void *to, size_t tails);

/* Where M_b lives and who runs what. */
enum { MM_RESIDENT, MM_PIECES };
enum { MM_ONE_PROCESS, MM_MPI };
typedef struct mm_stage_config {
    mm_kernel_config kernel;
    int residence; /* MM_RESIDENT or MM_PIECES (original) */
    int multi_gpu; /* rows of tails over `gpus` (default every visible GPU) */
    int processes; /* MM_MPI: one process per GPU under mpirun */
    int gpu_macro; /* Psi transport, stress and fluid on the GPU (macro.cu) */
} mm_stage_config;

/* The kernel builds of the ladder: the restructured kernel (resident, original) and the
 * optimized one; an ablation is `optimized` with one switch turned back. */
extern const mm_kernel_config mm_kernel_restructured, mm_kernel_optimized;

int mm_gpu_setup(sb_env *env, const void *model, void **state, const mm_stage_config *config);
int mm_gpu_run(void *state);
int mm_gpu_output(void *state, void *out);
void mm_gpu_teardown(void *state);
void mm_gpu_report(void *state, sb_report *r);

#ifdef __cplusplus
}
#endif

#endif
