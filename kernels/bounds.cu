// Kernels with compiled-in launch constraints, read by chevron's checks.
// bounded_scale: __launch_bounds__(256) gives `.maxntid 256, 1, 1`: a block of more than 256
// threads cannot launch it. out[i] = in[i] * 2.
extern "C" __global__ void __launch_bounds__(256) bounded_scale(const float* in, float* out, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * 2.0f;
    }
}

// clustered_rank: __cluster_dims__(2, 1, 1) gives `.reqnctapercluster 2, 1, 1`: it is always
// launched in clusters of 2 blocks, and its grid must be a whole number of clusters.
// out[blockIdx.x] = the block's rank in its cluster (0 or 1) + 10 * the cluster size.
extern "C" __global__ void __cluster_dims__(2, 1, 1) clustered_rank(unsigned int* out)
{
    unsigned int rank, size;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    if (threadIdx.x == 0) {
        out[blockIdx.x] = rank + 10 * size;
    }
}
