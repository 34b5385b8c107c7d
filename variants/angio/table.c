#include "table.h"

#define PAPER "angiogenesis-gpu"

const sb_variant ag_variants[AG_NVARIANTS] = {
    {"cpu-reference", 0,
     "one thread, cells as structures in box lists, Newton's third law over 13 neighbouring "
     "boxes; tube by tube over the boxes it reaches (the oracle)",
     PAPER ", 2.1.1-2.1.2 (alg. 1, 2)", 0, &ag_cpu_reference_ops},
    {"cpu-openmp", 0,
     "every core: each cell gathers from its 27 boxes and its box's tubes, each tube its TAF",
     "beyond the paper", 0, &ag_cpu_openmp_ops},
};
