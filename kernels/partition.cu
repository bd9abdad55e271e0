// SM partitions (tests/partition_gpu.rs, examples/sm_partition.rs): where blocks run.
//
// smid: each block spins `ns` nanoseconds of the global timer (so that the blocks of one launch
// are resident together and spread over every SM they may use), then thread 0 writes the SM it
// ran on (%smid) to out[block].

__device__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

extern "C" __global__ void smid(unsigned int* out, unsigned long long ns)
{
    unsigned long long start = global_ns();
    while (global_ns() - start < ns) {
    }
    if (threadIdx.x == 0) {
        unsigned int id;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
        out[blockIdx.x] = id;
    }
}
