// A multi-kernel CUDA C++ file in the style of a small transformer training codebase (written
// for chevron's tests, after the shapes of llm.c's kernels: MIT-licensed code is not copied).
// Every kernel has C++ linkage, so its PTX symbol carries its signature: `#[kernels]` declares
// them all (tests/kernels_codebase.rs). Templates with integer and type arguments, a namespace,
// overloads, float4 through a dependent typedef, size_t, pointers to pointers, `void*`.
#include <cuda_runtime.h>

template <typename T> struct vec4 { typedef T Type; };
template <> struct vec4<float> { typedef float4 Type; };

namespace llm {

__global__ void encoder_forward(float* out, const int* tokens, const float* wte, const float* wpe,
                                int B, int T, int C)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * T * C) {
        int c = idx % C, bt = idx / C, t = bt % T;
        out[idx] = wte[tokens[bt] * C + c] + wpe[t * C + c];
    }
}

__global__ void residual_forward(float* out, const float* a, const float* b, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}

} // namespace llm

__global__ void gelu_forward_kernel(float* out, const float* inp, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = inp[i];
        out[i] = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
    }
}

__global__ void gelu_backward_kernel(float* dinp, const float* inp, const float* dout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = inp[i];
        float t = tanhf(0.7978845608f * (x + 0.044715f * x * x * x));
        dinp[i] = dout[i] * 0.5f * (1.0f + t + x * (1.0f - t * t) * 0.7978845608f);
    }
}

// One block per row; BLOCK threads reduce the row's mean and variance in shared memory.
template <int BLOCK>
__global__ void layernorm_forward(float* out, float* mean, float* rstd, const float* inp,
                                  const float* weight, const float* bias, int N, int C)
{
    __shared__ float s1[BLOCK], s2[BLOCK];
    int row = blockIdx.x;
    if (row >= N) return;
    const float* x = inp + (size_t)row * C;
    float a = 0.0f, b = 0.0f;
    for (int i = threadIdx.x; i < C; i += BLOCK) { a += x[i]; b += x[i] * x[i]; }
    s1[threadIdx.x] = a; s2[threadIdx.x] = b;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) { s1[threadIdx.x] += s1[threadIdx.x + s]; s2[threadIdx.x] += s2[threadIdx.x + s]; }
        __syncthreads();
    }
    float m = s1[0] / C, r = rsqrtf(s2[0] / C - m * m + 1e-5f);
    for (int i = threadIdx.x; i < C; i += BLOCK) out[(size_t)row * C + i] = (x[i] - m) * r * weight[i] + bias[i];
    if (threadIdx.x == 0) { mean[row] = m; rstd[row] = r; }
}
template __global__ void layernorm_forward<128>(float*, float*, float*, const float*, const float*, const float*, int, int);
template __global__ void layernorm_forward<256>(float*, float*, float*, const float*, const float*, const float*, int, int);

// Row-wise softmax with a type parameter and a bool template argument.
template <typename T, bool CAUSAL>
__global__ void softmax_forward(T* out, const T* inp, int N, int T_len)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= N) return;
    int len = CAUSAL ? (row % T_len) + 1 : T_len;
    const T* x = inp + (size_t)row * T_len;
    T mx = x[0];
    for (int i = 1; i < len; ++i) mx = x[i] > mx ? x[i] : mx;
    T sum = 0;
    for (int i = 0; i < len; ++i) sum += exp(x[i] - mx);
    for (int i = 0; i < T_len; ++i) out[(size_t)row * T_len + i] = i < len ? exp(x[i] - mx) / sum : T(0);
}
template __global__ void softmax_forward<float, true>(float*, const float*, int, int);
template __global__ void softmax_forward<float, false>(float*, const float*, int, int);
template __global__ void softmax_forward<double, true>(double*, const double*, int, int);

// Bias add over float4 through a dependent typedef: the symbol spells `vec4<float>::Type*`.
template <typename T>
__global__ void add_bias4(typename vec4<T>::Type* out, const typename vec4<T>::Type* bias, int OC4, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        typename vec4<T>::Type o = out[i], b = bias[i % OC4];
        o.x += b.x; o.y += b.y; o.z += b.z; o.w += b.w;
        out[i] = o;
    }
}
template __global__ void add_bias4<float>(float4*, const float4*, int, int);

// Overloads: the same name for two element types.
__global__ void scale_inplace(float* x, float s, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}
__global__ void scale_inplace(double* x, double s, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}

// AdamW over many parameters; `unsigned long long` step counter; `float*` grads only read.
__global__ void adamw_kernel(float* params, float* grads, float* m, float* v, long num_parameters,
                             float learning_rate, float beta1, float beta2, float beta1_correction,
                             float beta2_correction, float eps, float weight_decay,
                             unsigned long long step)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= num_parameters) return;
    float g = grads[i];
    float mi = beta1 * m[i] + (1.0f - beta1) * g;
    float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
    m[i] = mi; v[i] = vi;
    params[i] -= learning_rate * ((mi / beta1_correction) / (sqrtf(vi / beta2_correction) + eps) + weight_decay * params[i]) + 0.0f * (float)step;
}

// Cross-entropy: per-row losses from probabilities; `char` targets mask.
__global__ void crossentropy_forward(float* losses, const float* probs, const int* targets,
                                     const char* mask, int B, int T, int V)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < B * T) losses[i] = mask[i] ? -logf(probs[(size_t)i * V + targets[i]]) : 0.0f;
}

// Gathers rows through a table of device pointers (`float**`), copies raw bytes (`void*`).
__global__ void gather_rows(float* out, const float* const* rows, int C, int n_rows)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < C * n_rows) out[i] = rows[i / C][i % C];
}

__global__ void copy_bytes(void* dst, const void* src, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) static_cast<unsigned char*>(dst)[i] = static_cast<const unsigned char*>(src)[i];
}

// Reads through a pointer that is not `const`: the PTX proves no store (generated `&`).
__global__ void sum_squares(float* out, float* inp, int n)
{
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? inp[i] * inp[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k /= 2) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
