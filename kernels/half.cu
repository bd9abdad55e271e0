// Half-precision parameters by value: x[i] *= f, for the `f16` feature (half::f16, half::bf16).
// nvcc passes __half and __nv_bfloat16 as 2-byte structs: `.param .align 2 .b8 name[2]`.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void scale_f16(__half* x, __half f, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = __hmul(x[i], f);
}

extern "C" __global__ void scale_bf16(__nv_bfloat16* x, __nv_bfloat16 f, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = __hmul(x[i], f);
}
