// Shared by the kernels of this directory: embedded by `#[kernel(cuda = …)]` at compile time
// (it is included with quotes, next to the .cu files), so the program needs no files at run time.
#pragma once
#include "detail/math.cuh"

// A block-wide sum of one value per thread: warp shuffles, then one warp over the warp sums.
// `scratch` holds 32 floats of shared memory.
__device__ inline float block_sum(float v, float* scratch)
{
    for (int o = 16; o > 0; o >>= 1) {
        v += __shfl_down_sync(0xffffffffu, v, o);
    }
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) {
        scratch[warp] = v;
    }
    __syncthreads();
    const int warps = (blockDim.x + 31) / 32;
    v = (threadIdx.x < warps) ? scratch[lane] : 0.0f;
    if (warp == 0) {
        for (int o = 16; o > 0; o >>= 1) {
            v += __shfl_down_sync(0xffffffffu, v, o);
        }
    }
    if (threadIdx.x == 0) {
        scratch[0] = v;
    }
    __syncthreads();
    v = scratch[0];
    __syncthreads();
    return v;
}
