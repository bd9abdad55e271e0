// Programmatic dependent launch (PDL) pairs.
// pdl_produce writes data[i] = i * 3 + 1, then lets the dependent kernel start
// (`griddepcontrol.launch_dependents`).
// pdl_consume waits for the producer's writes (`griddepcontrol.wait`) before reading them:
// out[i] = data[i] + 5.
// pdl_consume_nowait reads without waiting: launched with programmatic_serialization it could
// read data before pdl_produce wrote it (chevron rejects that launch).
extern "C" __global__ void pdl_produce(unsigned int* data, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] = i * 3 + 1;
    }
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

extern "C" __global__ void pdl_consume(const unsigned int* data, unsigned int* out, unsigned int n)
{
    asm volatile("griddepcontrol.wait;" ::: "memory");
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = data[i] + 5;
    }
}

extern "C" __global__ void pdl_consume_nowait(const unsigned int* data, unsigned int* out, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = data[i] + 5;
    }
}
