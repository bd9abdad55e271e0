// A histogram of signed values into unsigned bins (atomics), and the bins' total by a
// cooperative-groups block reduction shared with port_rows.cu. Compiled to PTX by
// kernels/build.sh; examples/cpp_port.rs checks both against the host.
#include "port_common.cuh"

// bins[v - lo] += 1 for every value in [lo, lo + nbins); others are counted in *outside.
__global__ void histogram(unsigned int* bins, unsigned long long* outside, const int* values,
                          int n, int lo, int nbins)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    int b = values[i] - lo;
    if (b >= 0 && b < nbins) {
        atomicAdd(&bins[b], 1u);
    } else {
        atomicAdd(outside, 1ull);
    }
}

// The total of `nbins` bins, in one block of BLOCK threads.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) bin_total(float* total, const unsigned int* bins, int nbins)
{
    float v = 0.0f;
    for (int b = threadIdx.x; b < nbins; b += BLOCK) {
        v += static_cast<float>(bins[b]);
    }
    v = block_sum<BLOCK>(v);
    if (threadIdx.x == 0) {
        *total = v;
    }
}

template __global__ void bin_total<256>(float*, const unsigned int*, int);
