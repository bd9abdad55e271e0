// Histogram of n 16-bit keys into 65536 u32 bins (examples/cluster_histogram.rs).
//
// - hist_cluster: the bins are split over the blocks of a thread-block cluster (sm_90); each
//   block holds 65536 / cluster-size bins in dynamic shared memory, and every thread adds to the
//   bin's owner through distributed shared memory (cluster.map_shared_rank). The cluster size is
//   read at run time, so one function serves every `cluster = …` (and a preferred cluster, whose
//   clusters may differ in size). Dynamic shared memory must hold 65536 / (smallest cluster) u32.
//   Thread 0 of each cluster's first block also counts the cluster in sizes[its size] (17
//   counters), so the host can see which cluster sizes the driver used.
// - hist_global: the same work without clusters: every key is a global atomicAdd (256 KiB of
//   bins do not fit one block's shared memory).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define NBINS 65536u

extern "C" __global__ void hist_cluster(unsigned int* bins, const unsigned short* keys,
                                        unsigned long long n, unsigned int* sizes)
{
    extern __shared__ unsigned int local[];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned int per = NBINS / cluster.num_blocks();
    if (cluster.block_rank() == 0 && threadIdx.x == 0) {
        atomicAdd(sizes + cluster.num_blocks(), 1u);
    }
    for (unsigned int b = threadIdx.x; b < per; b += blockDim.x) {
        local[b] = 0;
    }
    // Every block's bins are zero before any block adds to them.
    cluster.sync();
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        unsigned int key = keys[i];
        unsigned int* owner = cluster.map_shared_rank(local, key / per);
        atomicAdd(owner + key % per, 1u);
    }
    // No block leaves (and frees its shared memory) while others may still add to it.
    cluster.sync();
    unsigned int* out = bins + cluster.block_rank() * per;
    for (unsigned int b = threadIdx.x; b < per; b += blockDim.x) {
        unsigned int c = local[b];
        if (c != 0) {
            atomicAdd(out + b, c);
        }
    }
}

extern "C" __global__ void hist_global(unsigned int* bins, const unsigned short* keys,
                                       unsigned long long n)
{
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        atomicAdd(bins + keys[i], 1u);
    }
}
