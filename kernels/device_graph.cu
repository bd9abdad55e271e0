// Device-side graph launch (tests/device_graph_gpu.rs, examples/device_graph_relaunch.rs): a
// kernel of a host-launched graph launches a graph instantiated for device launch
// (chevron::DeviceGraph) with cudaGraphLaunch. That call is in the CUDA device runtime, so this
// file is compiled as relocatable code (build.sh: -rdc=true) and linked with libcudadevrt when its
// module loads. No #include: nvcc includes cuda_runtime.h itself.

// The device graph's work: out[i] = value + i for i < n (any grid).
extern "C" __global__ void fill_ramp(unsigned int* out, unsigned int n, unsigned int value)
{
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        out[i] = value + i;
    }
}

// One thread launches `exec` fire-and-forget (it runs as a child of this graph's launch: the host
// stream sees it complete with the launching graph) and writes cudaGraphLaunch's result to
// status[0].
extern "C" __global__ void launch_fire_and_forget(cudaGraphExec_t exec, int* status)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        status[0] = (int)cudaGraphLaunch(exec, cudaStreamGraphFireAndForget);
    }
}

// The same with C++ linkage: the symbol carries the signature (cudaGraphExec_t is
// `CUgraphExec_st*`), which chevron checks the Rust declaration against.
__global__ void launch_tail(cudaGraphExec_t exec, int* status)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        status[0] = (int)cudaGraphLaunch(exec, cudaStreamGraphTailLaunch);
    }
}

// A kernel of a device graph that relaunches its own graph (tail launch) until it has run
// `limit` times: counter[0] counts the runs, trace[k] = k + 1 records run k, status[0] the first
// failed cudaGraphLaunch (0 when none failed). counter[0] starts at 0.
extern "C" __global__ void relaunch_until(unsigned int* counter, unsigned int limit, unsigned int* trace, int* status)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    unsigned int c = counter[0];
    trace[c] = c + 1;
    counter[0] = c + 1;
    if (c + 1 < limit) {
        cudaError_t rc = cudaGraphLaunch(cudaGetCurrentGraphExec(), cudaStreamGraphTailLaunch);
        if (rc != cudaSuccess && status[0] == 0) {
            status[0] = (int)rc;
        }
    }
}

// A counter step for the host-launch baseline of the relaunch example: counter[0] += 1.
extern "C" __global__ void count_once(unsigned int* counter)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        counter[0] += 1;
    }
}
