/* The micro and force kernels' builds compiled with --use_fast_math (kernels.cuh; CMakeLists.txt
 * sets the switch on this file alone): `optimized` and the ablations that keep fast math. */
#include "kernels.cuh"

static const mm_build builds[] = {
    MM_BUILD(float, 1, 1, 1, 1, 1, 8, 16),   /* optimized */
    MM_BUILD(double, 1, 1, 1, 1, 1, 8, 16),  /* -fp64 */
    MM_BUILD(float, 1, 0, 1, 1, 1, 8, 16),   /* -no-launch-bounds */
    MM_BUILD(float, 1, 1, 0, 1, 1, 8, 16),   /* -no-dimension-mapping */
    MM_BUILD(float, 1, 1, 1, 0, 1, 8, 16),   /* -no-reorder */
    MM_BUILD(float, 1, 1, 1, 1, 0, 8, 16),   /* -no-unroll */
    MM_BUILD(float, 1, 1, 1, 1, 1, 16, 16),  /* -block-16x16 */
};

int mm_launch_micro_fast(const mm_kernel_config *k, const mm_micro_args *a, cudaStream_t stream)
{
    const mm_build *b = find_build(builds, sizeof builds / sizeof *builds, k);
    return b ? b->micro(a, stream) : -1;
}

int mm_launch_force_fast(const mm_kernel_config *k, const mm_force_args *a, cudaStream_t stream)
{
    const mm_build *b = find_build(builds, sizeof builds / sizeof *builds, k);
    return b ? b->force(a, stream) : -1;
}
