#include "table.h"

#define PAPER "micro-macro-motility"

/* The GPU stages of ../shared/spec/motility.md (original, resident, optimized and its
 * ablations, multi-gpu, mpi, gpu-macro) are not built yet. */
const sb_variant mm_variants[MM_NVARIANTS] = {
    {"cpu-reference", 0,
     "one thread, fp64: every tail's motors to t + dt in local inner steps (RK2, Superbee), "
     "the force scattered tail by tail, FFTW fluid layers (the oracle)",
     PAPER ", 2 (alg. 1, 2; the paper's 540x baseline)", 0, &mm_cpu_reference_ops},
    {"cpu-openmp", 0,
     "every core: rows of tails, the macro loops and the fluid layers shared out; the force "
     "summed per row of tails",
     PAPER ", 3.1 (OpenMP for the macro parts)", 0, &mm_cpu_openmp_ops},
};
