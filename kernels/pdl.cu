// pdl_step: one link of a chain of dependent kernels (examples/pdl_chain.rs), written for
// programmatic dependent launch (sm_90).
//
// Each thread first lets the next kernel in the stream launch (griddepcontrol.launch_dependents,
// what cudaTriggerProgrammaticLaunchCompletion() compiles to), then does work that does not read
// the previous kernel's output (`rounds` rounds of an integer hash of its index and the step),
// then waits for the previous kernel to finish and flush its writes (griddepcontrol.wait, what
// cudaGridDependencySynchronize() compiles to), and only then reads `in`. Launched without
// programmatic serialization both instructions do nothing, so every variant computes the same
// out[i] = in[i] * 3 + hash(i, step) (wrapping u32 arithmetic, exact on the host too).
extern "C" __global__ void pdl_step(const unsigned int* in, unsigned int* out, unsigned int n,
                                    unsigned int step, unsigned int rounds)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    unsigned int h = i * 0x9E3779B9u ^ step;
    for (unsigned int r = 0; r < rounds; ++r) {
        h ^= h >> 15;
        h *= 0x2C1B3C6Du;
        h ^= h >> 12;
    }
    asm volatile("griddepcontrol.wait;" ::: "memory");
    if (i < n) {
        out[i] = in[i] * 3u + h;
    }
}
