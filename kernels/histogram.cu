// histogram: 256-bin byte histogram, bins[data[i]] += 1. Compiled at run time
// by NVRTC (not shipped as PTX), so it must not #include any headers.
extern "C" __global__ void histogram(unsigned int* bins, const unsigned char* data, unsigned int len)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < len) {
        atomicAdd(&bins[data[i]], 1u);
    }
}
