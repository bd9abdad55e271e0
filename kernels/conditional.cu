// Conditional graph nodes (tests/conditional_gpu.rs): kernels that decide a node with
// cudaGraphSetConditional. That call is in the CUDA device runtime, so this file is compiled as
// relocatable code (build.sh: -rdc=true) and linked with libcudadevrt when its module loads.
// No #include: nvcc includes cuda_runtime.h itself.

// One step of a counted loop: *counter += 1, trace[*counter - 1] = 10 * *counter, and the loop
// goes on while *counter < limit. trace holds at least `limit` entries.
extern "C" __global__ void count_up(cudaGraphConditionalHandle handle, unsigned int* counter,
                                    unsigned int limit, unsigned int* trace)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    unsigned int c = *counter + 1;
    *counter = c;
    if (c <= limit) {
        trace[c - 1] = 10u * c;
    }
    cudaGraphSetConditional(handle, c < limit ? 1u : 0u);
}

// Sets the condition to *value: an `if` takes any non-zero as true, a `switch` the case index.
extern "C" __global__ void set_condition(cudaGraphConditionalHandle handle, const unsigned int* value)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        cudaGraphSetConditional(handle, *value);
    }
}

// out[index] = value: records which body ran (and resets counters).
extern "C" __global__ void mark(unsigned int* out, unsigned int index, unsigned int value)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[index] = value;
    }
}

// out[index] += 1 for every launch (a body that runs k times adds k).
extern "C" __global__ void bump(unsigned int* out, unsigned int index)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[index] += 1u;
    }
}

// Sets the condition to whether *counter is odd (an `if` nested in a `while` body).
extern "C" __global__ void set_odd(cudaGraphConditionalHandle handle, const unsigned int* counter)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        cudaGraphSetConditional(handle, *counter & 1u);
    }
}
