// Vector kernels: a template over the element type, half precision from <cuda_fp16.h>, and
// float4 loads.
#include "common.cuh"
#include <cuda_fp16.h>

// y[i] = a * x[i] + y[i]
template <typename T>
__global__ void axpy(T* y, const T* x, T a, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}

// out[i] = in[i] * s, in half precision.
extern "C" __global__ void scale_half(__half* out, const __half* in, float s, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __float2half(__half2float(in[i]) * s);
    }
}

// out[i] = a[i] + b[i] for n float4 values (4n floats), one 16-byte load of each per thread.
extern "C" __global__ void add4(float4* out, const float4* a, const float4* b, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float4 x = a[i], y = b[i];
        out[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}
