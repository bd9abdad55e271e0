// trap: stops the whole grid with `__trap()` when `trigger` is nonzero, otherwise writes 1 to
// out[0]. A trap is a sticky error: the context cannot run anything afterwards, so the one test
// that launches it with trigger = 1 runs in a process of its own (tests/sticky_gpu.rs).
extern "C" __global__ void trap(unsigned int trigger, unsigned int* out)
{
    if (trigger != 0) {
        __trap();
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = 1;
    }
}
