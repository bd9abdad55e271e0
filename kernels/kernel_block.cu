// Launches in the kernel's own block shape (`_` in `launch!`: CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM
// in place of the block). Every thread writes what it sees, so that the host can check the
// shape the driver gave it.
//
// out[b * 128 + threadIdx.y * 32 + threadIdx.x] = b * 1000 + threadIdx.y * 32 + threadIdx.x,
// b the block's linear index in the grid, for blocks of 32 x 4 threads;
// meta[6 * b ..] = blockDim.x, blockDim.y, blockDim.z, gridDim.x, the block's rank in its
// cluster, the cluster's size (written by thread (0, 0)).

// __block_size__((32, 4, 1), (2, 1, 1)): `.blocksareclusters`, `.reqntid 32, 4, 1`,
// `.reqnctapercluster 2, 1, 1`. The launch's grid counts clusters of 2 blocks.
extern "C" __global__ void __block_size__((32, 4, 1), (2, 1, 1))
    own_shape_clusters(unsigned int* out, unsigned int* meta)
{
    unsigned int rank, size;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    unsigned int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned int t = threadIdx.y * 32 + threadIdx.x;
    out[b * 128 + t] = b * 1000 + t;
    if (t == 0) {
        meta[6 * b + 0] = blockDim.x;
        meta[6 * b + 1] = blockDim.y;
        meta[6 * b + 2] = blockDim.z;
        meta[6 * b + 3] = gridDim.x;
        meta[6 * b + 4] = rank;
        meta[6 * b + 5] = size;
    }
}

// __block_size__((32, 4, 1)) alone: `.blocksareclusters`, `.reqntid 32, 4, 1` and
// `.reqnctapercluster 1, 1, 1`: clusters of one block, so the grid counts blocks.
extern "C" __global__ void __block_size__((32, 4, 1))
    own_shape(unsigned int* out, unsigned int* meta)
{
    unsigned int rank, size;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    unsigned int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned int t = threadIdx.y * 32 + threadIdx.x;
    out[b * 128 + t] = b * 1000 + t;
    if (t == 0) {
        meta[6 * b + 0] = blockDim.x;
        meta[6 * b + 1] = blockDim.y;
        meta[6 * b + 2] = blockDim.z;
        meta[6 * b + 3] = gridDim.x;
        meta[6 * b + 4] = rank;
        meta[6 * b + 5] = size;
    }
}
