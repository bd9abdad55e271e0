// Kernels of the completion tests and examples (tests/completion_gpu.rs,
// examples/async_requests.rs, examples/async_latency.rs).

// The answer to request `request`: out[i] = mix(request, i) for i < n, a hash the host
// recomputes to check every element.
__device__ __forceinline__ unsigned int mix(unsigned int request, unsigned int i)
{
    unsigned int x = request * 0x9E3779B1u + i;
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    return x;
}

extern "C" __global__ void respond(unsigned int request, unsigned int n, unsigned int* out)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = mix(request, i);
    }
}

// Busy for `ns` nanoseconds of the GPU's global timer, then out[0] += 1 (one thread): work that
// is still running while the host drops or awaits its completion.
extern "C" __global__ void spin_wait(unsigned long long ns, unsigned int* out)
{
    unsigned long long start;
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] += 1;
    }
}
