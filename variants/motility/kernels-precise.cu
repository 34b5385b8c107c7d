/* The micro and force kernels' builds compiled with IEEE division and denormals (kernels.cuh):
 * the restructured kernel of `resident` and `original`, and `optimized-no-fast-math`. Also the
 * entry points, which hand a fast-math build to kernels-fast.cu. */
#include "kernels.cuh"

static const mm_build builds[] = {
    MM_BUILD(double, 0, 0, 0, 0, 0, 16, 16), /* restructured: the paper's 3.1 kernel */
    MM_BUILD(float, 0, 1, 1, 1, 1, 8, 16),   /* optimized without fast math */
};

int mm_launch_micro(const mm_kernel_config *k, const mm_micro_args *a, cudaStream_t stream)
{
    if (k->fast_math)
        return mm_launch_micro_fast(k, a, stream);
    const mm_build *b = find_build(builds, sizeof builds / sizeof *builds, k);
    return b ? b->micro(a, stream) : -1;
}

int mm_launch_force(const mm_kernel_config *k, const mm_force_args *a, cudaStream_t stream)
{
    if (k->fast_math)
        return mm_launch_force_fast(k, a, stream);
    const mm_build *b = find_build(builds, sizeof builds / sizeof *builds, k);
    return b ? b->force(a, stream) : -1;
}
