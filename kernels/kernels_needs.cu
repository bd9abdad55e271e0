// Kernels `#[kernels]` cannot type without the user (ui-tests/fail/kernels_*.rs): an
// `extern "C"` kernel (its PTX has only widths), a struct by value, a type chevron has no Rust
// type for (`Pixel*`, a pointer to a struct), a dependent typedef (`vec4<float>::Type*`, which is
// `float4*`). `__half2*` is `chevron::vec::Half2` (feature `f16`).
#include <cuda_fp16.h>

struct Affine { float scale; float bias; };
template <typename T> struct vec4 { typedef T Type; };
template <> struct vec4<float> { typedef float4 Type; };

extern "C" __global__ void c_scale(float* x, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}

__global__ void affine(float* x, Affine a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * a.scale + a.bias;
}

struct Pixel { unsigned char r, g, b, a; };

__global__ void pixels(Pixel* p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i].a = 255;
}

__global__ void half2_scale(__half2* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = __hmul2(x[i], x[i]);
}

template <typename T>
__global__ void bias4(typename vec4<T>::Type* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i].x += 1.0f;
}
template __global__ void bias4<float>(float4*, int);

__global__ void plain(float* y, const float* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
