// C++-linkage kernels (NOT extern "C"): their PTX entry names are mangled.
// Used to test lookup by unmangled name, and the ambiguity error.

// Naive row-major GEMM: c[m x n] = a[m x k] * b[k x n]. TILE is only an
// unroll hint; it exists so the entry name carries a template argument.
template <int TILE>
__global__ void gemm(const float* a, const float* b, float* c, int m, int n, int k)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m && col < n) {
        float acc = 0.0f;
#pragma unroll 4
        for (int p = 0; p < k; ++p) {
            acc += a[row * k + p] * b[p * n + col];
        }
        c[row * n + col] = acc;
    }
}

// Mangled: _Z4gemmILi128EEvPKfS1_Pfiii
template __global__ void gemm<128>(const float*, const float*, float*, int, int, int);

// x[i] *= f. Instantiated twice, so "scale" matches two mangled entries
// (_Z5scaleIfEvPT_S0_j and _Z5scaleIdEvPT_S0_j): an ambiguous lookup.
template <typename T>
__global__ void scale(T* x, T f, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = x[i] * f;
    }
}

template __global__ void scale<float>(float*, float, unsigned int);
template __global__ void scale<double>(double*, double, unsigned int);

// Plain C++ (non-template) kernel: one mangled entry, _Z10offset_addPffj.
__global__ void offset_add(float* y, float v, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] += v;
    }
}
