// bigshared: a block fills `words` words of dynamic shared memory (100 KiB in the GPU test, over
// the 48 KiB a launch gets without CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), then each
// thread sums the words it reads from the far end, so every word written must have been kept:
//   buf[i] = in[i] * 2 + blockIdx.x
//   out[blockIdx.x * blockDim.x + t] = sum of buf[words - 1 - i] for i = t, t + blockDim.x, ...
extern "C" __global__ void bigshared(const unsigned int* in, unsigned int* out, unsigned int words)
{
    extern __shared__ unsigned int buf[];
    for (unsigned int i = threadIdx.x; i < words; i += blockDim.x) {
        buf[i] = in[i] * 2u + blockIdx.x;
    }
    __syncthreads();
    unsigned int acc = 0;
    for (unsigned int i = threadIdx.x; i < words; i += blockDim.x) {
        acc += buf[words - 1u - i];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
