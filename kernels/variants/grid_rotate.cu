// grid_rotate compiled two ways, as a `ptx = [...]` declaration's variants: out[t] =
// in[(t + blockDim.x) % n] * 3, where n is the number of threads in the grid.
//
// - sm_90 (grid_rotate_sm90.ptx): in two phases with a grid-wide barrier between them (each
//   thread reads what a thread of *another block* wrote: correct only if the barrier really
//   happened, so only in a cooperative launch), and at most 256 threads per block.
// - sm_75 (grid_rotate_sm75.ptx): in one phase, no barrier, no bound.
//
// Only the sm_90 variant needs `cooperative`; a declaration of both must ask for it.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#if __CUDA_ARCH__ >= 900
#define BOUNDS __launch_bounds__(256)
#else
#define BOUNDS
#endif

extern "C" __global__ void BOUNDS grid_rotate(const int* in, int* tmp, int* out, unsigned int n)
{
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
#if __CUDA_ARCH__ >= 900
    if (t < n) {
        tmp[t] = in[t] * 3;
    }
    cg::this_grid().sync();
    if (t < n) {
        out[t] = tmp[(t + blockDim.x) % n];
    }
#else
    if (t < n) {
        tmp[t] = in[t] * 3;
        out[t] = in[(t + blockDim.x) % n] * 3;
    }
#endif
}
