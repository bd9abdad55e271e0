// chain: y[i] = y[i] * a + b. A tiny kernel for chains of dependent launches (graph replay).
extern "C" __global__ void chain(unsigned int n, float a, float b, float* y)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = y[i] * a + b;
    }
}

// chain_copy: y[i] = x[i] * a + b, reading one buffer and writing another (buffer updates).
extern "C" __global__ void chain_copy(unsigned int n, float a, float b, const float* x, float* y)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] * a + b;
    }
}

// chain_pdl: chain for programmatic dependent launch (`programmatic_serialization`, or
// programmatic edges in a captured graph), where a kernel may start before the previous one in
// the chain has finished. The wait comes first: it returns once the previous kernel has
// completed and its writes are visible, so y is read only after it holds the previous kernel's
// complete output. Triggering dependents right after lets the next kernel's launch overlap this
// one (it then waits in its own griddepcontrol.wait), instead of starting only at this one's
// end. Without a programmatic dependency both instructions do nothing.
extern "C" __global__ void chain_pdl(unsigned int n, float a, float b, float* y)
{
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;");
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = y[i] * a + b;
    }
}

// empty: does nothing. A chain of these measures what a launch or a graph node costs by itself
// (examples/graph_replay.rs: the floor under the chains above).
extern "C" __global__ void empty() {}
