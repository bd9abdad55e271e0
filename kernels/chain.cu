// chain: y[i] = y[i] * a + b. A tiny kernel for chains of dependent launches (graph replay).
extern "C" __global__ void chain(unsigned int n, float a, float b, float* y)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = y[i] * a + b;
    }
}

// chain_copy: y[i] = x[i] * a + b, reading one buffer and writing another (buffer updates).
extern "C" __global__ void chain_copy(unsigned int n, float a, float b, const float* x, float* y)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] * a + b;
    }
}
