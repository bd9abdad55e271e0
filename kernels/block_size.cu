// CUDA 13 cluster directives. Each block's thread 0 writes out[blockIdx.x] = its rank in its
// cluster + 10 * the cluster's size, and counts itself in out[63].

// __block_size__((64, 1, 1), (2, 1, 1)) gives `.blocksareclusters`, `.reqntid 64, 1, 1` and
// `.reqnctapercluster 2, 1, 1`: the launch's grid counts clusters of 2 blocks, so a grid of 3
// runs 6 blocks.
extern "C" __global__ void __block_size__((64, 1, 1), (2, 1, 1)) block_size_rank(unsigned int* out)
{
    unsigned int rank, size;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    if (threadIdx.x == 0) {
        out[blockIdx.x] = rank + 10 * size;
        atomicAdd(&out[63], 1u);
    }
}

// __cluster_dims__() gives `.explicitcluster` alone: the kernel launches only with a cluster
// dimension, which the launch must give.
extern "C" __global__ void __cluster_dims__() explicit_rank(unsigned int* out)
{
    unsigned int rank, size;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    if (threadIdx.x == 0) {
        out[blockIdx.x] = rank + 10 * size;
        atomicAdd(&out[63], 1u);
    }
}
