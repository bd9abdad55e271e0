// Programmatic dependent launch through the CUDA intrinsics, directly and in __noinline__
// helpers: built as pdl_helpers.ptx and, with -G, as pdl_helpers_debug.ptx (where the
// intrinsics themselves become `call`s into `.func`s).
// The producers write data[i] = i * 3 + 1 and then let the dependent kernel start; the
// consumers wait for the producer before reading: out[i] = data[i] + 5.

__device__ __noinline__ void wait_for_upstream()
{
    cudaGridDependencySynchronize();
}

__device__ __noinline__ void release_downstream()
{
    cudaTriggerProgrammaticLaunchCompletion();
}

extern "C" __global__ void pdl_wait_direct(const unsigned int* data, unsigned int* out, unsigned int n)
{
    cudaGridDependencySynchronize();
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = data[i] + 5;
    }
}

extern "C" __global__ void pdl_wait_helper(const unsigned int* data, unsigned int* out, unsigned int n)
{
    wait_for_upstream();
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = data[i] + 5;
    }
}

extern "C" __global__ void pdl_trigger_direct(unsigned int* data, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] = i * 3 + 1;
    }
    cudaTriggerProgrammaticLaunchCompletion();
}

extern "C" __global__ void pdl_trigger_helper(unsigned int* data, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] = i * 3 + 1;
    }
    release_downstream();
}
