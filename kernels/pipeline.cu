// Two kernels for cross-stream dependency tests: produce (slow, on stream A)
// writes buf; consume (on stream B) reads it. Without an event dependency,
// consume would observe stale data because produce spins first.

// Busy-wait `spin` iterations of a ~1000-cycle clock64() delay (about
// spin * 0.5 us per thread), then buf[i] = v + i.
extern "C" __global__ void produce(float* buf, float v, unsigned int n, unsigned int spin)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned int s = 0; s < spin; ++s) {
        long long start = clock64();
        while (clock64() - start < 1000) {
        }
    }
    if (i < n) {
        buf[i] = v + (float)i;
    }
}

// out[i] = in[i] * 2.
extern "C" __global__ void consume(const float* in, float* out, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * 2.0f;
    }
}
