#include "table.h"

#define FIG4 "rdme-multi-gpu, Implementation (peer-to-peer copies), fig. 4"
#define TWO_GPUS (SB_NEEDS_GPU | SB_NEEDS_MULTI_GPU)

const sb_variant cp_variants[CP_NVARIANTS] = {
    {"cpu-memcpy", 0, "memcpy of the payload between two host buffers (the reference)",
     "beyond the paper", 0, &cp_cpu_memcpy_ops, 0},
    {"host-to-gpu", 1, "pinned host buffer to GPU 0 (cudaMemcpyAsync)", FIG4, SB_NEEDS_GPU,
     &cp_host_to_gpu_ops, 0},
    {"gpu-host-gpu", 2,
     "GPU 0 to a pinned host buffer, then to GPU 1: the unpeered copy, staged explicitly",
     FIG4, TWO_GPUS, &cp_gpu_host_gpu_ops, 0},
    {"gpu-peer", 3,
     "GPU 0 to GPU 1 (cudaMemcpyPeerAsync), peer access enabled where the pair allows it", FIG4,
     TWO_GPUS, &cp_gpu_peer_ops, 0},
    {"nccl", 4, "ncclSend on GPU 0, ncclRecv on GPU 1, one process, one group",
     "beyond the paper (its MPI_Send/MPI_Recv line of fig. 4)", TWO_GPUS | SB_NEEDS_NCCL, &cp_nccl_ops, 0},
    {"mpi", 5,
     "two processes (mpirun -np 2): MPI_Send on GPU 0's, MPI_Recv on GPU 1's, device memory "
     "when the MPI is CUDA-aware, else through pinned host memory",
     FIG4 " (the MPI line)", TWO_GPUS, &cp_mpi_ops, 0},
};
