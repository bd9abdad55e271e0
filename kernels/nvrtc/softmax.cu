// Row-wise softmax and row sums: templates instantiated by name (`name = "softmax<128>"`), a
// local header, and cooperative groups from the CUDA toolkit (found at run time).
#include "common.cuh"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// One block of BLOCK threads per row: out[r, c] = exp(in[r, c] - max_r) / sum_r.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) softmax(float* out, const float* in, int rows, int cols)
{
    __shared__ float scratch[32];
    const int r = blockIdx.x;
    if (r >= rows) {
        return;
    }
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const float* row = in + (long long)r * cols;
    float m = __int_as_float(0xff800000); // -infinity (NVRTC has no <math.h>)
    for (int c = threadIdx.x; c < cols; c += BLOCK) {
        m = fmaxf(m, row[c]);
    }
    m = cg::reduce(warp, m, cg::greater<float>());
    if (warp.thread_rank() == 0) {
        scratch[warp.meta_group_rank()] = m;
    }
    block.sync();
    if (threadIdx.x == 0) {
        float all = scratch[0];
        for (int w = 1; w < BLOCK / 32; ++w) {
            all = fmaxf(all, scratch[w]);
        }
        scratch[0] = all;
    }
    block.sync();
    m = scratch[0];
    block.sync();
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += BLOCK) {
        s += expf(row[c] - m);
    }
    s = block_sum(s, scratch);
    for (int c = threadIdx.x; c < cols; c += BLOCK) {
        out[(long long)r * cols + c] = expf(row[c] - m) / s;
    }
}

// out[r] = sum over c of in[r, c]^2, one block per row.
template <typename T>
__global__ void row_sum_squares(T* out, const T* in, int cols)
{
    __shared__ float scratch[32];
    const T* row = in + (long long)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        s += squared((float)row[c]);
    }
    s = block_sum(s, scratch);
    if (threadIdx.x == 0) {
        out[blockIdx.x] = (T)s;
    }
}
