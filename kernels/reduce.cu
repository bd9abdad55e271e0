// Sum of n floats (examples/cooperative_reduce.rs), two ways with the same arithmetic:
//
// - reduce_coop: one cooperative kernel. Each block sums a grid-stride share into partial[b]
//   (float, thread sums then a shared-memory tree), grid.sync(), then block 0 adds the partials
//   in double, in block order, into *sum.
// - reduce_partials then reduce_final: the same two phases as two kernels.
//
// With the same grid both give the same bits. blockDim.x must be 256.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__device__ void block_partial(const float* x, unsigned long long n, float* partial)
{
    __shared__ float s[256];
    float acc = 0.0f;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        acc += x[i];
    }
    s[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned int w = 128; w > 0; w >>= 1) {
        if (threadIdx.x < w) {
            s[threadIdx.x] += s[threadIdx.x + w];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = s[0];
    }
}

__device__ void final_sum(const float* partial, unsigned int blocks, double* sum)
{
    __shared__ double d[256];
    double acc = 0.0;
    for (unsigned int b = threadIdx.x; b < blocks; b += blockDim.x) {
        acc += (double)partial[b];
    }
    d[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned int w = 128; w > 0; w >>= 1) {
        if (threadIdx.x < w) {
            d[threadIdx.x] += d[threadIdx.x + w];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        *sum = d[0];
    }
}

extern "C" __global__ void reduce_coop(const float* x, unsigned long long n, float* partial,
                                       double* sum)
{
    block_partial(x, n, partial);
    cg::this_grid().sync();
    if (blockIdx.x == 0) {
        final_sum(partial, gridDim.x, sum);
    }
}

extern "C" __global__ void reduce_partials(const float* x, unsigned long long n, float* partial)
{
    block_partial(x, n, partial);
}

extern "C" __global__ void reduce_final(const float* partial, unsigned int blocks, double* sum)
{
    final_sum(partial, blocks, sum);
}
