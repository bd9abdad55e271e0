// Device-side graph updates: `retarget` rewrites the arguments of a device-updatable `chain`
// node (kernels/chain.cu) from the GPU. Calls into the CUDA device runtime, so it is compiled as
// relocatable code (build.sh: -rdc=true; NVRTC: chevron adds -rdc=true) and linked with
// libcudadevrt when its module loads. No #include: nvcc includes cuda_runtime.h itself, and
// NVRTC declares the device runtime with -rdc=true.

// chain(unsigned int n, float a, float b, float* y): a at byte 4, b at 8, y at 16.
extern "C" __global__ void retarget(cudaGraphDeviceNode_t node, float a, float b, float* y, int* status)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    // Each call is one update (cudaGraphKernelNodeUpdatesApply of one entry); the first error wins.
    cudaError_t rc = cudaGraphKernelNodeSetParam(node, 4, &a, sizeof a);
    if (rc == cudaSuccess) {
        rc = cudaGraphKernelNodeSetParam(node, 8, &b, sizeof b);
    }
    if (rc == cudaSuccess) {
        rc = cudaGraphKernelNodeSetParam(node, 16, &y, sizeof y);
    }
    *status = (int)rc;
}
