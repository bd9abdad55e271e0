// A kernel named like a Rust keyword: declared in Rust as `fn r#match(…)`, whose PTX entry is
// `match`.
extern "C" __global__ void match(unsigned int n, float* y)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = 2.0f * y[i];
    }
}
