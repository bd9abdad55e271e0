// Row statistics of a matrix of `rows` rows of `cols4` float4s (4·cols4 floats), one block per
// row: the row sums (a template over the block size, float4 loads, a cooperative-groups block
// reduction), each row divided by its sum, an affine map, and an overloaded axpy (float and
// double). Compiled to PTX by kernels/build.sh; examples/cpp_port.rs launches every kernel
// and checks it against a host reference.
#include "port_common.cuh"

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) row_sums(float* sums, const float4* in, int cols4)
{
    const float4* row = in + static_cast<size_t>(blockIdx.x) * cols4;
    float v = 0.0f;
    for (int c = threadIdx.x; c < cols4; c += BLOCK) {
        v += lane_sum(row[c]);
    }
    v = block_sum<BLOCK>(v);
    if (threadIdx.x == 0) {
        sums[blockIdx.x] = v;
    }
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    normalize_rows(float4* out, const float4* in, const float* sums, int cols4)
{
    size_t base = static_cast<size_t>(blockIdx.x) * cols4;
    float inv = 1.0f / sums[blockIdx.x];
    for (int c = threadIdx.x; c < cols4; c += BLOCK) {
        float4 v = in[base + c];
        out[base + c] = make_float4(v.x * inv, v.y * inv, v.z * inv, v.w * inv);
    }
}

template __global__ void row_sums<256>(float*, const float4*, int);
template __global__ void row_sums<128>(float*, const float4*, int);
template __global__ void normalize_rows<256>(float4*, const float4*, const float*, int);

__global__ void affine(float* x, Affine a, size_t n)
{
    size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = a.scale * x[i] + a.bias;
    }
}

// Two overloads: chevron picks one by the declared parameters.
__global__ void axpy(float* y, const float* x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] += a * x[i];
    }
}

__global__ void axpy(double* y, const double* x, double a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] += a * x[i];
    }
}
