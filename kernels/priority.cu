// Kernels for examples/priority.rs.
//
// busy: each block spins for `ns` nanoseconds of the global timer, then counts itself in *done:
// launched with many blocks, back to back, it keeps every SM full (the flood).
// probe: the latency-sensitive kernel: one block that writes `value` to *out.

__device__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

extern "C" __global__ void busy(unsigned int* done, unsigned long long ns)
{
    unsigned long long start = global_ns();
    while (global_ns() - start < ns) {
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(done, 1u);
    }
}

extern "C" __global__ void probe(unsigned int* out, unsigned int value)
{
    if (threadIdx.x == 0) {
        *out = value;
    }
}
