// cluster_info: reports thread-block-cluster shape (sm_90+). Thread 0 of block
// b writes out[2b] = blocks in its cluster, out[2b+1] = its rank in the
// cluster. Launched with a runtime cluster-dimension attribute of 2, every
// block must report num_blocks == 2.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void cluster_info(unsigned int* out)
{
    cg::cluster_group cluster = cg::this_cluster();
    unsigned int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
        out[b * 2] = cluster.num_blocks();
        out[b * 2 + 1] = cluster.block_rank();
    }
}
