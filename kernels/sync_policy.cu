// tick: the smallest useful kernel, for round-trip timing (examples/sync_policy.rs). One thread
// adds 1 to *count, so the host can check that every launch ran.
extern "C" __global__ void tick(unsigned int* count)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        *count += 1;
    }
}
