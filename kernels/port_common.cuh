// Shared by port_rows.cu and port_hist.cu: the pieces of a small C++ CUDA program that
// examples/cpp_port.rs ports to chevron through `ptx = "…"` and `cuda = "…"`. Plain C++
// linkage (no extern "C"): the kernels' symbols are mangled, and chevron reads their C++
// signatures.
#pragma once

#include <cooperative_groups.h>
// NVRTC (`cuda = "…"`) has `size_t` built in and no <cstddef>.
#ifndef __CUDACC_RTC__
#include <cstddef>
#endif

namespace cg = cooperative_groups;

// y = scale * x + bias, passed by value.
struct Affine {
    float scale;
    float bias;
};

// The sum of `v` over the block, in thread 0 of the block: each warp reduces with shuffles
// (a 32-thread tile of cooperative groups), then warp 0 reduces the warps' sums. BLOCK is a
// multiple of 32 of at most 1024.
template <int BLOCK>
__device__ float block_sum(float v)
{
    __shared__ float warp_sums[BLOCK / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    for (int offset = 16; offset > 0; offset /= 2) {
        v += warp.shfl_down(v, offset);
    }
    if (warp.thread_rank() == 0) {
        warp_sums[warp.meta_group_rank()] = v;
    }
    block.sync();
    v = 0.0f;
    if (warp.meta_group_rank() == 0) {
        if (warp.thread_rank() < BLOCK / 32) {
            v = warp_sums[warp.thread_rank()];
        }
        for (int offset = 16; offset > 0; offset /= 2) {
            v += warp.shfl_down(v, offset);
        }
    }
    return v;
}

// The sum of the four lanes.
__device__ inline float lane_sum(float4 v)
{
    return v.x + v.y + v.z + v.w;
}
