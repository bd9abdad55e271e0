// Kernels for examples/l2_persistence.rs.
//
// fill: x[i] = (u32)i * mul ^ salt, so the host can recompute any element.
// l2_mix: streams `cold` (n4 uint4) once and, for every two cold vectors, re-reads one vector of
// the small `hot` region (hot index (k / 2) % hot_n4), so hot is read again after every
// 2 × hot-size bytes of cold data: with a 20 MB hot region that is a reuse distance of about
// 60 MB, more than the L2 holds, unless hot is kept in the persisting part of L2. Adds
// cold ^ hot per element into *sum (u32, wrapping: exact in any order).

extern "C" __global__ void fill(unsigned int* x, unsigned long long n, unsigned int mul,
                                unsigned int salt)
{
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        x[i] = (unsigned int)i * mul ^ salt;
    }
}

extern "C" __global__ void l2_mix(const uint4* cold, unsigned long long n4, const uint4* hot,
                                  unsigned long long hot_n4, unsigned int* sum)
{
    unsigned int acc = 0;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long k = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; k < n4;
         k += stride) {
        uint4 c = cold[k];
        // 32-bit modulo (k / 2 < 2^32 here): a 64-bit one would cost more than the loads.
        uint4 h = hot[(unsigned int)(k >> 1) % (unsigned int)hot_n4];
        acc += (c.x ^ h.x) + (c.y ^ h.y) + (c.z ^ h.z) + (c.w ^ h.w);
    }
    atomicAdd(sum, acc);
}
