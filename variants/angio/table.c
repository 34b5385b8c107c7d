#include "table.h"

#define PAPER "angiogenesis-gpu"

const sb_variant ag_variants[AG_NVARIANTS] = {
    {"cpu-reference", 0,
     "one thread, cells as structures in box lists, Newton's third law over 13 neighbouring "
     "boxes; tube by tube over the boxes it reaches (the oracle)",
     PAPER ", 2.1.1-2.1.2 (alg. 1, 2)", 0, &ag_cpu_reference_ops, 0},
    {"cpu-openmp", 0,
     "every core: each cell gathers from its 27 boxes and its box's tubes, each tube its TAF",
     "beyond the paper", 0, &ag_cpu_openmp_ops, 0},
    {"gpu-naive", 1,
     "co-processor: each phase converts the cells to arrays and copies them in; a thread per "
     "cell over 27 boxes, force, exchange and pressure in one kernel; results copied back",
     PAPER ", 3.1-3.2 (alg. 3; paper about 6x)", SB_NEEDS_GPU, &ag_gpu_naive_ops, 0},
    {"neighbor-list", 2, "neighbour lists built apart from the interactions (lower registers)",
     PAPER ", 3.3 (figs. 4, 5)", SB_NEEDS_GPU, &ag_neighbor_list_ops, 0},
    {"shared-memory", 3,
     "lists built a box per block, the 27 boxes around staged in shared memory",
     PAPER ", 3.4 (alg. 4, fig. 4)", SB_NEEDS_GPU, &ag_shared_memory_ops, 0},
    {"texture", 4, "neighbours' properties read through texture objects",
     PAPER ", 3.5 (fig. 3)", SB_NEEDS_GPU, &ag_texture_ops, 0},
    {"tube-lists", 5,
     "tube-cell split: a thread per tube appends itself to its cells' lists (atomicAdd), then "
     "a thread per cell gathers them",
     PAPER ", 3.6 (alg. 5, 6; fig. 8)", SB_NEEDS_GPU, &ag_tube_lists_ops, 0},
    {"pinned", 6, "page-locked host buffers for every copy", PAPER ", 3.7 (paper +5 %)",
     SB_NEEDS_GPU, &ag_pinned_ops, 0},
    {"resident", 7,
     "the whole step on the GPU: cell lists by counting sort, one interaction kernel (cell-cell "
     "by a team of threads per cell when cells are few, partners noted then evaluated; each cell "
     "over its box's tubes; the cell's step), divisions and removal by scans; no per-step copy "
     "or host wait, timed runs as one graph",
     "beyond the paper (its conclusion)", SB_NEEDS_GPU | SB_NEEDS_GRAPH_LOOP, &ag_resident_ops, SB_KERNEL_LEVEL},
    {"sorted", 8,
     "interaction inputs gathered in box order every rebuild: a box's cells contiguous, 16-byte "
     "loads",
     "beyond the paper", SB_NEEDS_GPU | SB_NEEDS_GRAPH_LOOP, &ag_sorted_ops, SB_KERNEL_LEVEL},
};
