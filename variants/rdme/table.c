#include "table.h"

#define PAPER "rdme-multi-gpu"

const sb_variant rd_variants[RD_NVARIANTS] = {
    {"cpu-reference", 0,
     "single thread: each sweep gathers every site from its neighbours, then reactions, then "
     "overflow (the oracle)",
     PAPER ", Methods (MPD-RDME)", 0, &rd_cpu_reference_ops},
    {"cpu-openmp", 0, "the reference's passes over every core, an overflow list per thread",
     "beyond the paper", 0, &rd_cpu_openmp_ops},
    {"gpu", 1,
     "x/y/z diffusion kernels on shared-memory windows, reaction kernel; any overflow copies "
     "the lattice to the host and back",
     PAPER ", Methods (Lattice Microbes' single-GPU MPD-RDME)", SB_NEEDS_GPU, &rd_gpu_ops},
    {"gpu-zero-copy-overflow", 2,
     "overflow list and count in mapped pinned host memory: no copy unless a particle overflowed",
     PAPER ", Methods (the zero-copy overflow list)", SB_NEEDS_GPU, &rd_gpu_zero_copy_overflow_ops},
};
