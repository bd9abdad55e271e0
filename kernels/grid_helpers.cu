// Grid-wide facts that sit in helpers, as nvcc emits them: built as grid_helpers.ptx and, with
// -G, as grid_helpers_debug.ptx (where nearly every intrinsic becomes a `call` into a `.func`).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// The grid barrier in a __noinline__ helper: the kernel's own body only `call`s it.
__device__ __noinline__ void grid_barrier()
{
    cg::this_grid().sync();
}

// helper_rotate: grid_rotate (cooperative.cu) with its barrier in a helper; needs a cooperative
// launch. tmp[t] = in[t] * 3, grid barrier, out[t] = tmp[(t + blockDim.x) % n]: each thread
// reads a value another block wrote. n must equal the number of threads in the grid.
extern "C" __global__ void helper_rotate(const int* in, int* tmp, int* out, unsigned int n)
{
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) {
        tmp[t] = in[t] * 3;
    }
    grid_barrier();
    if (t < n) {
        out[t] = tmp[(t + blockDim.x) % n];
    }
}

// grid_index: this_grid() only for indexing, never syncing: out[t] = 2t + 1 for each thread's
// rank t in the grid. Under -G, nvcc reads the grid workspace for the group all the same.
extern "C" __global__ void grid_index(unsigned int* out, unsigned int n)
{
    cg::grid_group grid = cg::this_grid();
    unsigned long long t = grid.thread_rank();
    if (t < n) {
        out[t] = (unsigned int)t * 2 + 1;
    }
}
