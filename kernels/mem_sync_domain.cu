// Kernels for examples/mem_sync_domain.rs.
//
// fence_heavy: each thread bumps its counter `iters` times, with a system-scope fence
// (__threadfence_system(), fence.sc.sys) after every store, as a communication kernel does
// between writing data and raising a flag. A fence must wait until the writes it orders are
// visible; without memory-synchronization domains the GPU cannot tell which writes those are and
// waits for other kernels' writes too.
// stream_write: the neighbour: `passes` times over, out[i] = in[i] * 3 + 1 (heavy write
// traffic, no fences).

extern "C" __global__ void fence_heavy(unsigned int* counters, unsigned int iters)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int v = counters[i];
    for (unsigned int it = 0; it < iters; ++it) {
        v += 1;
        counters[i] = v;
        __threadfence_system();
    }
}

extern "C" __global__ void stream_write(const unsigned int* in, unsigned int* out,
                                        unsigned long long n, unsigned int passes)
{
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned int p = 0; p < passes; ++p) {
        for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
             i < n; i += stride) {
            out[i] = in[i] * 3u + 1u;
        }
    }
}
