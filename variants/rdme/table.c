#include "table.h"

#define PAPER "rdme-multi-gpu"
#define MGPU (SB_NEEDS_GPU | SB_NEEDS_MULTI_GPU)

const sb_variant rd_variants[RD_NVARIANTS] = {
    {"cpu-reference", 0,
     "single thread: each sweep gathers every site from its neighbours, then reactions, then "
     "overflow (the oracle)",
     PAPER ", Methods (MPD-RDME)", 0, &rd_cpu_reference_ops, 0},
    {"cpu-openmp", 0, "the reference's passes over every core, an overflow list per thread",
     "beyond the paper", 0, &rd_cpu_openmp_ops, 0},
    {"gpu", 1,
     "x/y/z diffusion kernels on shared-memory windows, reaction kernel; any overflow copies "
     "the lattice to the host and back",
     PAPER ", Methods (Lattice Microbes' single-GPU MPD-RDME)", SB_NEEDS_GPU, &rd_gpu_ops, SB_KERNEL_LEVEL},
    {"gpu-zero-copy-overflow", 2,
     "overflow list and count in mapped pinned host memory: no copy unless a particle overflowed",
     PAPER ", Methods (the zero-copy overflow list)", SB_NEEDS_GPU, &rd_gpu_zero_copy_overflow_ops, SB_KERNEL_LEVEL},
    {"mgpu-staged", 3,
     "z-slabs over the GPUs, a host thread each, halo planes through pinned host buffers every "
     "step, a barrier adding up overflow",
     PAPER ", Implementation (spatial decomposition; unpeered copies)", MGPU, &rd_mgpu_staged_ops, 0},
    {"mgpu-peer", 4,
     "halo planes GPU to GPU (cudaMemcpyPeerAsync) straight into the neighbour's halo once its "
     "y-sweep is done (an event); staged where a pair cannot peer",
     PAPER ", Implementation (peer-to-peer copies), fig. 4", MGPU, &rd_mgpu_peer_ops, 0},
    {"mgpu-peer-overlap", 5,
     "the edge planes' reactions and then their copies on a second, high-priority stream, "
     "beside the interior's reactions",
     PAPER ", Implementation (overlap), fig. 2", MGPU, &rd_mgpu_peer_overlap_ops, 0},
    {"mgpu-balanced", 6,
     "the split moves in whole z tiles when batch-averaged GPU step times differ, within memory",
     PAPER ", Implementation (load balancing), fig. 8", MGPU, &rd_mgpu_balanced_ops, 0},
    {"mgpu-nccl", 7, "halo planes by NCCL send/recv straight into the neighbours' halos",
     "beyond the paper", MGPU | SB_NEEDS_NCCL, &rd_mgpu_nccl_ops, 0},
    {"mpi", 8,
     "one process per GPU (mpirun -np N): halo planes by MPI_Sendrecv (CUDA-aware where the MPI "
     "is), overflow and output by MPI collectives",
     "beyond the paper", MGPU, &rd_mpi_ops, 0},
    {"gpu-graph", 9,
     "steps as CUDA graphs: one GPU loops over steps on the device (conditional node); several "
     "launch two graphs per step",
     "beyond the paper", MGPU | SB_NEEDS_GRAPH_LOOP, &rd_gpu_graph_ops, SB_KERNEL_LEVEL},
    {"gpu-fused", 10,
     "gpu-graph's device-side step loop on one GPU, the reactions applied by the z-sweep as it "
     "writes each site (three passes over the lattice a step instead of four), and the x- and "
     "y-sweeps of a plane in one kernel where a plane fits a block (up to 64 x 64 sites)",
     "beyond the paper", SB_NEEDS_GPU | SB_NEEDS_GRAPH_LOOP, &rd_gpu_fused_ops, SB_KERNEL_LEVEL},
    {"one-pass", 11,
     "gpu-fused's device-side step loop with the whole step in one kernel: the three sweeps and "
     "the reactions of a tile, its block redoing the sweeps of the sites around it (one read and "
     "one write of the lattice a step)",
     "beyond the paper", SB_NEEDS_GPU | SB_NEEDS_GRAPH_LOOP, &rd_one_pass_ops, SB_KERNEL_LEVEL},
};
