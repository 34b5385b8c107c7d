#include "table.h"

#define THESIS "procell-gpu-thesis-it"

const sb_variant pc_variants[PC_NVARIANTS] = {
    {"cpu-reference", 0, "single thread, LIFO stack depth-first: ProCell's algorithm (the oracle)",
     THESIS " 3.1", 0, &pc_cpu_reference_ops, 0},
    {"cpu-openmp", 0, "roots spread over all cores, one histogram per thread", "beyond the thesis",
     0, &pc_cpu_openmp_ops, 0},
    {"host-loop", 1,
     "one kernel per generation; host copies back, collects Inactive, compacts Alive", THESIS
     " 3.2.2, fig. 3.4", SB_NEEDS_GPU, &pc_host_loop_ops, 0},
    {"dynamic-parallelism", 2,
     "levels preallocated on the device; each block launches the next level's child grid",
     THESIS " 3.2.3, fig. 3.6", SB_NEEDS_GPU | SB_NEEDS_CDP, &pc_dynamic_parallelism_ops, 0},
    {"bounding", 3, "block vote: a block with no Alive child launches nothing",
     THESIS " 3.2.3, fig. 3.7", SB_NEEDS_GPU | SB_NEEDS_CDP, &pc_bounding_ops, 0},
    {"depth-inference", 4, "levels = smallest eta with eta * mean >= t_max, capped by memory",
     THESIS " 3.2.3, fig. 3.8", SB_NEEDS_GPU | SB_NEEDS_CDP, &pc_depth_inference_ops, 0},
    {"gpu-histogram", 5,
     "terminal cells binary-search Omega and atomicAdd their bin; no per-level copy",
     THESIS " 3.2.3, figs. 3.9-3.10", SB_NEEDS_GPU | SB_NEEDS_CDP, &pc_gpu_histogram_ops, SB_KERNEL_LEVEL},
    {"subtree-dfs", 6,
     "a thread per root walks its tree depth-first into a block-private histogram: memory "
     "O(roots + |Omega|)", "beyond the thesis (its 3.2.4 open problem)", SB_NEEDS_GPU,
     &pc_subtree_dfs_ops, SB_KERNEL_LEVEL},
    {"multi-gpu", 7, "roots split over every visible GPU, histograms summed",
     "beyond the thesis (its future work)", SB_NEEDS_GPU | SB_NEEDS_MULTI_GPU, &pc_multi_gpu_ops, SB_KERNEL_LEVEL},
    {"split-trees", 8,
     "subtree-dfs with the long tail split: every resident thread, idle ones handed the bottom "
     "of a walker's stack through a lock-free queue", "beyond the thesis",
     SB_NEEDS_GPU | SB_NEEDS_INDEPENDENT_THREADS, &pc_split_trees_ops, SB_KERNEL_LEVEL},
};
