#include "table.h"

#define PAPER "micro-macro-motility"
#define GPU SB_NEEDS_GPU
#define MGPU (SB_NEEDS_GPU | SB_NEEDS_MULTI_GPU)

const sb_variant mm_variants[MM_NVARIANTS] = {
    {"cpu-reference", 0,
     "one thread, fp64: every tail's motors to t + dt in local inner steps (RK2, Superbee), "
     "the force scattered tail by tail, FFTW fluid layers (the oracle)",
     PAPER ", 2 (alg. 1, 2; the paper's 540x baseline)", 0, &mm_cpu_reference_ops, 0},
    {"cpu-openmp", 0,
     "every core: rows of tails, the macro loops and the fluid layers shared out; the force "
     "summed per row of tails",
     PAPER ", 3.1 (OpenMP for the macro parts)", 0, &mm_cpu_openmp_ops, 0},
    {"original", 1,
     "the earlier hybrid: global inner step reduced on the host, AB2, fp64, M_b moved through "
     "the GPU every outer step in pieces of what fits; macro on the host",
     PAPER ", 3.1 (the algorithm of [2]), table 2", GPU, &mm_original_ops, 0},
    {"resident", 2,
     "M_b resident on the GPU, one block per tail to t + dt in local inner steps (RK2); Psi in, "
     "coarse, M_f and F out; fp64",
     PAPER ", 3.1, alg. 2, fig. 3, table 2", GPU, &mm_resident_ops, 0},
    {"optimized", 3,
     "mixed precision, fast math, launch bounds (128, 8), x along s, s innermost, unrolled "
     "block sum, 8 x 16 blocks",
     PAPER ", 3.2, table 3", GPU, &mm_optimized_ops, 0},
    {"optimized-fp64", 3, "optimized without mixed precision (fp64)", PAPER ", table 3", GPU,
     &mm_optimized_fp64_ops, 0},
    {"optimized-no-fast-math", 3, "optimized without --use_fast_math", PAPER ", table 3", GPU,
     &mm_optimized_no_fast_math_ops, 0},
    {"optimized-no-launch-bounds", 3, "optimized without __launch_bounds__", PAPER ", table 3",
     GPU, &mm_optimized_no_launch_bounds_ops, 0},
    {"optimized-no-dimension-mapping", 3, "optimized with x along theta, y along s",
     PAPER ", table 3", GPU, &mm_optimized_no_dimension_mapping_ops, 0},
    {"optimized-no-reorder", 3, "optimized with M_b stored theta innermost", PAPER ", table 3",
     GPU, &mm_optimized_no_reorder_ops, 0},
    {"optimized-no-unroll", 3, "optimized with the block sum's tree run to one lane",
     PAPER ", table 3", GPU, &mm_optimized_no_unroll_ops, 0},
    {"optimized-block-16x16", 3, "optimized with 16 x 16 blocks", PAPER ", table 3", GPU,
     &mm_optimized_block_16x16_ops, 0},
    {"multi-gpu", 4,
     "rows of tails over the GPUs of one machine: Psi to each, coarse and M_f gathered, F "
     "summed on the host",
     PAPER ", 3.3, table 4, fig. 5", MGPU, &mm_multi_gpu_ops, 0},
    {"mpi", 5,
     "one process per GPU (mpirun -np N): MPI_Bcast of Psi, MPI_Gatherv of coarse and M_f, "
     "MPI_Reduce of F, through the host",
     PAPER ", 3.3, fig. 4, table 4, fig. 5", MGPU, &mm_mpi_ops, 0},
    {"gpu-macro", 6,
     "the macroscale on the GPU too (Psi transport, stress, cuFFT fluid layers): no per-step "
     "host round trip",
     "beyond the paper (its conclusion: the fluid and filament updates are next)", GPU,
     &mm_gpu_macro_ops, SB_KERNEL_LEVEL},
    {"multi-gpu-macro", 6,
     "gpu-macro over the GPUs of one machine: rows of tails each, the macro on GPU 0; Psi out "
     "and coarse, M_f and F back peer to peer, F summed on GPU 0; no host in the loop",
     "beyond the paper (3.3 with the macro of stage 6)", MGPU, &mm_multi_gpu_macro_ops, SB_KERNEL_LEVEL},
};
